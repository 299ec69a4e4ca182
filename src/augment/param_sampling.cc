// DrawAugmentParams: per-sample parameters from a counter-based generator.

#include "counter_rng.h"
#include "segfeed/augment.h"

namespace segfeed {
namespace {

// Each parameter reads its own fixed position of the sample's stream, offset
// by a constant ("augment" in ASCII) so these draws never coincide with other
// users of a (seed, epoch, ...) key such as the epoch permutation.
constexpr uint64_t kStreamBase = 0x6175676d656e74ull;
enum Slot : uint64_t {
  kFlipLr = kStreamBase,
  kFlipUd,
  kAngle,
  kContrast,
  kBrightness,
  kSaturation,
  kHue,
  // Appended, so the slots above keep the values they always had.
  kScale,
  kCropX,
  kCropY,
  // Two slots per redraw of crop_max_class_ratio.
  kCropRedrawBase,
};

double Uniform01At(const CounterRng& rng, uint64_t slot) {
  return static_cast<double>(rng.At(slot) >> 11) * 0x1.0p-53;
}

double UniformAt(const CounterRng& rng, uint64_t slot, const UniformRange& range) {
  return range.min + (range.max - range.min) * Uniform01At(rng, slot);
}

}  // namespace

AugmentParams DrawAugmentParams(const AugmentOptions& options, uint64_t seed, uint64_t epoch,
                                uint64_t sample_id) {
  const CounterRng rng(seed, epoch, sample_id);
  AugmentParams params;
  params.flip_lr = Uniform01At(rng, kFlipLr) < options.flip_lr_probability;
  params.flip_ud = Uniform01At(rng, kFlipUd) < options.flip_ud_probability;
  if (options.rotation_fraction > 0.0) {
    const double max_deg = options.rotation_fraction * 360.0;
    params.angle_deg = UniformAt(rng, kAngle, {-max_deg, max_deg});
  }
  if (options.contrast_enabled)
    params.contrast_factor = UniformAt(rng, kContrast, options.contrast_factor);
  if (options.brightness_enabled)
    params.brightness_delta = UniformAt(rng, kBrightness, options.brightness_delta);
  if (options.saturation_enabled)
    params.saturation_factor = UniformAt(rng, kSaturation, options.saturation_factor);
  if (options.hue_enabled) params.hue_delta = UniformAt(rng, kHue, options.hue_delta);
  if (options.scale_enabled) params.scale_factor = UniformAt(rng, kScale, options.scale_factor);
  // A stretch without a random scale fills the window exactly: nothing to place.
  const bool window_can_move = options.resize != ResizeMode::kStretch || options.scale_enabled;
  if (options.crop == CropPlacement::kRandom && window_can_move) {
    params.crop_x = Uniform01At(rng, kCropX);
    params.crop_y = Uniform01At(rng, kCropY);
  }
  return params;
}

void RedrawCrop(uint64_t seed, uint64_t epoch, uint64_t sample_id, int attempt,
                AugmentParams* params) {
  const CounterRng rng(seed, epoch, sample_id);
  const uint64_t slot = kCropRedrawBase + 2 * static_cast<uint64_t>(attempt);
  params->crop_x = Uniform01At(rng, slot);
  params->crop_y = Uniform01At(rng, slot + 1);
}

}  // namespace segfeed
