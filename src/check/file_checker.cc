#include "check/file_checker.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "decode/gif_decoder.h"
#include "decode/mask_values.h"
#include "decode/pair_decoder.h"
#include "digest.h"

namespace segfeed::check {
namespace {

uint64_t DigestOf(std::span<const uint8_t> bytes) {
  Digest digest;
  digest.Update(bytes.data(), bytes.size());
  return std::stoull(digest.Hex(), nullptr, 16);
}

// Integer sums, so the statistics are exact and the same in any order.
// `image` is the photo decoded at 1/`block` of its full_width x full_height
// (block 1 or 8): with block 8 each pixel is an 8x8 block's mean, weighted
// by the pixels the block covers (fewer at the right and bottom edges), so
// the weights add up to the full-resolution pixel count. The squares are
// summed only at full resolution, where they give the exact std.
void AddChannelSums(const decode::DecodedImage& image, int block, int full_width, int full_height,
                    FileOutcome* out) {
  const uint8_t* p = image.pixels.data();
  for (int y = 0; y < image.height; ++y) {
    const uint32_t row_weight = static_cast<uint32_t>(std::min(block, full_height - block * y));
    // 32-bit accumulators within a row vectorise well and cannot overflow:
    // a row has at most 65535 pixels (the JPEG limit) and 65535 x 255^2 < 2^32.
    uint32_t sum[3] = {0, 0, 0};
    uint32_t squares[3] = {0, 0, 0};
    if (block == 1) {
      for (int x = 0; x < image.width; ++x, p += 3) {
        for (int c = 0; c < 3; ++c) {
          const uint32_t v = p[c];
          sum[c] += v;
          squares[c] += v * v;
        }
      }
    } else {
      // Every block but the last of a row is `block` pixels wide.
      for (int x = 0; x < image.width; ++x, p += 3) {
        const auto weight = static_cast<uint32_t>(std::min(block, full_width - block * x));
        for (int c = 0; c < 3; ++c) sum[c] += weight * p[c];
      }
    }
    for (int c = 0; c < 3; ++c) {
      out->channel_sum[c] += uint64_t{sum[c]} * row_weight;
      out->channel_sum_squares[c] += squares[c];
    }
  }
}

// The ones among `n` bytes that are each 0 or 1 (a binary mask). std::count
// compares byte by byte and widens every match to 64 bits, a tenth of the
// whole check at 1/8 scale; adding the bytes as 64-bit words instead keeps
// eight counts side by side, one per byte lane, exact for up to 255 words.
int64_t CountOnes(const uint8_t* bytes, size_t n) {
  int64_t total = 0;
  size_t i = 0;
  while (n - i >= 8) {
    const size_t words = std::min<size_t>((n - i) / 8, 255);
    uint64_t lanes = 0;
    for (size_t k = 0; k < words; ++k, i += 8) {
      uint64_t word;
      std::memcpy(&word, bytes + i, 8);
      lanes += word;
    }
    // The eight byte lanes (each <= 255) into four 16-bit ones, then their sum.
    lanes = (lanes & 0x00FF00FF00FF00FFull) + ((lanes >> 8) & 0x00FF00FF00FF00FFull);
    total += static_cast<int64_t>((lanes * 0x0001000100010001ull) >> 48);
  }
  for (; i < n; ++i) total += bytes[i];
  return total;
}

// The statistics are RGB channels': the checker decodes to RGB whatever
// the loader's decode_colour (the same entropy decoder meets the same
// defects either way).
DecodeOptions RgbDecode(DecodeOptions options) {
  options.decode_colour = DecodeColour::kRgb;
  return options;
}

// The size a photo is decoded for: a 1x1 target gets the smallest DCT
// scale, 1/8; none (0), full size.
int PhotoTarget(const CheckOptions& options) {
  return options.statistics == ChannelStatistics::kExact ? 0 : 1;
}

}  // namespace

FileChecker::FileChecker(const CheckOptions& options, const io::PlannedSource& plan,
                         int64_t budget_bytes, source::SampleSource* source)
    : source_(source),
      decode_(options.decode),
      labels_(options.decode.mask_mode == MaskMode::kLabels),
      photo_target_(PhotoTarget(options)),
      reader_(RgbDecode(options.decode)) {
  reader_.Reserve(plan.width, plan.height, photo_target_, photo_target_, budget_bytes,
                  plan.formats);
}

int64_t FileChecker::DecodeBudget(const CheckOptions& options, const io::PlannedSource& plan) {
  if (plan.width < 1 || plan.height < 1) return INT64_MAX;
  const int target = PhotoTarget(options);
  const decode::DctScale scale = plan.formats.png_images
                                     ? decode::DctScale{}
                                     : decode::JpegDecoder(options.decode)
                                           .ChooseScale(plan.width, plan.height, target, target);
  return static_cast<int64_t>(decode::PairDecoder::DecodeBudgetBytes(
      scale, plan.width, plan.height, plan.formats, options.decode.scratch_headroom));
}

FileOutcome FileChecker::Check(const FileJob& job) {
  FileOutcome out;
  const auto id = static_cast<source::SampleId>(job.pair);
  const bool paired = job.pair >= 0;
  const Status status =
      job.role == FileRole::kImage
          ? (paired ? reader_.ReadImage(*source_, id, photo_target_, photo_target_)
                    : reader_.ReadImage(job.path, photo_target_, photo_target_))
          : (paired ? reader_.ReadMask(*source_, id) : reader_.ReadMask(job.path));
  // The reader refuses FIFOs without blocking and files over
  // max_file_bytes without reading them: then it has no bytes.
  if (const std::span<const uint8_t> bytes = reader_.file_bytes(); !bytes.empty()) {
    out.size_bytes = bytes.size();
    out.digest = DigestOf(bytes);
  }
  if (!status.ok()) out.error = status.error();
  if (job.role == FileRole::kImage) {
    if (const decode::JpegHeader* header = reader_.image_header()) {
      out.header_read = true;
      out.jpeg = *header;
      out.width = header->width;
      out.height = header->height;
    }
    if (!status.ok()) return out;
    out.decoded = true;
    const decode::DctScale scale = reader_.image_scale();
    const decode::DecodedImage& image = reader_.image();
    // PNG photos and a JPEG too small to scale (1/8 of a 1x1 image is
    // still 1x1) come at full size; a 1/8 decode is 8 pixels a block.
    const bool full_size = image.width == out.width && image.height == out.height;
    AddChannelSums(image, full_size ? 1 : scale.denom / scale.num, out.width, out.height, &out);
  } else {
    if (!status.ok()) return out;
    const decode::MaskImage& mask = reader_.mask();
    out.header_read = true;
    out.decoded = true;
    out.width = mask.width;
    out.height = mask.height;
    out.bit_depth = mask.bit_depth;
    out.palette_digest = mask.palette_digest;
    const size_t pixels = static_cast<size_t>(mask.width) * mask.height;
    if (labels_) {
      out.foreground_pixels = class_sums_.AddLabelMap(mask.pixels.data(), pixels);
      return out;
    }
    out.foreground_pixels = CountOnes(mask.pixels.data(), pixels);
    if (mask.distinct_values > 2)
      out.warning = decode::NonBinaryMaskWarning(job.path.string(), decode_);
    // A file with two values whose pixels all read as one: the rule in
    // force does not tell its values apart (a dark foreground under the
    // luminance rule, a transparent foreground index).
    const bool all_foreground = static_cast<size_t>(out.foreground_pixels) == pixels;
    if (mask.distinct_values >= 2 && (out.foreground_pixels == 0 || all_foreground))
      out.uniform = decode::UniformMaskWarning(job.path.string(), decode_, mask, all_foreground);
    if (mask.palette_disagrees) {
      out.palette = Error{ErrorKind::kSuspiciousMask, job.path.string(),
                          "palette index 0 is not black, or a used foreground index is black: "
                          "the palette may be inverted (mask_foreground nonzero takes every "
                          "index but 0 as foreground, whatever its colour)"};
    }
  }
  return out;
}

}  // namespace segfeed::check
