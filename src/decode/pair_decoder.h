#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "decode/format_sniffer.h"
#include "decode/gif_decoder.h"
#include "decode/jpeg_decoder.h"
#include "decode/jpeg_window_decoder.h"
#include "decode/mask_values.h"
#include "decode/png_decoder.h"
#include "result.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"

namespace segfeed::decode {

// Decodes one image/mask pair from byte spans into buffers it keeps and
// reuses: the decoded image at its DCT scale, the decoded mask, a PNG
// mask's samples, under a per-thread decode budget. It never knows where
// the bytes came from (PairReader reads them through a SampleSource); names
// are for messages only. One per thread; not thread-safe. After the first
// few pairs it allocates no pixel memory. Photos are JPEG or PNG and masks
// GIF or PNG, told apart by their first bytes; a PNG photo is decoded at
// full size.
//
// A pair is decoded in steps, so that the cheap checks come first:
// DecodeImageHeader(), DecodeMask() within what the photo leaves of the
// budget, CheckSizesAgree(), then DecodeImage().
class PairDecoder {
 public:
  // Throws std::bad_alloc if the JPEG decoder cannot be created.
  explicit PairDecoder(const DecodeOptions& options);

  // `target(width, height)` of the full-resolution photo (from its header)
  // is the size the decoded image must reach (a zoomed-in crop decodes
  // finer, a zoomed-out one coarser); a size <= 0 means full size.
  using DecodeTarget = std::function<std::pair<int, int>(int photo_width, int photo_height)>;

  // The photo's header and the smallest DCT scale still at least the
  // target, checked against the decode budget before anything is allocated
  // for its pixels; returns the bytes decoding the photo needs.
  Result<int64_t> DecodeImageHeader(std::span<const uint8_t> bytes, const std::string& name,
                                    const DecodeTarget& target);
  // `window(width, height, scale)` of the full-resolution photo and the
  // DCT scale DecodeImageHeader() chose is the part of the decoded image
  // the sample reads, in its pixels; nullopt (or no function): all of it.
  using DecodeWindow =
      std::function<std::optional<ImageWindow>(int photo_width, int photo_height, DctScale scale)>;

  // The photo whose header DecodeImageHeader() read, into image(). With a
  // window, a JPEG photo of one scan decoded to RGB whose window is well
  // inside it is decoded there only (JpegWindowDecoder: the window's pixels
  // are the whole decode's, image().windowed says so); PNG photos and
  // YCbCr planes are decoded whole.
  Status DecodeImage(std::span<const uint8_t> bytes, const std::string& name,
                     const DecodeWindow& window = {});
  // A GIF or PNG mask at full resolution into mask(), within `budget_bytes`.
  // A binary mask with more than two distinct values is not an error here:
  // the binary rule reads it (mask().distinct_values says so).
  Status DecodeMask(std::span<const uint8_t> bytes, const std::string& name, int64_t budget_bytes);
  // size_mismatch, naming the image and the mask, unless the decoded mask
  // is as large as the photo's header says the photo is.
  Status CheckSizesAgree(const std::string& image_name, const std::string& mask_name) const;

  // Before a pair: buffers grown past the plan by the previous pair go back
  // to the planned size, and the previous photo's header is forgotten.
  // Returns whether Reserve() has planned the buffers.
  bool ShrinkToPlan();

