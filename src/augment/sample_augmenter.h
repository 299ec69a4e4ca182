#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "augment/affine_warp.h"
#include "augment/output_conversion.h"
#include "augment/window_level_count.h"
#include "segfeed/augment.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// The whole augment stage for one sample: fused warp of image and mask,
// colour jitter on the output-size image, conversion into the destination
// (typically a batch slot). Output size comes from AugmentOptions.
//
// Holds per-thread scratch (one output-size RGB and mask raster, and the
// pre-reduce buffer), so give each worker thread its own instance; the
// steady state allocates nothing. The output bytes depend only on the
// parameters and the sources, never on the thread or on earlier samples.
class SampleAugmenter {
 public:
  // Validates both option structs (throws ConfigError). `mask_encoding`
  // says what the decoded masks' values mean (binary unless given).
  // `decode_colour` ycbcr adds the scratch for the warped YCbCr planes.
  SampleAugmenter(const AugmentOptions& augment_options, const OutputOptions& output_options,
                  MaskEncoding mask_encoding = {}, DecodeColour decode_colour = DecodeColour::kRgb);

  const OutputConverter& converter() const { return converter_; }

  // Writes the augmented sample to `image_dst` / `mask_dst` (see
  // OutputConverter for the stride conventions). When the output is uint8
  // NHWC with packed pixels the warp writes straight into `image_dst` and the
  // jitter runs there; otherwise the warp writes to scratch and the fused
  // jitter and conversion is the only write to the destination. Packed
  // masks (uint8 or float32) are written by the warp straight into
  // `mask_dst`. A YCbCr source (a 1-channel image, see WarpSource; only
  // with decode_colour ycbcr) is warped plane by plane into scratch, then
  // converted to RGB and jittered (colour_model hsv) or jittered and
  // converted by one matrix (linear); its mask is warped to scratch or a
  // packed uint8 slot and converted.
  void Run(const AugmentParams& params, const WarpSource& source, const StridedImage& image_dst,
           const StridedMask& mask_dst);

  // For crop_max_class_ratio (labels mode, random crops): counts the classes
  // of `params`' window (CountWindowLevels(): without warping it unless it
  // turns) and, while one class covers more than the ratio of
  // its labelled pixels, calls redraw(attempt, params) for another window,
  // at most kCropRedraws windows in all. Returns how many were drawn (1
  // when the first one passed or the option is off).
  int ChooseWindow(const WarpSource& source, AugmentParams* params,
                   const std::function<void(int, AugmentParams*)>& redraw);
  // Whether ChooseWindow() may move the window after the mask is decoded
  // (crop_max_class_ratio on a label map's random crops): the window is
  // then not known before decoding, and the photo is decoded whole.
  bool MayRedrawWindow() const;

  // Where the last Run() spent its time.
  struct Timings {
    int64_t warp_ns = 0;  // image and mask
    // Colour jitter with the image's conversion fused into it (0 when the
    // jitter is off).
    int64_t jitter_ns = 0;
    // The conversions not fused into the jitter or the warp: a uint8 or
    // strided mask, and the image when the jitter is off.
    int64_t convert_ns = 0;
  };
  const Timings& last_timings() const { return timings_; }

  // Scratch held now: the output-size rasters and the pre-reduce buffer.
  size_t scratch_bytes() const;
  // Scratch for sources decoded at decoded_width x decoded_height (the
  // pre-reduce buffer depends on it); what scratch_bytes() reaches.
  static size_t PlannedScratchBytes(const AugmentOptions& options, int decoded_width,
                                    int decoded_height,
                                    DecodeColour decode_colour = DecodeColour::kRgb);
  // The most scratch_bytes() reaches for any source: the pre-reduced copy of
  // the image is never much more than twice the output size.
  static size_t MaxScratchBytes(const AugmentOptions& options,
                                DecodeColour decode_colour = DecodeColour::kRgb);

 private:
  // plane_scratch_ as Y, Cb, Cr at the output size.
  std::array<MutableRasterView, 3> Planes();
  // Per-channel means over the output of per-channel sums.
  std::array<double, 3> Means(const ChannelSums& sums) const;
  // Run() for a YCbCr source, into `image_out` (RGB) and `mask_out`.
  void RunYCbCr(const AugmentParams& params, const WarpSource& source,
                const MutableRasterView& image_out, const MutableRasterView& mask_out,
                const StridedImage& image_dst, const StridedMask& mask_dst);
  // Linear colour model on an RGB image_out: the matrix and the conversion
  // into `image_dst`, in one pass.
  void RunLinearColour(const AugmentParams& params, const MutableRasterView& image_out,
                       const std::optional<ChannelSums>& sums, const StridedImage& image_dst);

  AugmentOptions augment_options_;
  OutputConverter converter_;
  WarpScratch warp_scratch_;
  std::vector<uint8_t> image_scratch_;
  std::vector<uint8_t> mask_scratch_;
  // Three output-size planes (decode_colour ycbcr).
  std::vector<uint8_t> plane_scratch_;
  // ChooseWindow()'s row runs (crop_max_class_ratio only).
  LevelCountScratch count_scratch_;
  Timings timings_;
};

}  // namespace segfeed::augment
