#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "decode/jpeg_decoder.h"
#include "result.h"
#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed::decode {

class PngWholeBuffer;  // png_whole_buffer.h
struct PngWholeBufferFreer {
  void operator()(PngWholeBuffer* whole) const;
};

// What a PNG's IHDR says, read without decoding any pixel.
struct PngHeader {
  int width = 0;  // pixels
  int height = 0;
  int bit_depth = 8;  // bits per sample: 1, 2, 4, 8 or 16
  // PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA.
  int color_type = 0;
  bool interlaced = false;  // Adam7
};

// What a PNG mask holds before it becomes mask values (the caller maps them).
enum class MaskSampleFormat { kIndex8, kGrey16, kRgb8 };

// A decoded PNG mask, its samples as the file stores them (no scaling of low
// bit depths, no palette expansion), height x width, rows packed. Kept per
// thread and reused: `bytes` and `palette` only grow.
struct MaskSamples {
  MaskSampleFormat format = MaskSampleFormat::kIndex8;
  int width = 0;  // pixels
  int height = 0;
  int bit_depth = 8;         // the file's (1, 2, 4, 8, 16)
  bool has_palette = false;  // colour type 3: values are palette indices
  // PLTE entries (at most 256), empty for grey and RGB masks.
  std::vector<std::array<uint8_t, 3>> palette;
  // 1 byte per pixel (kIndex8), 2 (kGrey16: host-endian uint16) or 3 (kRgb8).
  std::vector<uint8_t> bytes;
};

// PNG decoding for photos (to 8-bit RGB) and masks (to their raw samples).
// Every file gets a fresh spng context, so nothing passes from one file to
// the next; use one decoder per thread (not thread-safe).
//
// libspng reads and checks the header and the chunks before the image data.
// A non-interlaced file then takes the whole-buffer path when its decode
// budget allows (png_whole_buffer.h: its IDAT data inflated by libdeflate
// in one call into rows sized from the header, then unfiltered), which
// takes only files it finds nothing wrong with; everything else, Adam7
// files included, is decoded by libspng, progressively, one scanline at a
// time straight into the output or through one row of scratch. Either way
// the output is sized from the header, so no amount of compressed data can
// make it grow, and the pixels and the errors are libspng's. Adam7 files
// are placed pass by pass. APNG files decode as their
// default image (the animation chunks are ancillary and skipped). Ancillary
// chunks never change pixels: no gamma, no colour profile, no transparency.
class PngDecoder {
 public:
  explicit PngDecoder(const DecodeOptions& options) : options_(options) {}

  // Parses the signature and IHDR. Errors name `path`: unsupported_format
  // when the bytes are not PNG, too_large when width x height > max_pixels
  // (nothing is allocated for pixels), `corrupt_kind` (kCorruptImage or
  // kCorruptMask) with libspng's reason when the header is bad.
  Result<PngHeader> ReadHeader(std::span<const uint8_t> bytes, std::string_view path,
                               ErrorKind corrupt_kind);

  // The decode budget of DecodeImage() and DecodeMask() is checked before
  // anything is allocated; the whole-buffer path is taken only when its
  // scratch (its inflated rows; split image data is joined into the
  // output, or where that is too small into its own scratch) fits it too.

  // Bytes the pixel output needs for a file with this header, so the caller
  // can check its decode budget before decoding: width x height x 3.
  static int64_t ImageBytes(const PngHeader& header);
  // width x height x 1 (grey up to 8 bits, palette), 2 (grey 16) or 3 (RGB).
  static int64_t MaskSampleBytes(const PngHeader& header);
  // The scanlines DecodeImage() needs besides its output: libspng's and,
  // for a palette file, this decoder's, each as wide as the file stores a
  // row (up to 8 bytes a pixel for 16-bit RGBA, more than the output).
  static int64_t ImageRowBytes(const PngHeader& header);
  // The too_large error of a file with this header that needs `needed_bytes`
  // to decode, more than the `budget_bytes` left (OverDecodeBudget's words).
  static Error OverBudget(std::string_view path, const PngHeader& header, int64_t needed_bytes,
                          int64_t budget_bytes);

  // `corrupt_kind` naming `path` when the file's image data (its IDAT
  // chunks) is too short to hold the samples its header claims even at
  // deflate's best ratio, 1032:1: a file cut short, or a header that lies
  // (69 bytes claiming 10000x10000 pixels). Reads no pixel; the decoders
  // check it before allocating, and the memory plan skips such a header.
  static Status CheckImageDataCanHoldPixels(std::span<const uint8_t> bytes, const PngHeader& header,
                                            std::string_view path, ErrorKind corrupt_kind);

  // Decodes a photo into `out` as 8-bit RGB: grey is expanded, a palette to
  // its colours, 16-bit samples keep their high byte, and alpha is dropped,
  // not composited onto any background. Errors as ReadHeader's (corrupt
  // ones are corrupt_image, with libspng's reason); too_large also when the
  // output and this decoder's scratch would hold more than `budget_bytes`
  // together (checked on the header, before allocating). On error `out`
  // holds garbage.
  Status DecodeImage(std::span<const uint8_t> bytes, std::string_view path, DecodedImage* out,
                     int64_t budget_bytes = INT64_MAX);

  // Decodes a mask into `out`: grey of 1-8 bits and palette indices to
  // kIndex8 with their raw values (a 1-bit mask gives 0 and 1), grey 16 to
  // kGrey16, RGB to kRgb8 (16-bit: the high byte); alpha is ignored. A
  // palette index outside the PLTE is corrupt_mask. Other errors as
  // DecodeImage's, with corrupt_mask.
  Status DecodeMask(std::span<const uint8_t> bytes, std::string_view path, MaskSamples* out,
                    int64_t budget_bytes = INT64_MAX);

  // The whole-buffer path's inflated rows for width x height pixels of
  // `stored_pixel_bytes` each (3: 8-bit RGB), for the memory plan.
  static int64_t WholeBufferRowsBytes(int width, int height, int stored_pixel_bytes);
  // Reserves the whole-buffer path's rows for the planned file (0: none).
  void ReserveWholeBuffer(size_t rows_bytes);
  // Frees the row scratch when it holds more than `keep_bytes`, and the
  // whole-buffer path's rows when more than `keep_whole_rows_bytes` (and
  // its joined data always), so that an outlier file leaves nothing grown.
  void ShrinkScratch(size_t keep_bytes, size_t keep_whole_rows_bytes = 0);
  // The scratch kept between files: libspng's path's scanline as the file
  // stores it, and the whole-buffer path's rows and joined image data.
  size_t scratch_bytes() const;

 private:
  // The whole-buffer path, after libspng has read the chunks before the
  // image data: true when it decoded the file, false when it leaves the
  // file to libspng (`out` is then garbage).
  bool DecodeImageWhole(std::span<const uint8_t> bytes, const PngHeader& header,
                        const void* palette, DecodedImage* out);
  bool DecodeMaskWhole(std::span<const uint8_t> bytes, const PngHeader& header,
                       uint32_t palette_size, MaskSamples* out);
  PngWholeBuffer& Whole();  // made on first use

  DecodeOptions options_;
  std::vector<uint8_t> row_;  // one stored scanline; reused, only grows
  // The whole-buffer path: libdeflate's decompressor and its scratch.
  std::unique_ptr<PngWholeBuffer, PngWholeBufferFreer> whole_;
};

}  // namespace segfeed::decode
