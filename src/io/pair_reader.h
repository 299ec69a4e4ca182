#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "io/file_reader.h"
#include "io/format_sniffer.h"
#include "io/gif_decoder.h"
#include "io/jpeg_decoder.h"
#include "io/mask_values.h"
#include "io/png_decoder.h"
#include "result.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"
#include "source/sample_source.h"

namespace segfeed::internal {

// Reads one image/mask pair through a SampleSource and decodes it, into
// buffers it keeps and reuses: the per-thread scratch of the decode stage
// (two read buffers, the decoded image at its DCT scale, the decoded mask,
// a PNG mask's samples). The decoders see byte spans only; which source the
// bytes came from, they never know. One per thread; not thread-safe (the
// source itself is shared by every thread's reader). After the first few samples it allocates no
// pixel memory. Photos are JPEG or PNG and masks GIF or PNG, told apart by
// their first bytes; a PNG photo is decoded at full size.
class PairReader {
 public:
  // Throws std::bad_alloc if the JPEG decoder cannot be created.
  explicit PairReader(const DecodeOptions& options);

  // Reads sample `id` of `source`, decodes the mask at full resolution and the image at the
  // smallest DCT scale still at least output_width x output_height (full
  // size when a target is <= 0). Checks that the image's and the mask's
  // full-resolution sizes agree (size_mismatch, naming the image and the
  // mask) before decoding the image. Every error names the file at fault.
  // A binary mask with more than two distinct values is not an error here:
  // the binary rule reads it (mask().distinct_values says so). Running out
  // of memory on a file is that file's too_large error.
  // The photo is read first and its header checked against the decode
  // budget before the mask is read, as the budget rule asks.
  Status Read(SampleSource& source, SampleId id, int output_width, int output_height);
  // The same, for a target that depends on the photo: `target(width,
  // height)` of the full-resolution photo (from its header) is the size the
  // decoded image must reach (a sample's scaled photo: a zoomed-in crop
  // decodes finer, a zoomed-out one coarser).
  using DecodeTarget = std::function<std::pair<int, int>(int photo_width, int photo_height)>;
  Status Read(SampleSource& source, SampleId id, const DecodeTarget& target);

  // One member on its own, under the same budget and memory policy as
  // Read() (the dataset checker decodes every listed file, paired or not):
  // the photo at the smallest DCT scale still at least the target (full
  // size when a target is <= 0), or the mask at full resolution. Unlike
  // Read(), the whole member is read whatever its first bytes say, so that
  // file_bytes() holds it; an error names the member.
  Status ReadImage(SampleSource& source, SampleId id, int output_width, int output_height);
  Status ReadMask(SampleSource& source, SampleId id);
  // The same for a file that is no sample of any source (an unpaired file
  // of a folder), read as FilesSource reads one.
  Status ReadImage(const std::filesystem::path& path, int output_width, int output_height);
  Status ReadMask(const std::filesystem::path& path);
  // After ReadImage() or ReadMask(), until the next read: the file's bytes
  // (empty when it could not be read), and for a photo its full-resolution
  // header when it parsed (nullptr otherwise), even if decoding then failed.
  std::span<const uint8_t> file_bytes() const { return file_bytes_; }
  const JpegHeader* image_header() const { return image_header_read_ ? &image_header_ : nullptr; }

  // Sizes the pixel scratch for photos of source_width x source_height
  // decoded for the target, so that the first Read() of such a pair
  // allocates nothing and scratch_bytes() equals PlannedScratchBytes(), and
  // sets the decode budget: a pair whose headers say that decoding it needs
  // more than `budget_bytes` (the decoded photo, libjpeg's coefficients for
  // a photo of several scans, the mask canvas and frame buffer) is
  // too_large, refused before anything is allocated for it. After a pair
  // larger than planned, the buffers shrink back to the planned size.
  void Reserve(int source_width, int source_height, int output_width, int output_height,
               int64_t budget_bytes = INT64_MAX, const SourceFormats& formats = {});
  // Pixel scratch Reserve() sets up for a source decoded at `scale`: the
  // decoded photo plus the decoded mask at full size, plus a PNG mask's
  // samples at `mask_sample_bytes` per pixel. Allocates nothing.
  static size_t PlannedScratchBytes(DctScale scale, int source_width, int source_height,
                                    int mask_sample_bytes = 0);
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
  // Pixel scratch held now: decoded photo and mask, and the GIF decoder's
  // frame buffer for interlaced or offset frames.
  size_t scratch_bytes() const;
  // Read buffers held now, with the GIF decoder's compressed-data buffer.
  size_t read_buffer_bytes() const;
  // The most scratch and file-buffer bytes held at once since construction
  // (at the end of a Read(), before shrinking back to the plan).
  size_t peak_scratch_bytes() const { return peak_scratch_bytes_; }
  size_t peak_read_buffer_bytes() const { return peak_read_buffer_bytes_; }

