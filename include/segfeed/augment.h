#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "segfeed/export.h"
#include "segfeed/options.h"

namespace segfeed {

// A 2x3 affine map in pixel indices (OpenCV's convention: pixel (i, j) is
// centred at (i, j)): (x, y) -> (xx*x + xy*y + x0, yx*x + yy*y + y0). As a
// row-major matrix [[xx, xy, x0], [yx, yy, y0]] it is what cv2.warpAffine
// takes.
struct Affine2x3 {
  double xx = 1.0, xy = 0.0, x0 = 0.0;
  double yx = 0.0, yy = 1.0, y0 = 0.0;
  friend bool operator==(const Affine2x3&, const Affine2x3&) = default;
};

template <typename Fn>
void ForEachField(const Affine2x3& m, Fn&& fn) {
  fn("xx", m.xx);
  fn("xy", m.xy);
  fn("x0", m.x0);
  fn("yx", m.yx);
  fn("yy", m.yy);
  fn("y0", m.y0);
}

// The augmentation applied to one sample. Plain data: a batch carries one per
// sample so a trainer (or a test) can see exactly what was done. Fields of a
// disabled op hold the identity value.
struct AugmentParams {
  // Mirror left-right / up-down. Applied before the rotation.
  bool flip_lr = false;
  bool flip_ud = false;
  // Rotation about the output centre in degrees, counter-clockwise as seen on
  // screen (y axis pointing down).
  double angle_deg = 0.0;
  // The random scale on top of the resize (AugmentOptions::scale_factor).
  double scale_factor = 1.0;
  // Where the output window lies on the scaled photo along x and y, as a
  // fraction of the room there is: 0 at the left (top) end, 1 at the right
  // (bottom), 0.5 centred. Where the photo is smaller than the window the
  // room is padding, and 0 puts the photo at the window's left (top).
  double crop_x = 0.5;
  double crop_y = 0.5;
  // Colour ops on the image, in this order (see AugmentOptions for formulas).
  double contrast_factor = 1.0;
  double brightness_delta = 0.0;
  double saturation_factor = 1.0;
  double hue_delta = 0.0;

  // The sample's geometry as it was applied, set once its photo is decoded
  // (DrawAugmentParams leaves the identity): the photo's size, the map from
  // photo pixels to output pixels and back (the mask's matrices: the photo
  // at full resolution), and the output window on the photo before flips
  // and rotation, in photo pixels (it may reach past the photo: padding).
  double source_width = 0.0;
  double source_height = 0.0;
  Affine2x3 source_to_output;
  Affine2x3 output_to_source;
  double window_x = 0.0;
  double window_y = 0.0;
  double window_width = 0.0;
  double window_height = 0.0;

  friend bool operator==(const AugmentParams&, const AugmentParams&) = default;
};

// The field list of AugmentParams: calls fn("name", value) once per field,
// in declaration order (bools and doubles). The preview dump's JSON, the
// Python dicts and the stubs all take their names from here.
template <typename Fn>
void ForEachField(const AugmentParams& p, Fn&& fn) {
  fn("flip_lr", p.flip_lr);
  fn("flip_ud", p.flip_ud);
  fn("angle_deg", p.angle_deg);
  fn("scale_factor", p.scale_factor);
  fn("crop_x", p.crop_x);
  fn("crop_y", p.crop_y);
  fn("contrast_factor", p.contrast_factor);
  fn("brightness_delta", p.brightness_delta);
  fn("saturation_factor", p.saturation_factor);
  fn("hue_delta", p.hue_delta);
  fn("source_width", p.source_width);
  fn("source_height", p.source_height);
  fn("source_to_output", p.source_to_output);
  fn("output_to_source", p.output_to_source);
  fn("window_x", p.window_x);
  fn("window_y", p.window_y);
  fn("window_width", p.window_width);
  fn("window_height", p.window_height);
}

// Draws sample `sample_id`'s parameters for `epoch`. A pure function of its
// arguments (a counter-based generator keyed by seed, epoch and sample_id), so
// any thread gets the same values in any order, and different epochs give
// different augmentations. Each parameter has its own fixed position in the
// stream: switching one op off does not change the others' values.
// `options` must be valid (ValidateAugmentOptions); thread-safe.
SEGFEED_EXPORT AugmentParams DrawAugmentParams(const AugmentOptions& options, uint64_t seed,
                                               uint64_t epoch, uint64_t sample_id);

// The window of draw `attempt` (1 .. kCropRedraws - 1) of crop_max_class_ratio
// for the same sample: sets crop_x and crop_y from positions of the
// sample's stream of their own, so every draw is a function of (seed,
// epoch, sample_id, attempt) alone.
SEGFEED_EXPORT void RedrawCrop(uint64_t seed, uint64_t epoch, uint64_t sample_id, int attempt,
                               AugmentParams* params);

// The size a photo of photo_width x photo_height must be decoded to at
// least for `params`' window to keep one decoded pixel per output pixel:
// the photo scaled as the window sees it, rounded up (the output size for
// a stretch at scale 1).
SEGFEED_EXPORT std::pair<int, int> DecodeTargetFor(const AugmentOptions& options,
                                                   const AugmentParams& params, int photo_width,
                                                   int photo_height);

// The finest DecodeTargetFor() any sample of `options` can ask of such a
// photo (the largest random scale): what a memory plan decodes for.
SEGFEED_EXPORT std::pair<int, int> FinestDecodeTarget(const AugmentOptions& options,
                                                      int photo_width, int photo_height);

// Sets the geometry fields of `params` (source size, matrices, window) for
// a photo of photo_width x photo_height pixels, as the warp applies them.
SEGFEED_EXPORT void SetAppliedGeometry(const AugmentOptions& options, int photo_width,
                                       int photo_height, AugmentParams* params);

}  // namespace segfeed
