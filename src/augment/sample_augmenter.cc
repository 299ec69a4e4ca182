#include "augment/sample_augmenter.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <vector>

#include "augment/color_jitter.h"
#include "augment/window_level_count.h"
#include "augment/ycbcr_colour.h"
#include "stage_clock.h"

namespace segfeed::augment {
namespace {

// Output-size planes, for warped YCbCr.
bool NeedsPlanes(DecodeColour decode_colour) { return decode_colour == DecodeColour::kYCbCr; }

// ChooseWindow()'s row runs: one per output row at most.
// Validation leaves a ratio below 1 to label maps.
size_t CountScratchBytes(const AugmentOptions& options) {
  if (!(options.crop_max_class_ratio < 1.0 && options.crop == CropPlacement::kRandom)) return 0;
  return size_t(options.output_height) * sizeof(IndexRun);
}

const AugmentOptions& Validated(const AugmentOptions& options) {
  ValidateAugmentOptions(options);
  return options;
}

}  // namespace

SampleAugmenter::SampleAugmenter(const AugmentOptions& augment_options,
                                 const OutputOptions& output_options, MaskEncoding mask_encoding,
                                 DecodeColour decode_colour)
    : augment_options_(Validated(augment_options)), converter_(output_options, mask_encoding) {
  const size_t pixels =
      static_cast<size_t>(augment_options_.output_width) * augment_options_.output_height;
  image_scratch_.resize(pixels * 3);
  mask_scratch_.resize(pixels);
  if (NeedsPlanes(decode_colour)) plane_scratch_.resize(pixels * 3);
  if (MayRedrawWindow()) count_scratch_.rows.reserve(augment_options_.output_height);
}

void SampleAugmenter::Run(const AugmentParams& params, const WarpSource& source,
                          const StridedImage& image_dst, const StridedMask& mask_dst) {
  const int width = augment_options_.output_width;
  const int height = augment_options_.output_height;
  const OutputOptions& output = converter_.options();

  // Packed uint8 destinations already have the warp's layout: skip scratch.
  const bool image_direct = output.image_dtype == ElementType::kUint8 &&
                            image_dst.x_stride_bytes == 3 && image_dst.channel_stride_bytes == 1;
  const bool mask_direct = output.mask_dtype == ElementType::kUint8 && mask_dst.x_stride_bytes == 1;
  // Packed float32 masks: the warp writes 0.0/1.0 straight into the slot.
  const bool mask_float_direct =
      output.mask_dtype == ElementType::kFloat32 && mask_dst.x_stride_bytes == 4;
  const MutableRasterView image_out =
      image_direct
          ? MutableRasterView{static_cast<uint8_t*>(image_dst.data), width, height, 3,
                              image_dst.y_stride_bytes}
          : MutableRasterView{image_scratch_.data(), width, height, 3, ptrdiff_t{width} * 3};
  const MutableRasterView mask_out =
      mask_direct ? MutableRasterView{static_cast<uint8_t*>(mask_dst.data), width, height, 1,
                                      mask_dst.y_stride_bytes}
                  : MutableRasterView{mask_scratch_.data(), width, height, 1, ptrdiff_t{width}};

  if (source.image.channels == 1) {
    RunYCbCr(params, source, image_out, mask_out, image_dst, mask_dst);
    return;
  }
  const StageClock::time_point start = StageClock::now();
  std::optional<ChannelSums> image_sums;
  WarpSource filled_source = source;
  filled_source.mask_fill = converter_.mask_encoding().fill();
  if (mask_float_direct) {
    WarpImageAndMask(
        augment_options_, params, filled_source, image_out,
        FloatMaskView{static_cast<float*>(mask_dst.data), width, height, mask_dst.y_stride_bytes},
        &warp_scratch_, &image_sums);
  } else {
    WarpImageAndMask(augment_options_, params, filled_source, image_out, mask_out, &warp_scratch_,
                     &image_sums);
  }
  const StageClock::time_point warped = StageClock::now();
  if (augment_options_.colour_model == ColourModel::kLinear) {
    RunLinearColour(params, image_out, image_sums, image_dst);
    const StageClock::time_point jittered = StageClock::now();
    if (!mask_float_direct) converter_.ConvertMask(mask_out.View(), mask_dst);
    timings_.warp_ns = NanosBetween(start, warped);
    timings_.jitter_ns = NanosBetween(warped, jittered);
    timings_.convert_ns = NanosBetween(jittered, StageClock::now());
    return;
  }
  // Jitter on the output-size image (cheaper than on the source), fused with
  // the image conversion: each chunk's levels go from L1 straight to
  // `image_dst`. The fused pass counts as jitter time.
  const bool image_written = ApplyColorJitterAndConvert(
      params, image_out.View(), converter_, image_dst, image_sums ? &*image_sums : nullptr);
  const StageClock::time_point jittered = StageClock::now();
  if (!image_written) converter_.ConvertImage(image_out.View(), image_dst);
  // Also in place for direct masks: guarantees {0, 1} even for a 0/255 source.
  if (!mask_float_direct) converter_.ConvertMask(mask_out.View(), mask_dst);
  timings_.warp_ns = NanosBetween(start, warped);
  // Without jitter, the call that found nothing to do counts as conversion.
  timings_.jitter_ns = image_written ? NanosBetween(warped, jittered) : 0;
  timings_.convert_ns = NanosBetween(image_written ? jittered : warped, StageClock::now());
}

std::array<MutableRasterView, 3> SampleAugmenter::Planes() {
  const int width = augment_options_.output_width;
  const int height = augment_options_.output_height;
  assert(plane_scratch_.size() == size_t{3} * width * height);
  std::array<MutableRasterView, 3> planes;
  for (int plane = 0; plane < 3; ++plane)
    planes[plane] = {plane_scratch_.data() + size_t(plane) * width * height, width, height, 1,
                     ptrdiff_t{width}};
  return planes;
}

void SampleAugmenter::RunLinearColour(const AugmentParams& params,
                                      const MutableRasterView& image_out,
                                      const std::optional<ChannelSums>& sums,
                                      const StridedImage& image_dst) {
  // The warp's sums, or (where it fell back to OpenCV) counted here.
  const ChannelSums totals = sums ? *sums : RgbChannelSums(image_out.View());
  ApplyColourMatrixAndConvert(LinearColourFromRgb(params, Means(totals)), image_out.View(),
                              converter_, image_dst);
}

std::array<double, 3> SampleAugmenter::Means(const ChannelSums& sums) const {
  const double pixels =
      static_cast<double>(augment_options_.output_width) * augment_options_.output_height;
  return {static_cast<double>(sums[0]) / pixels, static_cast<double>(sums[1]) / pixels,
          static_cast<double>(sums[2]) / pixels};
}

void SampleAugmenter::RunYCbCr(const AugmentParams& params, const WarpSource& source,
                               const MutableRasterView& image_out,
                               const MutableRasterView& mask_out, const StridedImage& image_dst,
                               const StridedMask& mask_dst) {
  const std::array<MutableRasterView, 3> planes = Planes();
  const StageClock::time_point start = StageClock::now();
  WarpYCbCrPlanes(augment_options_, params, source, planes, &warp_scratch_);
  WarpMaskOnly(augment_options_, params, source.mask, converter_.mask_encoding().fill(), mask_out);
  const StageClock::time_point warped = StageClock::now();
  bool image_written = false;
  if (augment_options_.colour_model == ColourModel::kLinear) {
    ApplyColourMatrixAndConvert(LinearColourFromYCbCr(params, Means(PlaneSums(planes))), planes,
                                converter_, image_dst);
    image_written = true;
  } else {
    ChannelSums sums{0, 0, 0};
    YCbCrToRgbInPlace(planes, &sums);
    InterleavePlanes(planes, image_out);
    image_written =
        ApplyColorJitterAndConvert(params, image_out.View(), converter_, image_dst, &sums);
  }
  const StageClock::time_point jittered = StageClock::now();
  if (!image_written) converter_.ConvertImage(image_out.View(), image_dst);
  converter_.ConvertMask(mask_out.View(), mask_dst);
  // The conversion from YCbCr counts as jitter time: it is the colour
  // stage's first step here.
  timings_.warp_ns = NanosBetween(start, warped);
  timings_.jitter_ns = NanosBetween(warped, jittered);
  timings_.convert_ns = NanosBetween(jittered, StageClock::now());
}

bool SampleAugmenter::MayRedrawWindow() const {
  return converter_.mask_encoding().labels && augment_options_.crop_max_class_ratio < 1.0 &&
         augment_options_.crop == CropPlacement::kRandom;
}

int SampleAugmenter::ChooseWindow(const WarpSource& source, AugmentParams* params,
                                  const std::function<void(int, AugmentParams*)>& redraw) {
  if (!MayRedrawWindow()) return 1;
  const MaskEncoding& encoding = converter_.mask_encoding();
  const int width = augment_options_.output_width;
  const int height = augment_options_.output_height;
  const MutableRasterView window{mask_scratch_.data(), width, height, 1, ptrdiff_t{width}};
  const uint8_t ignore = encoding.fill();
  for (int attempt = 0;; ++attempt) {
    // Counted without the window where the count can (no turn); else the
    // window is warped and counted, as Run() would warp it.
    LevelCounts counts;
    if (!CountWindowLevels(augment_options_, *params, source.mask, &count_scratch_, &counts)) {
      WarpMaskOnly(augment_options_, *params, source.mask, ignore, window);
      counts = CountLevels(mask_scratch_.data(), mask_scratch_.size());
    }
    counts[ignore] = 0;  // ignore pixels, padding included, are not counted
    int64_t labelled = 0, largest = 0;
    for (int64_t count : counts) {
      labelled += count;
      largest = std::max(largest, count);
    }
    const bool passes = static_cast<double>(largest) <=
                        augment_options_.crop_max_class_ratio * static_cast<double>(labelled);
    if (passes || attempt + 1 == kCropRedraws) return attempt + 1;
    redraw(attempt + 1, params);
  }
}

size_t SampleAugmenter::scratch_bytes() const {
  return image_scratch_.capacity() + mask_scratch_.capacity() + plane_scratch_.capacity() +
         warp_scratch_.reduced_image.capacity() + count_scratch_.rows.capacity() * sizeof(IndexRun);
}

size_t SampleAugmenter::PlannedScratchBytes(const AugmentOptions& options, int decoded_width,
                                            int decoded_height, DecodeColour decode_colour) {
  const size_t pixels = static_cast<size_t>(options.output_width) * options.output_height;
  // The planned photo's pre-reduction for a centred, unturned window at the
  // smallest, unit and largest random scale (the block's size is not
  // monotonic in the scale: a larger factor may start to divide). The
  // decoded image covers the mask's extent, so its extent in its own pixels
  // is its size (up to libjpeg-turbo's rounding, which never moves a factor
  // across an integer for real photos).
  std::vector<double> scales = {1.0};
  if (options.scale_enabled) scales = {options.scale_factor.min, 1.0, options.scale_factor.max};
  size_t reduced_bytes = 0;
  for (double scale : scales) {
    AugmentParams params;
    params.scale_factor = scale;
    const WindowPlacement placement = PlaceWindow(options, params, decoded_width, decoded_height);
    const AffineMatrix matrix =
        OutputToSourceMatrix(params, placement, decoded_width, decoded_height, options.output_width,
                             options.output_height);
    reduced_bytes =
        std::max(reduced_bytes, PlanPreReduction(options, placement, matrix, decoded_width,
                                                 decoded_height, decoded_width, decoded_height)
                                    .bytes());
  }
  const size_t planes = NeedsPlanes(decode_colour) ? pixels * 3 : 0;
  return pixels * 3 + pixels + planes + reduced_bytes + CountScratchBytes(options);
}

size_t SampleAugmenter::MaxScratchBytes(const AugmentOptions& options, DecodeColour decode_colour) {
  const size_t pixels = static_cast<size_t>(options.output_width) * options.output_height;
  const size_t planes = NeedsPlanes(decode_colour) ? pixels * 3 : 0;
  return pixels * 3 + pixels + planes + MaxPreReducedBytes(options) + CountScratchBytes(options);
}

}  // namespace segfeed::augment
