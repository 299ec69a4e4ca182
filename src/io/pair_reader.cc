#include "io/pair_reader.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "source/files_source.h"
#include "source/scratch_growth.h"
#include "stage_clock.h"

namespace segfeed::io {

PairReader::PairReader(const DecodeOptions& options)
    : image_bytes_(options.max_file_bytes),
      mask_bytes_(options.max_file_bytes),
      decoder_(options) {}

Status PairReader::Read(source::SampleSource& source, source::SampleId id, int output_width,
                        int output_height) {
  return Read(source, id, [output_width, output_height](int, int) {
    return std::pair{output_width, output_height};
  });
}

Status PairReader::Read(source::SampleSource& source, source::SampleId id,
                        const DecodeTarget& target, const DecodeWindow& window) {
  return Guarded([&] { return ReadAndDecode(source, id, target, window); });
}

template <typename ReadMember>
Status PairReader::ReadAndDecodeImage(const ReadMember& read, const std::string& name,
                                      int output_width, int output_height) {
  return Guarded([&]() -> Status {
    reading_ = &name;
    StageClock::time_point start = StageClock::now();
    auto bytes = read();
    timings_.read_ns += NanosBetween(start, StageClock::now());
    if (!bytes.ok()) return bytes.error();
    file_bytes_ = bytes.value();
    bytes_read_ += file_bytes_.size();
    auto needs =
        decoder_.DecodeImageHeader(file_bytes_, name, [output_width, output_height](int, int) {
          return std::pair{output_width, output_height};
        });
    timings_.image_format = decoder_.image_format();
    if (!needs.ok()) return needs.error();
    return decoder_.DecodeImage(file_bytes_, name);
  });
}

template <typename ReadMember>
Status PairReader::ReadAndDecodeMask(const ReadMember& read, const std::string& name) {
  return Guarded([&]() -> Status {
    reading_ = &name;
    StageClock::time_point start = StageClock::now();
    auto bytes = read();
    timings_.read_ns += NanosBetween(start, StageClock::now());
    if (!bytes.ok()) return bytes.error();
    file_bytes_ = bytes.value();
    bytes_read_ += file_bytes_.size();
    start = StageClock::now();
    Status status = decoder_.DecodeMask(file_bytes_, name, decoder_.budget_bytes());
    timings_.mask_decode_ns = NanosBetween(start, StageClock::now());
    timings_.mask_format = decoder_.mask_format();
    return status;
  });
}

Status PairReader::ReadImage(source::SampleSource& source, source::SampleId id, int output_width,
                             int output_height) {
  return ReadAndDecodeImage([&] { return source.Read(id, source::Member::kImage, &image_bytes_); },
                            source.MemberName(id, source::Member::kImage), output_width,
                            output_height);
}

Status PairReader::ReadMask(source::SampleSource& source, source::SampleId id) {
  return ReadAndDecodeMask([&] { return source.Read(id, source::Member::kMask, &mask_bytes_); },
                           source.MemberName(id, source::Member::kMask));
}

Status PairReader::ReadImage(const std::filesystem::path& path, int output_width,
                             int output_height) {
  return ReadAndDecodeImage([&] { return source::ReadWholeFile(path, &image_bytes_); },
                            path.native(), output_width, output_height);
}

Status PairReader::ReadMask(const std::filesystem::path& path) {
  return ReadAndDecodeMask([&] { return source::ReadWholeFile(path, &mask_bytes_); },
                           path.native());
}

template <typename Body>
Status PairReader::Guarded(Body body) {
  timings_ = {};
  bytes_read_ = 0;
  reading_ = nullptr;
  file_bytes_ = {};
  // The previous pair's pixels are no longer needed, and an outlier leaves
  // nothing grown: the budget check of the next pair sees the planned
  // capacities, so whether a pair fits never depends on which pairs this
  // thread read before. Unplanned, what was read is kept.
  if (decoder_.ShrinkToPlan()) {
    image_bytes_.Shrink(kKeptReadBufferBytes);
    mask_bytes_.Shrink(kKeptReadBufferBytes);
  }
  const StageClock::time_point start = StageClock::now();
  Status status;
  // Memory is a resource of the file being read: running out of it is that
  // file's error, and the next file starts afresh.
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = Error{ErrorKind::kTooLarge, reading_ ? *reading_ : std::string(),
                   "not enough memory to read and decode this file (std::bad_alloc)"};
  }
  peak_scratch_bytes_ = std::max(peak_scratch_bytes_, scratch_bytes());
  peak_read_buffer_bytes_ = std::max(peak_read_buffer_bytes_, read_buffer_bytes());
  // Reading and the mask are timed inside the body; the image (header,
  // size check, decode) is the rest.
  timings_.image_decode_ns =
      NanosBetween(start, StageClock::now()) - timings_.read_ns - timings_.mask_decode_ns;
  return status;
}

Status PairReader::ReadAndDecode(source::SampleSource& source, source::SampleId id,
                                 const DecodeTarget& target, const DecodeWindow& window) {
  // Members, not locals: Guarded() names the member being read after a
  // std::bad_alloc has unwound this function.
  image_name_ = source.MemberName(id, source::Member::kImage);
  mask_name_ = source.MemberName(id, source::Member::kMask);
  const std::string& image_name = image_name_;
  const std::string& mask_name = mask_name_;

  reading_ = &image_name;
  StageClock::time_point start = StageClock::now();
  auto image_bytes = source.Read(id, source::Member::kImage, &image_bytes_, &photo_formats_);
  timings_.read_ns += NanosBetween(start, StageClock::now());
  if (!image_bytes.ok()) return image_bytes.error();
  bytes_read_ += image_bytes.value().size();
  auto image_needs = decoder_.DecodeImageHeader(image_bytes.value(), image_name, target);
  timings_.image_format = decoder_.image_format();
  if (!image_needs.ok()) return image_needs.error();

  // The mask is decoded before the image because it is ~20x cheaper: a
  // size mismatch then costs no JPEG decode.
  start = StageClock::now();
  reading_ = &mask_name;
  auto mask_bytes = source.Read(id, source::Member::kMask, &mask_bytes_, &mask_formats_);
  timings_.read_ns += NanosBetween(start, StageClock::now());
  if (!mask_bytes.ok()) return mask_bytes.error();
  bytes_read_ += mask_bytes.value().size();
  start = StageClock::now();
  Status mask_status = decoder_.DecodeMask(mask_bytes.value(), mask_name,
                                           decoder_.budget_bytes() - image_needs.value());
  timings_.mask_decode_ns = NanosBetween(start, StageClock::now());
  timings_.mask_format = decoder_.mask_format();
  if (!mask_status.ok()) return mask_status;
  if (Status sizes = decoder_.CheckSizesAgree(image_name, mask_name); !sizes.ok()) return sizes;

  reading_ = &image_name;
  Status image_status = decoder_.DecodeImage(image_bytes.value(), image_name, window);
  timings_.image_windowed = decoder_.image().windowed;
  return image_status;
}

size_t PairReader::read_buffer_bytes() const {
  return image_bytes_.capacity_bytes() + mask_bytes_.capacity_bytes() + decoder_.compressed_bytes();
}

}  // namespace segfeed::io
