#pragma once

// Small synthetic JPEG and GIF inputs for the io tests, made in memory with
// OpenCV, libjpeg and giflib so the tests need no files and no tools.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace segfeed::testing {

using Bytes = std::vector<uint8_t>;

// A deterministic RGB test picture (gradients plus a pattern with edges),
// height x width x 3.
std::vector<uint8_t> TestPicture(int width, int height);

enum class JpegVariant { kBaseline, kProgressive, kGrayscale };
// Encodes `rgb` with OpenCV's imencode (grayscale: converted to one channel).
Bytes EncodeJpegWithOpenCv(const std::vector<uint8_t>& rgb, int width, int height,
                           JpegVariant variant, int quality = 90);

enum class LibjpegVariant {
  kArithmetic,
  kCmyk,
  kYcck,
  kRgbCoded,
  kProgressive,            // libjpeg's own progression (jpeg_simple_progression)
  kArithmeticProgressive,  // both of the above
  kProgressive411,         // progressive, chroma subsampled 4:1:1
  kProgressive444,         // progressive, chroma at full resolution
};
// Encodes with libjpeg's own API, for variants OpenCV cannot write:
// arithmetic entropy coding (from `rgb`), CMYK/YCCK (ink derived from
// `rgb`), RGB stored as R, G, B components (no YCbCr transform), and
// libjpeg's progressive scans, arithmetic-coded or 4:1:1 too.
Bytes EncodeJpegWithLibjpeg(const std::vector<uint8_t>& rgb, int width, int height,
                            LibjpegVariant variant);

// Decodes with OpenCV's imdecode to RGB: the independent reference for full
// size decodes.
std::vector<uint8_t> DecodeJpegWithOpenCv(const Bytes& jpeg, int* width, int* height);

// Rewrites the frame size in the first SOF marker, to make headers that lie.
Bytes WithJpegFrameSize(Bytes jpeg, int width, int height);

using Rgb = std::array<uint8_t, 3>;
struct GifFrame {
  int left = 0;
  int top = 0;
  int width = 0;
  int height = 0;
  bool interlaced = false;
  int transparent_index = -1;    // -1: no graphics control block
  std::vector<uint8_t> indices;  // height x width palette indices, display order
};
struct GifPicture {
  int screen_width = 0;
  int screen_height = 0;
  std::vector<Rgb> palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}};  // padded to 2^n
  std::vector<GifFrame> frames;
};
// Encodes with giflib's EGif API. Interlaced frames are written in GIF's
// four-pass row order.
Bytes EncodeGif(const GifPicture& picture);

// A single full-screen frame over a black/white palette.
Bytes EncodeMaskGif(const std::vector<uint8_t>& mask, int width, int height,
                    bool interlaced = false);

// A full-screen frame cycling through black, white and a light grey: a mask
// with three colours, which the checker reports as non_binary_mask.
Bytes ThreeColourMaskGif(int width, int height);

// A deterministic mask raster of 0/1 with an ellipse and stripes.
std::vector<uint8_t> TestMask(int width, int height);

// The first frame's LZW data (sub-block payloads joined) and minimum code
// size, read with giflib's record API as GifDecoder gathers them.
struct FrameLzw {
  Bytes data;
  int min_code_size = 0;
};
FrameLzw FirstFrameLzwData(const Bytes& gif);

// GIF LZW data (sub-block payloads joined) made of literal codes only,
// packed LSB first with the code width growing as giflib's decoder expects.
// Every literal after the first defines a table entry, so a long stream
// fills the 4096-entry table and continues at 12 bits without a clear code
// ("deferred clear").
Bytes LzwLiteralStream(const std::vector<uint8_t>& pixels, int min_code_size, bool end_code);

// A GIF file around raw LZW data: `palette_size` grey levels (power of 2),
// one frame covering the screen, `min_code_size` as given.
Bytes GifWithLzwData(int width, int height, int palette_size, int min_code_size, const Bytes& lzw);

// Reads the first frame with giflib's DGifSlurp, which de-interlaces on its
// own: an independent reading of the raster (palette indices, frame size).
std::vector<uint8_t> SlurpFirstFrame(const Bytes& gif, int* width, int* height);

void WriteFile(const std::filesystem::path& path, const Bytes& bytes);

// Bytes from a fixed-seed generator.
Bytes RandomBytes(size_t count, uint32_t seed);

// Growth of this process's peak resident memory while `work` runs, in
// bytes. Resets the kernel's peak counter first (/proc/self/clear_refs) so
// the measurement is not hidden by an earlier, higher peak; -1 when the
// counter cannot be reset here.
int64_t PeakRssGrowthBytes(const std::function<void()>& work);

}  // namespace segfeed::testing
