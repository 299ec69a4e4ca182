#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "result.h"
#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::decode {

enum class JpegColorspace { kRgb, kYCbCr, kGray, kCmyk, kYcck };
enum class JpegSubsampling { k444, k422, k420, kGray, k440, k411 };

// What the header says, read without decoding any pixel.
struct JpegHeader {
  int width = 0;  // full resolution, pixels
  int height = 0;
  JpegSubsampling subsampling = JpegSubsampling::k420;
  JpegColorspace colorspace = JpegColorspace::kYCbCr;
  bool progressive = false;  // SOF2 or SOF10
  bool arithmetic = false;   // arithmetic entropy coding (SOF9/SOF10)
  int scans = 0;             // start-of-scan markers in the file
  // Memory libjpeg keeps while decoding a file of more than one scan
  // (progressive, or one scan per component): every DCT coefficient of the
  // image at full resolution, whatever the DCT scale. 0 for one scan.
  int64_t coefficient_bytes = 0;
};

// A DCT scaling factor num/denom. libjpeg-turbo scales inside the inverse
// DCT, so decoding at 1/2 does roughly a quarter of the work of full size.
struct DctScale {
  int num = 1;
  int denom = 1;
  // Size of a `full_pixels` dimension at this scale, rounded up as
  // libjpeg-turbo does (TJSCALED).
  int Apply(int full_pixels) const { return (full_pixels * num + denom - 1) / denom; }
  bool operator==(const DctScale&) const = default;
};

// A rectangle of a decoded image, in its pixels (at its DCT scale).
struct ImageWindow {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

// A decoded photo. The caller keeps one per thread and passes it to every
// Decode(): `pixels` only grows, so steady state decoding allocates nothing.
struct DecodedImage {
  enum class Layout {
    kRgb,  // height x width x 3, rows packed
    // A YCbCr JPEG's planes (decode_colour = ycbcr): Y, luma_stride x
    // luma_rows, of which width x height is the photo, then Cb and Cr,
    // chroma_width x chroma_height each, rows packed. TurboJPEG writes the
    // Y plane padded to whole chroma samples (a 4:2:0 photo of 500x375 gets
    // 500x376, one of 375x500 gets 376x500), so the plane is held that size:
    // packed at width x height, the padding row would land on the first
    // rows of Cb. A chroma sample spans chroma_step_x x chroma_step_y luma
    // samples (2 x 2 for 4:2:0). A grey JPEG has Y alone (chroma_width = 0).
    kYCbCrPlanes,
  };
  int width = 0;
  int height = 0;
  Layout layout = Layout::kRgb;
  int luma_stride = 0;  // bytes from one Y row to the next (kYCbCrPlanes)
  int luma_rows = 0;    // Y rows held, the padding included (kYCbCrPlanes)
  int chroma_width = 0;
  int chroma_height = 0;
  int chroma_step_x = 1;
  int chroma_step_y = 1;
  // Set by a windowed decode (JpegWindowDecoder): only `decoded` of the
  // width x height image holds the photo; the rest is stale and must not be
  // read. false: the whole image was decoded.
  bool windowed = false;
  ImageWindow decoded;
  std::vector<uint8_t> pixels;

  const uint8_t* ChromaPlane(int index) const {  // 0: Cb, 1: Cr
    return pixels.data() + size_t(luma_stride) * luma_rows +
           size_t(index) * chroma_width * chroma_height;
  }
};

// JPEG decoding with libjpeg-turbo's TurboJPEG API. Every file gets a fresh
// TurboJPEG handle, so nothing (tables, Huffman state, an error) passes
// from one file to the next; use one decoder per thread (not thread-safe). libjpeg's error
// path is a longjmp, which TurboJPEG keeps inside its own C code: no C++
// frame is ever jumped over, so a corrupt file cannot leak our objects.
//
// Supported: baseline, extended, progressive and arithmetic-coded JPEG in
// YCbCr, RGB or grayscale (expanded to RGB). Refused as unsupported_format:
// CMYK/YCCK (a correct conversion needs the ICC profile and Adobe's inverted
// ink convention; photo datasets don't use it) and lossless/hierarchical
// JPEG (libjpeg-turbo 2.1 cannot decode them), and 12- or 16-bit samples.
// EXIF orientation is ignored.
class JpegDecoder {
 public:
  // ReadHeader() and Decode() throw std::bad_alloc if TurboJPEG cannot
  // allocate a handle.
  explicit JpegDecoder(const DecodeOptions& options);
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;
  ~JpegDecoder();

