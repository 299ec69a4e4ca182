#include "augment/warp_footprint.h"

#include <algorithm>
#include <cmath>

#include "augment/affine_warp.h"
#include "augment/window_geometry.h"

namespace segfeed::augment {
namespace {

// One axis of the footprint, [*begin, *end) of `pixels`, for taps between
// `low` and `high` (image positions of the output's corners).
void AxisFootprint(double low, double high, bool mirror_low, bool mirror_high, int pixels,
                   int* begin, int* end) {
  // Past a mirrored edge a tap reads the pixel mirrored about it
  // (OpenCV's BORDER_REFLECT: -1 reads 0, pixels reads pixels - 1).
  if (mirror_low && low < 0) high = std::max(high, -low);
  if (mirror_high && high > pixels - 1) low = std::min(low, 2.0 * pixels - 1 - high);
  const double first = std::floor(low) - kFootprintMarginPixels;
  const double last = std::floor(high) + 1 + kFootprintMarginPixels;  // inclusive
  *begin = static_cast<int>(std::clamp(first, 0.0, static_cast<double>(pixels)));
  *end = static_cast<int>(std::clamp(last + 1, static_cast<double>(*begin), double(pixels)));
}

}  // namespace

PixelRect WarpImageFootprint(const AugmentOptions& options, const AugmentParams& params,
                             int photo_width, int photo_height, double image_scale, int image_width,
                             int image_height) {
  const WindowPlacement placement = PlaceWindow(options, params, photo_width, photo_height);
  // The extent and matrix WarpImageAndMask() computes for this image.
  const double extent_width = photo_width * image_scale;
  const double extent_height = photo_height * image_scale;
  const AffineMatrix matrix = OutputToSourceMatrix(params, placement, extent_width, extent_height,
                                                   options.output_width, options.output_height);
  // The output's corner pixels bound the positions of all its pixels (the
  // map is affine).
  double low_x = INFINITY, high_x = -INFINITY, low_y = INFINITY, high_y = -INFINITY;
  for (const int u : {0, options.output_width - 1}) {
    for (const int v : {0, options.output_height - 1}) {
      const double x = matrix[0] * u + matrix[1] * v + matrix[2];
      const double y = matrix[3] * u + matrix[4] * v + matrix[5];
      low_x = std::min(low_x, x), high_x = std::max(high_x, x);
      low_y = std::min(low_y, y), high_y = std::max(high_y, y);
    }
  }
  const Border border = BorderFor(options, placement);
  int x_begin = 0, x_end = 0, y_begin = 0, y_end = 0;
  AxisFootprint(low_x, high_x, border.mirror_left, border.mirror_right, image_width, &x_begin,
                &x_end);
  AxisFootprint(low_y, high_y, border.mirror_top, border.mirror_bottom, image_height, &y_begin,
                &y_end);
  // A shrink by more than 2x reads a block of the image (area reduction),
  // not the taps.
  const PreReduction block = PlanPreReduction(options, placement, matrix, image_width, image_height,
                                              extent_width, extent_height);
  if (block.reduced_width > 0) {
    x_begin = std::min(x_begin, block.x), x_end = std::max(x_end, block.x + block.width);
    y_begin = std::min(y_begin, block.y), y_end = std::max(y_end, block.y + block.height);
  }
  return {x_begin, y_begin, x_end - x_begin, y_end - y_begin};
}

}  // namespace segfeed::augment
