#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "segfeed/augment.h"
#include "segfeed/loader.h"

namespace segfeed::cli {

// One sample exactly as the loader delivered it, copied out of its lease so
// the lease can go back to the pool.
struct PreviewSample {
  uint32_t sample_id = 0;  // the sample's id in Loader::dataset() (SampleKey())
  std::string stem;
  AugmentParams params;
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;  // height x width x 3, the batch's uint8 pixels
  // height x width: 0 or 1, or class ids and ignore_index (255 where the
  // ignore_index is outside 0-255, as -100 in an int64 map).
  std::vector<uint8_t> mask;
  // Label maps: classes 0 .. num_classes - 1 (0 the background), any other
  // value is ignore. 0 for a binary mask.
  int num_classes = 0;
};

// Streams `epoch` from `loader` and copies the first `count` samples in
// stream order (fewer when the epoch has fewer). The loader must deliver
// uint8 NHWC images, and masks of any mask dtype (uint8, float32, int32,
// int64: the one a trainer would get); anything else throws
// std::invalid_argument. A bad file surfaces as the loader's FileError.
// `progress(samples_so_far)` is called after each batch (may be empty).
// `num_classes` > 0: the masks are label maps of that many classes.
std::vector<PreviewSample> CollectPreviewSamples(Loader& loader, int64_t epoch, int count,
                                                 const std::function<void(int)>& progress,
                                                 int num_classes = 0);

// Geometry of the preview grid. Samples fill it row by row; each cell holds
// the sample's image (centred when the cell is wider) above a label band:
//   columns = ceil(sqrt(samples)), rows = ceil(samples / columns)
//   cell    = max(image width, kPreviewMinCellWidth) x (image height + kPreviewLabelHeight)
//   grid    = columns x cell width  + (columns + 1) x kPreviewGap
//           x rows    x cell height + (rows + 1)    x kPreviewGap
constexpr int kPreviewGap = 4;
constexpr int kPreviewLabelHeight = 48;
// Label maps add a legend line under the three: a swatch and the id of each
// class present, and the ignore swatch.
constexpr int kPreviewLegendHeight = 14;
// Wide enough for the longest label line at the label font size.
constexpr int kPreviewMinCellWidth = 224;

struct PreviewGridLayout {
  int columns = 0;
  int rows = 0;
  int cell_width = 0;
  int cell_height = 0;
  int width = 0;  // of the whole grid, pixels
  int height = 0;
};

// `samples` >= 1 and image sizes >= 1; `legend` for label maps.
PreviewGridLayout PlanPreviewGrid(int samples, int image_width, int image_height,
                                  bool legend = false);

// The three label lines under a sample: "#<sample id> <stem>", the geometry
// ("flip lr+ud, rot -37.2 deg") and the colour factors
// ("c 0.52 b +0.11 s 0.47 h -0.08", or "no colour jitter").
std::vector<std::string> PreviewLabelLines(const PreviewSample& sample);

// Draws the grid as RGB pixels (layout.height x layout.width x 3). Each
// sample's image has its mask overlaid: foreground pixels blended with
// kPreviewMaskColor at kPreviewMaskOpacity, and the mask's outline drawn in
// kPreviewContourColor on the outermost foreground pixels, so background
// pixels stay exactly the loader's. A label map instead has each class but
// the background blended with its LabelColour() at kPreviewLabelOpacity, its
// ignore pixels hatched with kIgnoreColour (every other 2x2 block), and a
// legend of the classes present, named by `class_names` (class i at index
// i) where given. All samples must have the same size.
constexpr double kPreviewLabelOpacity = 0.5;
constexpr uint8_t kPreviewMaskColor[3] = {255, 0, 255};
constexpr double kPreviewMaskOpacity = 0.4;
constexpr uint8_t kPreviewContourColor[3] = {255, 230, 0};
// The overlay of one cell, on its own: `rgb` is sample.height rows of
// sample.width x 3 bytes, `row_bytes` apart, and gets sample.mask drawn on
// it as above (the check's HTML report draws its thumbnails with it).
void OverlayPreviewMask(const PreviewSample& sample, uint8_t* rgb, int row_bytes);
std::vector<uint8_t> RenderPreviewGrid(std::span<const PreviewSample> samples,
                                       const PreviewGridLayout& layout,
                                       std::span<const std::string> class_names = {});

}  // namespace segfeed::cli
