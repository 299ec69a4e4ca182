#include "io/planned_source.h"

#include <algorithm>
#include <new>

#include "decode/format_sniffer.h"
#include "decode/jpeg_decoder.h"
#include "decode/png_decoder.h"

namespace segfeed::io {

namespace {

// A photo's size from its JPEG or PNG header.
Result<PlannedSource> ReadPhotoHeaderOrThrow(source::SampleSource& samples, source::SampleId id,
                                             const DecodeOptions& decode) {
  source::ReadBuffer buffer(decode.max_file_bytes);
  auto bytes = samples.Read(id, source::Member::kImage, &buffer);
  if (!bytes.ok()) return bytes.error();
  const std::string path = samples.MemberName(id, source::Member::kImage);
  PlannedSource source;
  source.example_path = path;
  if (decode::SniffFormat(bytes.value()) == decode::SniffedFormat::kPng) {
    auto header =
        decode::PngDecoder(decode).ReadHeader(bytes.value(), path, ErrorKind::kCorruptImage);
    if (!header.ok()) return header.error();
    // A header whose data cannot hold its pixels must not set the budget
    // of every thread: a majority of them would otherwise be the median.
    if (Status enough = decode::PngDecoder::CheckImageDataCanHoldPixels(
            bytes.value(), header.value(), path, ErrorKind::kCorruptImage);
        !enough.ok())
      return enough.error();
    source.width = header.value().width;
    source.height = header.value().height;
    source.formats.png_images = true;
    return source;
  }
  auto header = decode::JpegDecoder(decode).ReadHeader(bytes.value(), path);
  if (!header.ok()) return header.error();
  if (Status enough =
          decode::JpegDecoder::CheckDataCanHoldBlocks(bytes.value(), header.value(), path);
      !enough.ok())
    return enough.error();
  source.width = header.value().width;
  source.height = header.value().height;
  source.formats.jpeg_coefficient_bytes = header.value().coefficient_bytes;
  return source;
}

// Bytes per pixel of a PNG mask's samples; 0 for a GIF or a mask that does
// not parse (the decoder reports it when it is read).
int MaskSampleBytesOrThrow(source::SampleSource& samples, source::SampleId id,
                           const DecodeOptions& decode) {
  source::ReadBuffer buffer(decode.max_file_bytes);
  auto bytes = samples.Read(id, source::Member::kMask, &buffer);
  if (!bytes.ok() || decode::SniffFormat(bytes.value()) != decode::SniffedFormat::kPng) return 0;
  const std::string path = samples.MemberName(id, source::Member::kMask);
  auto header = decode::PngDecoder(decode).ReadHeader(bytes.value(), path, ErrorKind::kCorruptMask);
  if (!header.ok() || header.value().width < 1 || header.value().height < 1) return 0;
  return static_cast<int>(decode::PngDecoder::MaskSampleBytes(header.value()) /
                          (int64_t{header.value().width} * header.value().height));
}

// Planning is advice: running out of memory on a sampled file (its whole
// bytes are read) leaves that file out of the plan, as a header that does
// not parse does, instead of failing the loader it plans for. The file is
// read again, and reported, when its turn comes.
Result<PlannedSource> ReadPhotoHeader(source::SampleSource& samples, source::SampleId id,
                                      const DecodeOptions& decode) {
  try {
    return ReadPhotoHeaderOrThrow(samples, id, decode);
  } catch (const std::bad_alloc&) {
    return Error{ErrorKind::kTooLarge, samples.MemberName(id, source::Member::kImage),
                 "not enough memory to read this file's header (std::bad_alloc)"};
  }
}
int MaskSampleBytes(source::SampleSource& samples, source::SampleId id,
                    const DecodeOptions& decode) {
  try {
    return MaskSampleBytesOrThrow(samples, id, decode);
  } catch (const std::bad_alloc&) {
    return 0;
  }
}

}  // namespace

Result<PlannedSource> PlanSourceFromHeaders(source::SampleSource& samples,
                                            const DecodeOptions& decode) {
  const size_t pairs = samples.sample_count();
  if (pairs == 0) return Error{ErrorKind::kIoError, "", "no image/mask pairs to plan for"};
  std::vector<PlannedSource> sizes;
  Error last_error;
  int mask_sample_bytes = 0;
  bool png_images = false;
  const size_t sampled = std::min<size_t>(pairs, kSampledPairs);
  for (size_t i = 0; i < sampled; ++i) {
    // Evenly spread, the first pair included.
    const auto id = static_cast<source::SampleId>(i * pairs / sampled);
    auto header = ReadPhotoHeader(samples, id, decode);
    if (header.ok()) {
      sizes.push_back(header.value());
    } else {
      last_error = header.error();
    }
    // The plan holds the largest samples any sampled mask needs.
    mask_sample_bytes = std::max(mask_sample_bytes, MaskSampleBytes(samples, id, decode));
    png_images = png_images || (header.ok() && header.value().formats.png_images);
  }
  if (sizes.empty()) return last_error;
  const auto pixels = [](const PlannedSource& s) { return int64_t{s.width} * s.height; };
  std::nth_element(
      sizes.begin(), sizes.begin() + static_cast<long>(sizes.size() / 2), sizes.end(),
      [&](const PlannedSource& a, const PlannedSource& b) { return pixels(a) < pixels(b); });
  PlannedSource median = sizes[sizes.size() / 2];
  median.headers_read = static_cast<int>(sizes.size());
  // The median photo's own coefficients: a progressive outlier among the
  // sampled ones (a hostile header claiming max_pixels, say) must not set
  // the budget of every thread.
  median.formats = {png_images, mask_sample_bytes, median.formats.jpeg_coefficient_bytes};
  return median;
}

}  // namespace segfeed::io