  // Parses the header. Refuses too_large (width x height > max_pixels, or
  // width x height x scans > max_pixel_scans: the work of a many-scan
  // progressive file) and the unsupported variants above before anything
  // is allocated for pixels.
  // Errors name `path`: unsupported_format when the bytes are not JPEG at
  // all, corrupt_image with libjpeg-turbo's message when the header is bad.
  Result<JpegHeader> ReadHeader(std::span<const uint8_t> jpeg, std::string_view path);

  // corrupt_image naming `path` when a Huffman-coded file is too short to
  // hold the blocks its frame header claims: every 8x8 block of the largest
  // component codes its DC term in at least one bit, so a file of N bytes
  // holds at most 8N blocks (a header that lies, or a file cut short).
  // Arithmetic coding has no such floor. Reads no pixel; Decode() checks it
  // before allocating, and the memory plan skips such a header.
  static Status CheckDataCanHoldBlocks(std::span<const uint8_t> jpeg, const JpegHeader& header,
                                       std::string_view path);

  // The smallest scale libjpeg-turbo supports whose decoded size is still
  // at least output_width x output_height (the size the photo is warped
  // to); 1/1 when the output is as large as the source or larger (never
  // upscales), or when an output side is <= 0. 1918x1280 -> 512x512 gives
  // 1/2 (959x640).
  DctScale ChooseScale(int source_width, int source_height, int output_width,
                       int output_height) const;

  // Bytes Decode() holds in DecodedImage::pixels for `header` at `scale`:
  // 3 per pixel, or a YCbCr file's planes under decode_colour = ycbcr. The
  // planes take no more than RGB unless a side is 1 pixel, where the
  // padding of the Y plane and the chroma samples make up to twice as much
  // (a 1-pixel-wide 4:1:1 photo's Y rows are 4 bytes).
  int64_t DecodedBytes(const JpegHeader& header, DctScale scale) const;

  // Decodes `jpeg`, whose header ReadHeader() accepted, at `scale` (one
  // ChooseScale() can return) into `out`: RGB, or with decode_colour =
  // ycbcr a YCbCr or grey file's planes (an RGB-coded file stays RGB). On error (corrupt_image with
  // libjpeg-turbo's message, including warnings such as "Premature end of
  // JPEG file" unless options say to ignore them) `out` holds garbage.
  Status Decode(std::span<const uint8_t> jpeg, const JpegHeader& header, DctScale scale,
                std::string_view path, DecodedImage* out);

  // True when Decode() gives `header`'s file as planes.
  bool DecodesToPlanes(const JpegHeader& header) const;

 private:
  struct HandleDeleter {
    void operator()(void* handle) const;
  };
  // Replaces the handle with a fresh one, for the next file.
  void StartNewFile();
  // The planes of a YCbCr or grey file at `scale` into `out`.
  Status DecodePlanes(std::span<const uint8_t> jpeg, const JpegHeader& header, DctScale scale,
                      std::string_view path, DecodedImage* out);
  // corrupt_image for TurboJPEG's failure, or nothing for a warning the
  // options accept.
  Status DecodeFailure(std::string_view path) const;
  // too_large naming `path` when width x height exceeds max_pixels.
  Status CheckPixelLimit(int width, int height, std::string_view path) const;

  std::unique_ptr<void, HandleDeleter> handle_;  // tjhandle
  DecodeOptions options_;
  // The scales libjpeg-turbo supports that do not upscale, largest first.
  std::vector<DctScale> downscales_;
};

// Reads the file at `path` and parses its JPEG header, with the limits of
// `options`. For callers that need one photo's size (the memory plan), not
// its pixels. Errors name `path`.
Result<JpegHeader> ReadJpegHeaderFile(const std::filesystem::path& path,
                                      const DecodeOptions& options);

}  // namespace segfeed::decode
