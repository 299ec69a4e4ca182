#include "decode/pair_decoder.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "decode/decode_budget.h"
#include "source/scratch_growth.h"

namespace segfeed::decode {

PairDecoder::PairDecoder(const DecodeOptions& options)
    : jpeg_(options), jpeg_window_(options), gif_(options), png_(options), mask_rule_(options) {}

// Buffers grown past the plan by the previous pair go back to the planned
// size, so an outlier leaves nothing grown and the budget check of the next
// pair sees the planned capacities: whether a pair fits never depends on
// which pairs this thread read before.
bool PairDecoder::ShrinkToPlan() {
  if (image_.pixels.capacity() > planned_image_bytes_) {
    std::vector<uint8_t>().swap(image_.pixels);
    image_.pixels.reserve(planned_image_bytes_);
  }
  if (mask_.pixels.capacity() > planned_mask_bytes_) {
    std::vector<uint8_t>().swap(mask_.pixels);
    mask_.pixels.reserve(planned_mask_bytes_);
  }
  if (mask_samples_.bytes.capacity() > planned_mask_sample_bytes_) {
    std::vector<uint8_t>().swap(mask_samples_.bytes);
    mask_samples_.bytes.reserve(planned_mask_sample_bytes_);
  }
  gif_.ShrinkScratch(planned_mask_bytes_);
  png_.ShrinkScratch(planned_mask_bytes_, planned_png_rows_bytes_);
  header_read_ = false;
  return planned_mask_bytes_ != SIZE_MAX;
}

Status PairDecoder::CheckSizesAgree(const std::string& image_name,
                                    const std::string& mask_name) const {
  if (mask_.width == image_header_.width && mask_.height == image_header_.height) return {};
  return Error{ErrorKind::kSizeMismatch, image_name,
               "image is " + std::to_string(image_header_.width) + "x" +
                   std::to_string(image_header_.height) + " but its mask " + mask_name + " is " +
                   std::to_string(mask_.width) + "x" + std::to_string(mask_.height)};
}

Status PairDecoder::DecodeImage(std::span<const uint8_t> bytes, const std::string& path,
                                const DecodeWindow& window) {
  image_.windowed = false;
  // The budget was checked on the header; given again, it also bounds the
  // whole-buffer path's transient rows (the PNG is left to libspng's row
  // path when they do not fit).
  if (image_format_ == SniffedFormat::kPng)
    return png_.DecodeImage(bytes, path, &image_, budget_bytes_);
  if (window && !jpeg_.DecodesToPlanes(image_header_)) {
    const std::optional<ImageWindow> part =
        window(image_header_.width, image_header_.height, image_scale_);
    if (part && jpeg_window_.Chooses(image_header_, image_scale_, *part)) {
      if (Status enough = JpegDecoder::CheckDataCanHoldBlocks(bytes, image_header_, path);
          !enough.ok())
        return enough;
      return jpeg_window_.Decode(bytes, image_scale_, *part, path, &image_);
    }
  }
  return jpeg_.Decode(bytes, image_header_, image_scale_, path, &image_);
}

Status PairDecoder::DecodeMask(std::span<const uint8_t> bytes, const std::string& path,
                               int64_t budget_bytes) {
  const SniffedFormat format = SniffFormat(bytes);
  // What Read()'s file reader says of a mask it refuses on its first bytes
  // (a JPEG photo used as a mask), for ReadMask(), which reads it whole.
  if (format != SniffedFormat::kPng && format != SniffedFormat::kGif) {
    mask_format_ = SniffedFormat::kUnknown;
    return Error{ErrorKind::kUnsupportedFormat, path,
                 "not a GIF or PNG file (" + DescribeContent(bytes) + ")"};
  }
  mask_format_ = format;
  if (format == SniffedFormat::kGif) return gif_.Decode(bytes, path, &mask_, budget_bytes);
  auto header = png_.ReadHeader(bytes, path, ErrorKind::kCorruptMask);
  if (!header.ok()) return header.error();
  if (header.value().color_type == 2 || header.value().color_type == 6) {
    if (const std::string_view refusal = mask_rule_.RgbRefusal(); !refusal.empty())
      return Error{ErrorKind::kUnsupportedFormat, path, std::string(refusal)};
  }
  // The samples and the mask values are held together.
  const int64_t pixels = int64_t{header.value().width} * header.value().height;
  const int64_t needs = std::max(static_cast<int64_t>(mask_.pixels.capacity()), pixels) +
                        std::max(static_cast<int64_t>(mask_samples_.bytes.capacity()),
                                 PngDecoder::MaskSampleBytes(header.value()));
  if (needs > budget_bytes)
    return PngDecoder::OverBudget(path, header.value(), needs, budget_bytes);
  // The decoder checks the rest of the budget against its samples and its
  // scanlines, which are as wide as the file says (8 bytes a pixel for
  // 16-bit RGBA).
  const int64_t mask_values = std::max(static_cast<int64_t>(mask_.pixels.capacity()), pixels);
  if (Status status = png_.DecodeMask(bytes, path, &mask_samples_, budget_bytes - mask_values);
      !status.ok())
    return status;
  return MapPngSamples(path);
}

namespace {

// Adds one pixel of the bad value `value` to `counts`, for the error. A
// noise image used as a mask can hold millions of distinct values: only
// the first kMaxCountedBadValues are kept, so this stays a short linear
// search and a small vector.
void CountBadValue(uint32_t value, std::vector<std::pair<uint32_t, uint64_t>>* counts) {
  for (auto& [counted, pixels] : *counts) {
    if (counted == value) {
      ++pixels;
      return;
    }
  }
  if (counts->size() < kMaxCountedBadValues) counts->emplace_back(value, 1);
}

}  // namespace

Status PairDecoder::MapPngSamples(const std::string& path) {
  const MaskSamples& samples = mask_samples_;
  const size_t count = static_cast<size_t>(samples.width) * samples.height;
  mask_.width = samples.width;
  mask_.height = samples.height;
  source::ResizeScratch(&mask_.pixels, count);
  mask_.bit_depth = samples.bit_depth;
  mask_.palette_digest = PaletteDigest(samples.palette);
  mask_.palette_disagrees = false;
  mask_.distinct_values = 0;
  mask_.transparent_used = false;
  uint8_t* out = mask_.pixels.data();
  std::vector<std::pair<uint32_t, uint64_t>> bad;
  switch (samples.format) {
    case MaskSampleFormat::kIndex8: {
      const IndexValues values =
          mask_rule_.ForIndices(samples.palette, samples.has_palette ? 8 : samples.bit_depth, -1);
      std::array<bool, 256> used{};
      MapIndices(values, samples.bytes.data(), out, count, &used);
      bool any_bad = false;
      for (int i = 0; i < 256; ++i)
        any_bad |= used[static_cast<size_t>(i)] && values.bad[static_cast<size_t>(i)];
      if (any_bad) {
        std::array<uint64_t, 256> counts{};
        for (size_t i = 0; i < count; ++i) ++counts[samples.bytes[i]];
        const bool by_colour = !mask_rule_.options().mask_colors.empty();
        for (uint32_t i = 0; i < 256; ++i) {
          if (!values.bad[i] || counts[i] == 0) continue;
          const uint32_t key = by_colour && i < samples.palette.size()
                                   ? (uint32_t{samples.palette[i][0]} << 16) |
                                         (uint32_t{samples.palette[i][1]} << 8) |
                                         samples.palette[i][2]
                                   : i;
          bad.emplace_back(key, counts[i]);
        }
        return mask_rule_.OutOfRange(path, bad, by_colour);
      }
      mask_.distinct_values = DistinctValues(used, samples.palette);
      mask_.palette_disagrees = !mask_rule_.PaletteAgrees(samples.palette, used, -1);
      return {};
    }
    case MaskSampleFormat::kGrey16: {
      std::vector<std::pair<uint32_t, uint64_t>> counts;
      const auto* values = reinterpret_cast<const uint16_t*>(samples.bytes.data());
      DistinctValueCounter distinct;
      for (size_t i = 0; i < count; ++i) {
        distinct.Add(values[i]);
        bool is_bad = false;
        out[i] = mask_rule_.ForGrey16(values[i], is_bad);
        if (!is_bad) continue;
        CountBadValue(values[i], &counts);
      }
      if (!counts.empty()) return mask_rule_.OutOfRange(path, counts, false);
      mask_.distinct_values = distinct.count();
      return {};
    }
    case MaskSampleFormat::kRgb8: {
      std::vector<std::pair<uint32_t, uint64_t>> counts;
      const uint8_t* rgb = samples.bytes.data();
      // Colour masks paint large areas: the last colour's value is reused
      // while the colour repeats.
      uint32_t last_key = UINT32_MAX;
      uint8_t last_value = 0;
      bool last_bad = false;
      DistinctValueCounter distinct;
      for (size_t i = 0; i < count; ++i, rgb += 3) {
        const uint32_t key = (uint32_t{rgb[0]} << 16) | (uint32_t{rgb[1]} << 8) | rgb[2];
        if (key != last_key) {
          distinct.Add(key);
          last_bad = false;
          last_value = mask_rule_.ForColour({rgb[0], rgb[1], rgb[2]}, last_bad);
          last_key = key;
        }
        out[i] = last_value;
        if (!last_bad) continue;
        CountBadValue(key, &counts);
      }
      if (!counts.empty()) return mask_rule_.OutOfRange(path, counts, true);
      mask_.distinct_values = distinct.count();
      return {};
    }
  }
  return {};
}

Result<int64_t> PairDecoder::DecodeImageHeader(std::span<const uint8_t> bytes,
                                               const std::string& path,
                                               const DecodeTarget& target) {
  int64_t png_row_bytes = 0;  // libspng's scanlines and ours, for a PNG photo
  // Set first: the stage timers count a refused header as the decoder's.
  image_format_ =
      SniffFormat(bytes) == SniffedFormat::kPng ? SniffedFormat::kPng : SniffedFormat::kJpeg;
  if (image_format_ == SniffedFormat::kPng) {
    // PNG has no DCT scaling: the photo is decoded at full size.
    auto header = png_.ReadHeader(bytes, path, ErrorKind::kCorruptImage);
    if (!header.ok()) return header.error();
    png_row_bytes = PngDecoder::ImageRowBytes(header.value());
    image_header_ = JpegHeader{};
    image_header_.width = header.value().width;
    image_header_.height = header.value().height;
    header_read_ = true;
    image_scale_ = DctScale{};
  } else {
    auto header = jpeg_.ReadHeader(bytes, path);
    if (!header.ok()) return header.error();
    image_header_ = header.value();
    header_read_ = true;
    const auto [target_width, target_height] = target(image_header_.width, image_header_.height);
    image_scale_ =
        jpeg_.ChooseScale(image_header_.width, image_header_.height, target_width, target_height);
  }
  // Checked on the header, before the mask or the pixels take any memory.
  const int64_t pixel_bytes = image_format_ == SniffedFormat::kJpeg
                                  ? jpeg_.DecodedBytes(image_header_, image_scale_)
                                  : int64_t{image_header_.width} * image_header_.height * 3;
  const int64_t image_needs =
      std::max(static_cast<int64_t>(image_.pixels.capacity()), pixel_bytes) +
      image_header_.coefficient_bytes + png_row_bytes;
  if (image_needs > budget_bytes_) {
    std::string dimensions =
        std::to_string(image_header_.width) + "x" + std::to_string(image_header_.height) +
        " at scale " + std::to_string(image_scale_.num) + "/" + std::to_string(image_scale_.denom);
    if (image_header_.coefficient_bytes > 0) {
      dimensions += ", with " + std::to_string(image_header_.coefficient_bytes) +
                    " bytes of coefficients for its " + std::to_string(image_header_.scans) +
                    " scans";
    }
    // The photo comes first, so the whole budget is left; say where it comes from.
    Error error = OverDecodeBudget(path, image_format_ == SniffedFormat::kJpeg ? "JPEG" : "PNG",
                                   dimensions, image_needs, budget_bytes_);
    error.detail += " (per thread: scratch_headroom x what the planned source needs, plus " +
                    std::to_string(kDecoderFixedBytes) + " for the decoder's fixed needs)";
    return error;
  }
  return image_needs;
}

void PairDecoder::Reserve(int source_width, int source_height, int output_width, int output_height,
                          int64_t budget_bytes, const SourceFormats& formats) {
  const DctScale scale = formats.png_images ? DctScale{}
                                            : jpeg_.ChooseScale(source_width, source_height,
                                                                output_width, output_height);
  planned_image_bytes_ =
      static_cast<size_t>(scale.Apply(source_width)) * scale.Apply(source_height) * 3;
  planned_mask_bytes_ = static_cast<size_t>(source_width) * source_height;
  planned_mask_sample_bytes_ =
      planned_mask_bytes_ * static_cast<size_t>(formats.png_mask_bytes_per_pixel);
  image_.pixels.reserve(planned_image_bytes_);
  mask_.pixels.reserve(planned_mask_bytes_);
  mask_samples_.bytes.reserve(planned_mask_sample_bytes_);
  planned_png_rows_bytes_ = PlannedPngRowsBytes(source_width, source_height, formats);
  png_.ReserveWholeBuffer(planned_png_rows_bytes_);
  budget_bytes_ = budget_bytes;
}

size_t PairDecoder::PlannedPngRowsBytes(int source_width, int source_height,
                                        const SourceFormats& formats) {
  // One buffer serves the photo and the mask, one after the other: the
  // wider of their stored rows (an 8-bit RGB photo: 3 bytes a pixel; a
  // mask: its samples' bytes, as wide as it stores them when 8-bit).
  const int stored_pixel_bytes =
      std::max(formats.png_images ? 3 : 0, formats.png_mask_bytes_per_pixel);
  if (stored_pixel_bytes == 0) return 0;
  return static_cast<size_t>(
      PngDecoder::WholeBufferRowsBytes(source_width, source_height, stored_pixel_bytes));
}

size_t PairDecoder::PlannedScratchBytes(DctScale scale, int source_width, int source_height,
                                        const SourceFormats& formats) {
  // What Reserve() reserves, in 64-bit arithmetic: nothing is allocated to
  // plan it.
  const size_t mask_pixels = static_cast<size_t>(source_width) * static_cast<size_t>(source_height);
  return static_cast<size_t>(scale.Apply(source_width)) *
             static_cast<size_t>(scale.Apply(source_height)) * 3 +
         mask_pixels * (1 + static_cast<size_t>(formats.png_mask_bytes_per_pixel)) +
         PlannedPngRowsBytes(source_width, source_height, formats);
}

size_t PairDecoder::DecodeBudgetBytes(DctScale scale, int source_width, int source_height,
                                      const SourceFormats& formats, double scratch_headroom) {
  const size_t planned = PlannedScratchBytes(scale, source_width, source_height, formats) +
                         static_cast<size_t>(std::max<int64_t>(formats.jpeg_coefficient_bytes, 0));
  return static_cast<size_t>(static_cast<double>(planned) * scratch_headroom) +
         static_cast<size_t>(kDecoderFixedBytes);
}

size_t PairDecoder::scratch_bytes() const {
  return image_.pixels.capacity() + mask_.pixels.capacity() + mask_samples_.bytes.capacity() +
         gif_.pixel_scratch_bytes() + png_.scratch_bytes();
}

}  // namespace segfeed::decode