  // Where the last Read() spent its time, and how many file bytes it read.
  struct Timings {
    int64_t read_ns = 0;          // reading both members
    int64_t image_decode_ns = 0;  // JPEG header and decoding
    int64_t mask_decode_ns = 0;   // GIF decoding
  };
  const Timings& last_timings() const { return timings_; }
  size_t last_bytes_read() const { return bytes_read_; }

  // Valid after a successful Read(), until the next Read().
  DctScale image_scale() const { return image_scale_; }
  // kJpeg or kPng: what the last photo read was (its header says which).
  SniffedFormat image_format() const { return image_format_; }
  const DecodedImage& image() const { return image_; }  // at image_scale()
  const MaskImage& mask() const { return mask_; }       // at full resolution

 private:
  // Read buffers up to this size are kept from file to file; a larger one
  // (a file far larger than a photo) is freed before the next pair.
  static constexpr size_t kKeptReadBufferBytes = size_t{4} << 20;

  void ShrinkToPlan();
  // Runs one read: shrinks to the plan first, turns std::bad_alloc into the
  // too_large error of the file being read, and records the peaks.
  template <typename Body>
  Status Guarded(Body body);
  Status ReadAndDecode(SampleSource& source, SampleId id, const DecodeTarget& target);
  // Reads a member with `read` (timed) and decodes it as a photo or a mask.
  template <typename ReadMember>
  Status ReadAndDecodeImage(const ReadMember& read, const std::string& name, int output_width,
                            int output_height);
  template <typename ReadMember>
  Status ReadAndDecodeMask(const ReadMember& read, const std::string& name);
  // The photo's header and scale, checked against the decode budget before
  // anything is allocated for its pixels; returns the bytes decoding needs.
  Result<int64_t> ReadImageHeader(std::span<const uint8_t> bytes, const std::string& path,
                                  const DecodeTarget& target);
  // The photo whose header ReadImageHeader() read.
  Status DecodeImage(std::span<const uint8_t> bytes, const std::string& path);
  // A GIF or PNG mask into mask_, within `budget_bytes`.
  Status DecodeMask(std::span<const uint8_t> bytes, const std::string& path, int64_t budget_bytes);
  // A PNG mask's samples (mask_samples_) as mask values in mask_.
  Status MapPngSamples(const std::string& path);

  ReadBuffer image_bytes_;
  ReadBuffer mask_bytes_;
  // What Read() accepts before a member's buffer grows: photos JPEG or PNG,
  // masks GIF or PNG.
  const ExpectedFormats photo_formats_{SniffedFormat::kJpeg, SniffedFormat::kPng};
  const ExpectedFormats mask_formats_{SniffedFormat::kGif, SniffedFormat::kPng};
  JpegDecoder jpeg_;
  GifDecoder gif_;
  PngDecoder png_;
  MaskValueRule mask_rule_;
  SniffedFormat image_format_ = SniffedFormat::kJpeg;
  MaskSamples mask_samples_;
  JpegHeader image_header_;  // the last Read()'s photo, at full resolution
  DctScale image_scale_;
  DecodedImage image_;
  MaskImage mask_;
  Timings timings_;
  size_t bytes_read_ = 0;
  const std::string* reading_ = nullptr;  // the member being read, for bad_alloc
  std::string image_name_;                // Read()'s members' names
  std::string mask_name_;
  bool image_header_read_ = false;
  std::span<const uint8_t> file_bytes_;  // ReadImage()'s or ReadMask()'s file
  // Set by Reserve(); until then nothing is shrunk.
  size_t planned_image_bytes_ = SIZE_MAX;
  size_t planned_mask_bytes_ = SIZE_MAX;
  size_t planned_mask_sample_bytes_ = SIZE_MAX;
  int64_t budget_bytes_ = INT64_MAX;
  size_t peak_scratch_bytes_ = 0;
  size_t peak_read_buffer_bytes_ = 0;
};

}  // namespace segfeed::internal
