// Where one sample's output window lies on its photo, and the fused
// output -> source matrix that samples it: per-sample arithmetic in double,
// shared by every raster of the photo (see window_geometry.h).
#include "augment/window_geometry.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace segfeed::augment {
namespace {

// sin and cos of an angle in degrees, exact at multiples of 90 so that
// quarter turns map pixel centres exactly onto pixel centres.
void SinCosDegrees(double angle_deg, double* sin_out, double* cos_out) {
  double reduced = std::fmod(angle_deg, 360.0);
  if (reduced < 0) reduced += 360.0;
  if (reduced == 0.0 || reduced == 90.0 || reduced == 180.0 || reduced == 270.0) {
    static constexpr double kSin[] = {0, 1, 0, -1};
    static constexpr double kCos[] = {1, 0, -1, 0};
    const int quarter = static_cast<int>(reduced) / 90;
    *sin_out = kSin[quarter];
    *cos_out = kCos[quarter];
    return;
  }
  const double radians = reduced * (std::numbers::pi / 180.0);
  *sin_out = std::sin(radians);
  *cos_out = std::cos(radians);
}

}  // namespace

AffineMatrix OutputToSourceMatrix(const AugmentParams& params, double source_width,
                                  double source_height, int output_width, int output_height) {
  return OutputToSourceMatrix(
      params,
      WindowPlacement{static_cast<double>(output_width), static_cast<double>(output_height)},
      source_width, source_height, output_width, output_height);
}

WindowPlacement PlaceWindow(const AugmentOptions& options, const AugmentParams& params,
                            double photo_width, double photo_height) {
  const double output_width = options.output_width;
  const double output_height = options.output_height;
  double factor_x = output_width / photo_width;
  double factor_y = output_height / photo_height;
  switch (options.resize) {
    case ResizeMode::kStretch:
      break;
    case ResizeMode::kKeepRatio:
      factor_x = factor_y = std::min(factor_x, factor_y);
      break;
    case ResizeMode::kShortSide:
      factor_x = factor_y =
          std::min(output_width, output_height) / std::min(photo_width, photo_height);
      break;
    case ResizeMode::kLongSide:
      factor_x = factor_y =
          std::max(output_width, output_height) / std::max(photo_width, photo_height);
      break;
  }
  WindowPlacement placement;
  // Stretch at scale 1 is the output size exactly, not a product rounded.
  const bool exact = options.resize == ResizeMode::kStretch && params.scale_factor == 1.0;
  placement.scaled_width = exact ? output_width : photo_width * factor_x * params.scale_factor;
  placement.scaled_height = exact ? output_height : photo_height * factor_y * params.scale_factor;
  // The window's left edge moves over [0, scaled - output] (a negative room
  // is padding); its centre, as a fraction of the photo, follows.
  auto centre = [](double fraction, double scaled, double output) {
    if (scaled == output) return 0.5;
    return (fraction * (scaled - output) + output / 2.0) / scaled;
  };
  placement.centre_x = centre(params.crop_x, placement.scaled_width, output_width);
  placement.centre_y = centre(params.crop_y, placement.scaled_height, output_height);
  return placement;
}

Border BorderFor(const AugmentOptions& options, const WindowPlacement& placement) {
  if (options.fill_mode == FillMode::kConstant) return {};
  // The window's edges on the scaled photo, in output pixels. A hair past
  // the photo's edge is rounding (keep_ratio's fitted axis), not padding.
  constexpr double kHair = 1e-6;
  const double left = placement.centre_x * placement.scaled_width - options.output_width / 2.0;
  const double top = placement.centre_y * placement.scaled_height - options.output_height / 2.0;
  return {
      .mirror_left = left > -kHair,
      .mirror_right =
          left + options.output_width<placement.scaled_width + kHair, .mirror_top = top> - kHair,
      .mirror_bottom = top + options.output_height < placement.scaled_height + kHair};
}

AffineMatrix OutputToSourceMatrix(const AugmentParams& params, const WindowPlacement& placement,
                                  double extent_width, double extent_height, int output_width,
                                  int output_height) {
  double sin_a = 0;
  double cos_a = 1;
  SinCosDegrees(params.angle_deg, &sin_a, &cos_a);
  // Source pixels per output pixel along each axis.
  const double scale_x = extent_width / placement.scaled_width;
  const double scale_y = extent_height / placement.scaled_height;
  const double flip_x = params.flip_lr ? -1.0 : 1.0;
  const double flip_y = params.flip_ud ? -1.0 : 1.0;
  // Output pixel index x has continuous position x + 0.5; relative to the
  // centre that is x + 0.5 - W/2. Undo the rotation (rotate by -angle), undo
  // the flips (mirror about the centre), scale to the source extent, move
  // to the window's centre on the source and return to a pixel index by
  // subtracting 0.5.
  const double u0 = 0.5 - output_width / 2.0;
  const double v0 = 0.5 - output_height / 2.0;
  const double sx = scale_x * flip_x;
  const double sy = scale_y * flip_y;
  const double centre_x = extent_width * placement.centre_x;
  const double centre_y = extent_height * placement.centre_y;
  return {sx * cos_a, -sx * sin_a, centre_x - 0.5 + sx * (cos_a * u0 - sin_a * v0),
          sy * sin_a, sy * cos_a,  centre_y - 0.5 + sy * (sin_a * u0 + cos_a * v0)};
}

}  // namespace segfeed::augment

namespace segfeed {

std::pair<int, int> DecodeTargetFor(const AugmentOptions& options, const AugmentParams& params,
                                    int photo_width, int photo_height) {
  const augment::WindowPlacement placement =
      augment::PlaceWindow(options, params, photo_width, photo_height);
  // A hair under the next integer stays: 767.2000001 from rounding is 768, not 769.
  auto up = [](double pixels) { return static_cast<int>(std::ceil(pixels - 1e-6)); };
  return {up(placement.scaled_width), up(placement.scaled_height)};
}

std::pair<int, int> FinestDecodeTarget(const AugmentOptions& options, int photo_width,
                                       int photo_height) {
  AugmentParams largest;
  if (options.scale_enabled) largest.scale_factor = options.scale_factor.max;
  return DecodeTargetFor(options, largest, photo_width, photo_height);
}

void SetAppliedGeometry(const AugmentOptions& options, int photo_width, int photo_height,
                        AugmentParams* params) {
  using augment::AffineMatrix;
  using augment::WindowPlacement;
  const WindowPlacement placement =
      augment::PlaceWindow(options, *params, photo_width, photo_height);
  const AffineMatrix m = augment::OutputToSourceMatrix(
      *params, placement, photo_width, photo_height, options.output_width, options.output_height);
  params->source_width = photo_width;
  params->source_height = photo_height;
  params->output_to_source = {m[0], m[1], m[2], m[3], m[4], m[5]};
  const double det = m[0] * m[4] - m[1] * m[3];
  params->source_to_output = {m[4] / det,  -m[1] / det, (m[1] * m[5] - m[4] * m[2]) / det,
                              -m[3] / det, m[0] / det,  (m[3] * m[2] - m[0] * m[5]) / det};
  // The window before flips and rotation: output_width x output_height
  // output pixels around the placement's centre, in photo pixels.
  params->window_width = options.output_width * photo_width / placement.scaled_width;
  params->window_height = options.output_height * photo_height / placement.scaled_height;
  params->window_x = placement.centre_x * photo_width - params->window_width / 2;
  params->window_y = placement.centre_y * photo_height - params->window_height / 2;
}

}  // namespace segfeed
