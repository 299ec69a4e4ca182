#include "io/pair_reader.h"

#include <chrono>
#include <new>
#include <string>

namespace segfeed::internal {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

}  // namespace

PairReader::PairReader(const DecodeOptions& options)
    : image_file_(options.max_file_bytes),
      mask_file_(options.max_file_bytes),
      jpeg_(options), gif_(options), threshold_(options.mask_threshold) {}

Status PairReader::Read(const SamplePair& pair, int target_width, int target_height) {
  timings_ = {};
  bytes_read_ = 0;
  const Clock::time_point start = Clock::now();
  Status status;
  // Memory is a resource of the file being read: running out of it is that
  // file's error, and the next file starts afresh.
  try {
    status = ReadAndDecode(pair, target_width, target_height);
  } catch (const std::bad_alloc&) {
    status = Error{ErrorKind::kTooLarge, (reading_mask_ ? pair.mask_path : pair.image_path).string(),
                   "not enough memory to read and decode this file (std::bad_alloc)"};
  }
  // Reading and the mask are timed inside ReadAndDecode; the image (header,
  // size check, decode) is the rest.
  timings_.image_decode_ns =
      NanosBetween(start, Clock::now()) - timings_.read_ns - timings_.mask_decode_ns;
  return status;
}

Status PairReader::ReadAndDecode(const SamplePair& pair, int target_width, int target_height) {
  // native() is a reference on POSIX: no string copy per sample.
  const std::string& image_path = pair.image_path.native();
  const std::string& mask_path = pair.mask_path.native();

  mask_warning_.reset();
  reading_mask_ = false;
  Clock::time_point start = Clock::now();
  auto image_bytes = image_file_.Read(pair.image_path);
  timings_.read_ns += NanosBetween(start, Clock::now());
  if (!image_bytes.ok()) return image_bytes.error();
  bytes_read_ += image_bytes.value().size();
  auto header = jpeg_.ReadHeader(image_bytes.value(), image_path);
  if (!header.ok()) return header.error();
  image_header_ = header.value();

  // The mask is decoded before the image because it is ~20x cheaper: a
  // size mismatch then costs no JPEG decode.
  start = Clock::now();
  reading_mask_ = true;
  auto mask_bytes = mask_file_.Read(pair.mask_path);
  timings_.read_ns += NanosBetween(start, Clock::now());
  if (!mask_bytes.ok()) return mask_bytes.error();
  bytes_read_ += mask_bytes.value().size();
  start = Clock::now();
  Status mask_status = gif_.Decode(mask_bytes.value(), mask_path, &mask_);
  timings_.mask_decode_ns = NanosBetween(start, Clock::now());
  if (!mask_status.ok()) return mask_status;
  if (mask_.width != image_header_.width || mask_.height != image_header_.height) {
    return Error{ErrorKind::kSizeMismatch, image_path,
                 "image is " + std::to_string(image_header_.width) + "x" +
                     std::to_string(image_header_.height) + " but its mask " + mask_path + " is " +
                     std::to_string(mask_.width) + "x" + std::to_string(mask_.height)};
  }

  if (mask_.used_more_than_two_colours) {
    mask_warning_ = Error{ErrorKind::kNonBinaryMask, mask_path,
                          "mask uses more than two palette colours; thresholded at luminance " +
                              std::to_string(threshold_)};
  }

  reading_mask_ = false;
  image_scale_ = jpeg_.ChooseScale(image_header_.width, image_header_.height, target_width,
                                   target_height);
  return jpeg_.Decode(image_bytes.value(), image_header_, image_scale_, image_path, &image_);
}

void PairReader::Reserve(int source_width, int source_height, int target_width, int target_height) {
  const DctScale scale = jpeg_.ChooseScale(source_width, source_height, target_width, target_height);
  image_.pixels.reserve(static_cast<size_t>(scale.Apply(source_width)) * scale.Apply(source_height) * 3);
  mask_.pixels.reserve(static_cast<size_t>(source_width) * source_height);
}

size_t PairReader::PlannedScratchBytes(const DecodeOptions& options, int source_width, int source_height,
                                       int target_width, int target_height) {
  PairReader reader(options);
  reader.Reserve(source_width, source_height, target_width, target_height);
  return reader.scratch_bytes();
}

size_t PairReader::scratch_bytes() const {
  return image_.pixels.capacity() + mask_.pixels.capacity() + gif_.pixel_scratch_bytes();
}

size_t PairReader::read_buffer_bytes() const {
  return image_file_.capacity_bytes() + mask_file_.capacity_bytes() + gif_.compressed_bytes();
}

}  // namespace segfeed::internal
