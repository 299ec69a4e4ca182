#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "decode/expected_formats.h"
#include "decode/pair_decoder.h"
#include "result.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"
#include "source/sample_source.h"

namespace segfeed::io {

// Reads one image/mask pair through a SampleSource into two read buffers
// it keeps and reuses, and decodes it with its PairDecoder: the per-thread
// scratch of the decode stage. The source (shared by every thread's reader)
// never knows what the bytes are; the decoder never knows where they came
// from. One per thread; not thread-safe. Every error names the member at
// fault; running out of memory on a member is that member's too_large
// error, and the next pair starts afresh.
class PairReader {
 public:
  // Throws std::bad_alloc if the JPEG decoder cannot be created.
  explicit PairReader(const DecodeOptions& options);

  // Reads sample `id` of `source` and decodes the mask at full resolution
  // and the image at the smallest DCT scale still at least output_width x
  // output_height (full size when a target is <= 0). The photo is read
  // first and its header checked against the decode budget before the mask
  // is read; the mask is decoded and the sizes compared (size_mismatch)
  // before the image is decoded. A member that is plainly not a photo (JPEG
  // or PNG) or a mask (GIF or PNG) is refused on its first bytes, before a
  // buffer of its size is taken.
  Status Read(source::SampleSource& source, source::SampleId id, int output_width,
              int output_height);
  // The same, for a target that depends on the photo (PairDecoder's), and
  // optionally the window of the photo the sample reads (PairDecoder's
  // DecodeWindow: a JPEG may be decoded there only).
  using DecodeTarget = decode::PairDecoder::DecodeTarget;
  using DecodeWindow = decode::PairDecoder::DecodeWindow;
  Status Read(source::SampleSource& source, source::SampleId id, const DecodeTarget& target,
              const DecodeWindow& window = {});

  // One member on its own, under the same budget and memory policy as
  // Read() (the dataset checker decodes every listed file, paired or not):
  // the photo at the smallest DCT scale still at least the target (full
  // size when a target is <= 0), or the mask at full resolution. Unlike
  // Read(), the whole member is read whatever its first bytes say, so that
  // file_bytes() holds it; an error names the member.
  Status ReadImage(source::SampleSource& source, source::SampleId id, int output_width,
                   int output_height);
  Status ReadMask(source::SampleSource& source, source::SampleId id);
  // The same for a file that is no sample of any source (an unpaired file
  // of a folder), read as FilesSource reads one.
  Status ReadImage(const std::filesystem::path& path, int output_width, int output_height);
  Status ReadMask(const std::filesystem::path& path);
  // After ReadImage() or ReadMask(), until the next read: the member's
  // bytes (empty when it could not be read), and for a photo its
  // full-resolution header when it parsed (nullptr otherwise), even if
  // decoding then failed.
  std::span<const uint8_t> file_bytes() const { return file_bytes_; }
  const decode::JpegHeader* image_header() const { return decoder_.image_header(); }

  // PairDecoder::Reserve(): the pixel scratch and the decode budget. After
  // a pair larger than planned, the buffers shrink back to the planned
  // size, and read buffers over kKeptReadBufferBytes are freed.
  void Reserve(int source_width, int source_height, int output_width, int output_height,
               int64_t budget_bytes = INT64_MAX, const SourceFormats& formats = {}) {
    decoder_.Reserve(source_width, source_height, output_width, output_height, budget_bytes,
                     formats);
  }
  // Pixel scratch held now (PairDecoder::scratch_bytes()).
  size_t scratch_bytes() const { return decoder_.scratch_bytes(); }
  // Read buffers held now, with the GIF decoder's compressed-data buffer.
  size_t read_buffer_bytes() const;
  // The most scratch and read-buffer bytes held at once since construction
  // (at the end of a Read(), before shrinking back to the plan).
  size_t peak_scratch_bytes() const { return peak_scratch_bytes_; }
  size_t peak_read_buffer_bytes() const { return peak_read_buffer_bytes_; }

  // Where the last read spent its time, and how many bytes it read.
  struct Timings {
    int64_t read_ns = 0;          // reading both members
    int64_t image_decode_ns = 0;  // the photo's header, budget check and decoding
    int64_t mask_decode_ns = 0;   // the mask's decoding
    // The decoder each decode time is of, as its first bytes said: kJpeg or
    // kPng for the photo, kGif or kPng for the mask; kUnknown for a member
    // no decoder saw (unreadable, or refused on its first bytes).
    decode::SniffedFormat image_format = decode::SniffedFormat::kUnknown;
    decode::SniffedFormat mask_format = decode::SniffedFormat::kUnknown;
    // The photo was decoded in its window only (JpegWindowDecoder).
    bool image_windowed = false;
  };
  const Timings& last_timings() const { return timings_; }
  size_t last_bytes_read() const { return bytes_read_; }

  // Valid after a successful Read(), until the next Read().
  decode::DctScale image_scale() const { return decoder_.image_scale(); }
  // kJpeg or kPng: what the last photo read was (its header says which).
  decode::SniffedFormat image_format() const { return decoder_.image_format(); }
  const decode::DecodedImage& image() const { return decoder_.image(); }  // at image_scale()
  const decode::MaskImage& mask() const { return decoder_.mask(); }       // at full resolution

 private:
  // Read buffers up to this size are kept from pair to pair; a larger one
  // (a member far larger than a photo) is freed before the next pair.
  static constexpr size_t kKeptReadBufferBytes = size_t{4} << 20;

  // Runs one read: shrinks to the plan first, turns std::bad_alloc into the
  // too_large error of the member being read, and records the peaks.
  template <typename Body>
  Status Guarded(Body body);
  Status ReadAndDecode(source::SampleSource& source, source::SampleId id,
                       const DecodeTarget& target, const DecodeWindow& window);
  // Reads a member with `read` (timed) and decodes it as a photo or a mask.
  template <typename ReadMember>
  Status ReadAndDecodeImage(const ReadMember& read, const std::string& name, int output_width,
                            int output_height);
  template <typename ReadMember>
  Status ReadAndDecodeMask(const ReadMember& read, const std::string& name);

  source::ReadBuffer image_bytes_;
  source::ReadBuffer mask_bytes_;
  // What Read() accepts before a member's buffer grows: photos JPEG or PNG,
  // masks GIF or PNG.
  const decode::ExpectedFormats photo_formats_{decode::SniffedFormat::kJpeg,
                                               decode::SniffedFormat::kPng};
  const decode::ExpectedFormats mask_formats_{decode::SniffedFormat::kGif,
                                              decode::SniffedFormat::kPng};
  decode::PairDecoder decoder_;
  Timings timings_;
  size_t bytes_read_ = 0;
  const std::string* reading_ = nullptr;  // the member being read, for bad_alloc
  // Read()'s members' names: members, not locals, because Guarded() names
  // the member being read after a std::bad_alloc has unwound the read.
  std::string image_name_;
  std::string mask_name_;
  std::span<const uint8_t> file_bytes_;  // ReadImage()'s or ReadMask()'s member
  size_t peak_scratch_bytes_ = 0;
  size_t peak_read_buffer_bytes_ = 0;
};

}  // namespace segfeed::io
