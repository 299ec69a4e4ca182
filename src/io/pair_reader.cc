#include "io/pair_reader.h"

#include <algorithm>
#include <new>
#include <string>

#include "stage_clock.h"

namespace segfeed::internal {

PairReader::PairReader(const DecodeOptions& options)
    : image_file_(options.max_file_bytes),
      mask_file_(options.max_file_bytes),
      jpeg_(options),
      gif_(options) {}

Status PairReader::Read(const SamplePair& pair, int output_width, int output_height) {
  return Guarded([&] { return ReadAndDecode(pair, output_width, output_height); });
}

Status PairReader::ReadImage(const std::filesystem::path& path, int output_width,
                             int output_height) {
  return Guarded([&]() -> Status {
    reading_ = &path;
    StageClock::time_point start = StageClock::now();
    auto bytes = image_file_.Read(path);
    timings_.read_ns += NanosBetween(start, StageClock::now());
    if (!bytes.ok()) return bytes.error();
    file_bytes_ = bytes.value();
    bytes_read_ += file_bytes_.size();
    auto needs = ReadImageHeader(file_bytes_, path.native(), output_width, output_height);
    if (!needs.ok()) return needs.error();
    return jpeg_.Decode(file_bytes_, image_header_, image_scale_, path.native(), &image_);
  });
}

Status PairReader::ReadMask(const std::filesystem::path& path) {
  return Guarded([&]() -> Status {
    reading_ = &path;
    StageClock::time_point start = StageClock::now();
    auto bytes = mask_file_.Read(path);
    timings_.read_ns += NanosBetween(start, StageClock::now());
    if (!bytes.ok()) return bytes.error();
    file_bytes_ = bytes.value();
    bytes_read_ += file_bytes_.size();
    start = StageClock::now();
    Status status = gif_.Decode(file_bytes_, path.native(), &mask_, budget_bytes_);
    timings_.mask_decode_ns = NanosBetween(start, StageClock::now());
    return status;
  });
}

template <typename Body>
Status PairReader::Guarded(Body body) {
  timings_ = {};
  bytes_read_ = 0;
  reading_ = nullptr;
  image_header_read_ = false;
  file_bytes_ = {};
  ShrinkToPlan();  // the previous file's pixels are no longer needed
  const StageClock::time_point start = StageClock::now();
  Status status;
  // Memory is a resource of the file being read: running out of it is that
  // file's error, and the next file starts afresh.
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = Error{ErrorKind::kTooLarge, reading_ ? reading_->string() : std::string(),
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

// Buffers grown past the plan by the previous pair go back to the planned
// size, so an outlier leaves nothing grown and the budget check of the next
// pair sees the planned capacities: whether a pair fits never depends on
// which pairs this thread read before.
void PairReader::ShrinkToPlan() {
  if (image_.pixels.capacity() > planned_image_bytes_) {
    std::vector<uint8_t>().swap(image_.pixels);
    image_.pixels.reserve(planned_image_bytes_);
  }
  if (mask_.pixels.capacity() > planned_mask_bytes_) {
    std::vector<uint8_t>().swap(mask_.pixels);
    mask_.pixels.reserve(planned_mask_bytes_);
  }
  gif_.ShrinkScratch(planned_mask_bytes_);
  if (planned_mask_bytes_ == SIZE_MAX) return;  // not planned: keep what was read
  image_file_.Shrink(kKeptReadBufferBytes);
  mask_file_.Shrink(kKeptReadBufferBytes);
}

Status PairReader::ReadAndDecode(const SamplePair& pair, int output_width, int output_height) {
  // native() is a reference on POSIX: no string copy per sample.
  const std::string& image_path = pair.image_path.native();
  const std::string& mask_path = pair.mask_path.native();

  reading_ = &pair.image_path;
  StageClock::time_point start = StageClock::now();
  auto image_bytes = image_file_.Read(pair.image_path, SniffedFormat::kJpeg);
  timings_.read_ns += NanosBetween(start, StageClock::now());
  if (!image_bytes.ok()) return image_bytes.error();
  bytes_read_ += image_bytes.value().size();
  auto image_needs = ReadImageHeader(image_bytes.value(), image_path, output_width, output_height);
  if (!image_needs.ok()) return image_needs.error();

  // The mask is decoded before the image because it is ~20x cheaper: a
  // size mismatch then costs no JPEG decode.
  start = StageClock::now();
  reading_ = &pair.mask_path;
  auto mask_bytes = mask_file_.Read(pair.mask_path, SniffedFormat::kGif);
  timings_.read_ns += NanosBetween(start, StageClock::now());
  if (!mask_bytes.ok()) return mask_bytes.error();
  bytes_read_ += mask_bytes.value().size();
  start = StageClock::now();
  Status mask_status =
      gif_.Decode(mask_bytes.value(), mask_path, &mask_, budget_bytes_ - image_needs.value());
  timings_.mask_decode_ns = NanosBetween(start, StageClock::now());
  if (!mask_status.ok()) return mask_status;
  if (mask_.width != image_header_.width || mask_.height != image_header_.height) {
    return Error{ErrorKind::kSizeMismatch, image_path,
                 "image is " + std::to_string(image_header_.width) + "x" +
                     std::to_string(image_header_.height) + " but its mask " + mask_path + " is " +
                     std::to_string(mask_.width) + "x" + std::to_string(mask_.height)};
  }

  reading_ = &pair.image_path;
  return jpeg_.Decode(image_bytes.value(), image_header_, image_scale_, image_path, &image_);
}

Result<int64_t> PairReader::ReadImageHeader(std::span<const uint8_t> bytes, const std::string& path,
                                            int output_width, int output_height) {
  auto header = jpeg_.ReadHeader(bytes, path);
  if (!header.ok()) return header.error();
  image_header_ = header.value();
  image_header_read_ = true;
  image_scale_ =
      jpeg_.ChooseScale(image_header_.width, image_header_.height, output_width, output_height);
  // Checked on the header, before the mask or the pixels take any memory.
  const int64_t pixel_bytes = int64_t{image_scale_.Apply(image_header_.width)} *
                              image_scale_.Apply(image_header_.height) * 3;
  const int64_t image_needs =
      std::max(static_cast<int64_t>(image_.pixels.capacity()), pixel_bytes) +
      image_header_.coefficient_bytes;
  if (image_needs > budget_bytes_) {
    return Error{ErrorKind::kTooLarge, path,
                 "decoding needs " + std::to_string(image_needs) + " bytes (" +
                     std::to_string(image_header_.width) + "x" +
                     std::to_string(image_header_.height) + " at scale " +
                     std::to_string(image_scale_.num) + "/" + std::to_string(image_scale_.denom) +
                     (image_header_.coefficient_bytes > 0
                          ? ", with " + std::to_string(image_header_.coefficient_bytes) +
                                " bytes of coefficients for its " +
                                std::to_string(image_header_.scans) + " scans"
                          : std::string()) +
                     "), more than the decode budget of " + std::to_string(budget_bytes_) +
                     " bytes per thread (scratch_headroom x what the planned source needs)"};
  }
  return image_needs;
}

void PairReader::Reserve(int source_width, int source_height, int output_width, int output_height,
                         int64_t budget_bytes) {
  const DctScale scale =
      jpeg_.ChooseScale(source_width, source_height, output_width, output_height);
  planned_image_bytes_ =
      static_cast<size_t>(scale.Apply(source_width)) * scale.Apply(source_height) * 3;
  planned_mask_bytes_ = static_cast<size_t>(source_width) * source_height;
  image_.pixels.reserve(planned_image_bytes_);
  mask_.pixels.reserve(planned_mask_bytes_);
  budget_bytes_ = budget_bytes;
}

size_t PairReader::PlannedScratchBytes(DctScale scale, int source_width, int source_height) {
  // What Reserve() reserves, in 64-bit arithmetic: nothing is allocated to
  // plan it.
  return static_cast<size_t>(scale.Apply(source_width)) *
             static_cast<size_t>(scale.Apply(source_height)) * 3 +
         static_cast<size_t>(source_width) * static_cast<size_t>(source_height);
}

size_t PairReader::scratch_bytes() const {
  return image_.pixels.capacity() + mask_.pixels.capacity() + gif_.pixel_scratch_bytes();
}

size_t PairReader::read_buffer_bytes() const {
  return image_file_.capacity_bytes() + mask_file_.capacity_bytes() + gif_.compressed_bytes();
}

}  // namespace segfeed::internal