  // Sizes the pixel scratch for photos of source_width x source_height
  // decoded for the target, so that the first pair of that size allocates
  // nothing and scratch_bytes() equals PlannedScratchBytes(), and sets the
  // decode budget: a pair whose headers say that decoding it needs more
  // than `budget_bytes` (the decoded photo, libjpeg's coefficients for a
  // photo of several scans, the mask canvas and frame buffer) is too_large,
  // refused before anything is allocated for it.
  void Reserve(int source_width, int source_height, int output_width, int output_height,
               int64_t budget_bytes = INT64_MAX, const SourceFormats& formats = {});
  // Pixel scratch Reserve() sets up for a source decoded at `scale`: the
  // decoded photo plus the decoded mask at full size, plus a PNG mask's
  // samples at formats.png_mask_bytes_per_pixel, plus, when photos or
  // masks are PNG, the whole-buffer path's inflated rows
  // (PlannedPngRowsBytes()). Allocates nothing.
  static size_t PlannedScratchBytes(DctScale scale, int source_width, int source_height,
                                    const SourceFormats& formats = {});
  // The inflated rows of the PNG path (png_whole_buffer.h) for the planned
  // source: one buffer for the photo and the mask, as wide as the wider
  // (an 8-bit RGB photo's 3 bytes a pixel, a mask's sample bytes) plus a
  // filter byte a row. 0 when neither is PNG. A PNG's IDAT chunks are
  // joined into the decoded output, which the plan holds already; only
  // image data longer than the output (noise in RGBA) needs more, within
  // the budget's headroom.
  static size_t PlannedPngRowsBytes(int source_width, int source_height,
                                    const SourceFormats& formats);
  // The decode budget of one thread for a source decoded at `scale`:
  // scratch_headroom x (PlannedScratchBytes() plus libjpeg's coefficients
  // for the planned photo when it is progressive), plus kDecoderFixedBytes
  // once. The budget of the Loader (MemoryPlan) and of the dataset checker.
  static size_t DecodeBudgetBytes(DctScale scale, int source_width, int source_height,
                                  const SourceFormats& formats, double scratch_headroom);
  // What every decode budget allows beyond scratch_headroom x the planned
  // source: what a decoder library holds for one photo whatever its size
  // (libjpeg's decompressor, its tables and a few MCU rows: 24 KiB
  // measured for baseline and progressive files of 1x1 to 64x64; libspng's
  // context and zlib's 32 KiB window), not counted per file. It also holds
  // a small photo's whole needs, so a photo is never too_large for being
  // small: a progressive 1x1 JPEG's coefficients are 768 bytes (whole
  // MCUs), 256 times its pixels, more than any headroom of a tiny plan.
  static constexpr int64_t kDecoderFixedBytes = int64_t{64} << 10;

  int64_t budget_bytes() const { return budget_bytes_; }
  // Pixel scratch held now: decoded photo and mask, the GIF decoder's
  // frame buffer for interlaced or offset frames, and the PNG decoder's
  // scanline and inflated rows.
  size_t scratch_bytes() const;
  // The GIF decoder's compressed-data buffer (a read buffer of sorts).
  size_t compressed_bytes() const { return gif_.compressed_bytes(); }

  // The photo's full-resolution header once DecodeImageHeader() parsed it
  // (even if decoding then failed), nullptr before.
  const JpegHeader* image_header() const { return header_read_ ? &image_header_ : nullptr; }
  // Valid after a successful decode, until the next pair.
  DctScale image_scale() const { return image_scale_; }
  // kJpeg or kPng: the decoder the last photo went to (its first bytes say
  // which), set by DecodeImageHeader() even when it then refuses the header.
  SniffedFormat image_format() const { return image_format_; }
  // kGif or kPng: the decoder the last mask went to, set by DecodeMask();
  // kUnknown when DecodeMask() refused the mask on its first bytes.
  SniffedFormat mask_format() const { return mask_format_; }
  const DecodedImage& image() const { return image_; }  // at image_scale()
  const MaskImage& mask() const { return mask_; }       // at full resolution

 private:
  // A PNG mask's samples (mask_samples_) as mask values in mask_.
  Status MapPngSamples(const std::string& path);

  JpegDecoder jpeg_;
  JpegWindowDecoder jpeg_window_;
  GifDecoder gif_;
  PngDecoder png_;
  MaskValueRule mask_rule_;
  SniffedFormat image_format_ = SniffedFormat::kJpeg;
  SniffedFormat mask_format_ = SniffedFormat::kUnknown;
  MaskSamples mask_samples_;
  JpegHeader image_header_;  // the last photo's, at full resolution
  bool header_read_ = false;
  DctScale image_scale_;
  DecodedImage image_;
  MaskImage mask_;
  // Set by Reserve(); until then nothing is shrunk.
  size_t planned_image_bytes_ = SIZE_MAX;
  size_t planned_mask_bytes_ = SIZE_MAX;
  size_t planned_mask_sample_bytes_ = SIZE_MAX;
  size_t planned_png_rows_bytes_ = SIZE_MAX;
  int64_t budget_bytes_ = INT64_MAX;
};

}  // namespace segfeed::decode
