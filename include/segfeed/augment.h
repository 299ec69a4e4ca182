#pragma once

#include <cstdint>

#include "segfeed/export.h"
#include "segfeed/options.h"

namespace segfeed {

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
  // Colour ops on the image, in this order (see AugmentOptions for formulas).
  double contrast_factor = 1.0;
  double brightness_delta = 0.0;
  double saturation_factor = 1.0;
  double hue_delta = 0.0;

  friend bool operator==(const AugmentParams&, const AugmentParams&) = default;
};

// Draws sample `sample_id`'s parameters for `epoch`. A pure function of its
// arguments (a counter-based generator keyed by seed, epoch and sample_id), so
// any thread gets the same values in any order, and different epochs give
// different augmentations. Each parameter has its own fixed position in the
// stream: switching one op off does not change the others' values.
// `options` must be valid (ValidateAugmentOptions); thread-safe.
SEGFEED_EXPORT AugmentParams DrawAugmentParams(const AugmentOptions& options, uint64_t seed,
                                               uint64_t epoch, uint64_t sample_id);

}  // namespace segfeed
