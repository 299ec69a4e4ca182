#include "cli/preview_grid.h"

#include "output/label_palette.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <set>
#include <stdexcept>

namespace segfeed::cli {
namespace {

constexpr int kLabelFont = cv::FONT_HERSHEY_SIMPLEX;
constexpr double kLabelFontScale = 0.4;
constexpr int kLabelLineHeight = 14;
const cv::Scalar kGridBackground(40, 40, 40);
const cv::Scalar kLabelBackground(20, 20, 20);
const cv::Scalar kLabelText(235, 235, 235);

cv::Scalar Rgb(const uint8_t (&color)[3]) { return cv::Scalar(color[0], color[1], color[2]); }

// Blends the foreground with the mask colour, then outlines it. The outline
// is drawn on the contour's own pixels, which are foreground, so nothing
// outside the mask changes.
void OverlayMask(const PreviewSample& sample, cv::Mat cell_image) {
  const cv::Mat mask(sample.height, sample.width, CV_8UC1,
                     const_cast<uint8_t*>(sample.mask.data()));
  for (int y = 0; y < sample.height; ++y) {
    const uint8_t* mask_row = mask.ptr<uint8_t>(y);
    uint8_t* pixel = cell_image.ptr<uint8_t>(y);
    for (int x = 0; x < sample.width; ++x, pixel += 3) {
      if (!mask_row[x]) continue;
      for (int c = 0; c < 3; ++c) {
        pixel[c] = cv::saturate_cast<uint8_t>((1.0 - kPreviewMaskOpacity) * pixel[c] +
                                              kPreviewMaskOpacity * kPreviewMaskColor[c]);
      }
    }
  }
  std::vector<std::vector<cv::Point>> contours;
  cv::findContours(mask.clone(), contours, cv::RETR_LIST, cv::CHAIN_APPROX_NONE);
  cv::drawContours(cell_image, contours, -1, Rgb(kPreviewContourColor), 1, cv::LINE_8);
}

bool IsClass(const PreviewSample& sample, uint8_t value) { return value < sample.num_classes; }

// Label maps: classes in their colours, ignore hatched, background as it is.
void OverlayLabels(const PreviewSample& sample, cv::Mat cell_image) {
  for (int y = 0; y < sample.height; ++y) {
    const uint8_t* labels = sample.mask.data() + static_cast<size_t>(y) * sample.width;
    uint8_t* pixel = cell_image.ptr<uint8_t>(y);
    for (int x = 0; x < sample.width; ++x, pixel += 3) {
      const uint8_t label = labels[x];
      if (!IsClass(sample, label)) {
        if (((x / 2) + (y / 2)) % 2 == 0) std::memcpy(pixel, output::kIgnoreColour.data(), 3);
        continue;
      }
      if (label == 0) continue;
      const output::LabelRgb colour = output::LabelColour(label, sample.num_classes);
      for (int c = 0; c < 3; ++c) {
        pixel[c] = cv::saturate_cast<uint8_t>((1.0 - kPreviewLabelOpacity) * pixel[c] +
                                              kPreviewLabelOpacity * colour[c]);
      }
    }
  }
}

// The legend line: a swatch and the id of each class present (with its
// name when the classes are named), then "ignore".
void DrawLegend(const PreviewSample& sample, cv::Mat band, int baseline_y,
                std::span<const std::string> class_names) {
  std::set<int> present;
  bool ignore = false;
  for (uint8_t value : sample.mask) {
    if (IsClass(sample, value)) {
      present.insert(value);
    } else {
      ignore = true;
    }
  }
  int x = 4;
  const auto swatch = [&](const output::LabelRgb& colour, const std::string& text) {
    cv::rectangle(band, cv::Rect(x, baseline_y - 9, 9, 9),
                  cv::Scalar(colour[0], colour[1], colour[2]), cv::FILLED);
    cv::putText(band, text, cv::Point(x + 11, baseline_y), kLabelFont, kLabelFontScale, kLabelText,
                1, cv::LINE_AA);
    int text_baseline = 0;
    x += 11 + cv::getTextSize(text, kLabelFont, kLabelFontScale, 1, &text_baseline).width + 6;
  };
  for (int label : present) {
    std::string text = std::to_string(label);
    if (static_cast<size_t>(label) < class_names.size()) text += " " + class_names[label];
    swatch(output::LabelColour(label, sample.num_classes), text);
  }
  if (ignore) swatch(output::kIgnoreColour, "ignore");
}

// One mask element as the preview draws it: a class id or 0/1 as it is; a
// value outside 0-255 (an ignore_index of -1 or -100 in an int32/int64
// map) as 255, which is never a class (num_classes <= 255), so it is drawn
// and dumped as ignore.
uint8_t PreviewMaskValue(const uint8_t* element, ElementType type) {
  int64_t value = 0;
  switch (type) {
    case ElementType::kUint8:
      return *element;
    case ElementType::kFloat32: {
      float real;
      std::memcpy(&real, element, sizeof real);
      value = real != 0.0f ? 1 : 0;  // binary masks only: exactly 0 or 1
      break;
    }
    case ElementType::kInt32: {
      int32_t id;
      std::memcpy(&id, element, sizeof id);
      value = id;
      break;
    }
    case ElementType::kInt64:
      std::memcpy(&value, element, sizeof value);
      break;
    case ElementType::kFloat16:
      throw std::invalid_argument("preview cannot draw float16 masks");
  }
  return value >= 0 && value <= 255 ? static_cast<uint8_t>(value) : uint8_t{255};
}

}  // namespace

std::vector<PreviewSample> CollectPreviewSamples(Loader& loader, int64_t epoch, int count,
                                                 const std::function<void(int)>& progress,
                                                 int num_classes) {
  std::vector<PreviewSample> samples;
  loader.StartEpoch(epoch);
  while (static_cast<int>(samples.size()) < count) {
    std::optional<Lease> lease = loader.Next();
    if (!lease) break;
    const TensorView& images = lease->images();
    const TensorView& masks = lease->masks();
    if (images.element_type != ElementType::kUint8 || lease->layout() != Layout::kNHWC)
      throw std::invalid_argument("preview needs uint8 NHWC images");
    const int height = static_cast<int>(images.shape[1]);
    const int width = static_cast<int>(images.shape[2]);
    for (int slot = 0; slot < lease->size() && static_cast<int>(samples.size()) < count; ++slot) {
      PreviewSample sample;
      sample.sample_id = lease->sample_ids()[slot];
      sample.stem = loader.dataset().SampleKey(sample.sample_id);
      sample.params = lease->params()[slot];
      sample.width = width;
      sample.height = height;
      sample.num_classes = num_classes;
      sample.rgb.resize(static_cast<size_t>(width) * height * 3);
      sample.mask.resize(static_cast<size_t>(width) * height);
      // Rows are copied through the strides, so padding between samples or
      // rows (if a layout ever has it) is never mistaken for pixels.
      const auto* image_base =
          static_cast<const uint8_t*>(images.data) + slot * images.strides_bytes[0];
      const auto* mask_base =
          static_cast<const uint8_t*>(masks.data) + slot * masks.strides_bytes[0];
      for (int y = 0; y < height; ++y) {
        const uint8_t* image_row = image_base + y * images.strides_bytes[1];
        const uint8_t* mask_row = mask_base + y * masks.strides_bytes[1];
        uint8_t* rgb_out = sample.rgb.data() + static_cast<size_t>(y) * width * 3;
        uint8_t* mask_out = sample.mask.data() + static_cast<size_t>(y) * width;
        for (int x = 0; x < width; ++x) {
          std::memcpy(rgb_out + 3 * x, image_row + x * images.strides_bytes[2], 3);
          mask_out[x] = PreviewMaskValue(mask_row + x * masks.strides_bytes[2], masks.element_type);
        }
      }
      samples.push_back(std::move(sample));
    }
    if (progress) progress(static_cast<int>(samples.size()));
  }
  return samples;
}

PreviewGridLayout PlanPreviewGrid(int samples, int image_width, int image_height, bool legend) {
  PreviewGridLayout layout;
  // ceil(sqrt(samples)) in integers, so no rounding can add a column.
  layout.columns = 1;
  while (layout.columns * layout.columns < samples) ++layout.columns;
  layout.rows = (samples + layout.columns - 1) / layout.columns;
  layout.cell_width = std::max(image_width, kPreviewMinCellWidth);
  layout.cell_height = image_height + kPreviewLabelHeight + (legend ? kPreviewLegendHeight : 0);
  layout.width = layout.columns * layout.cell_width + (layout.columns + 1) * kPreviewGap;
  layout.height = layout.rows * layout.cell_height + (layout.rows + 1) * kPreviewGap;
  return layout;
}

std::vector<std::string> PreviewLabelLines(const PreviewSample& sample) {
  const AugmentParams& p = sample.params;
  const char* flips = p.flip_lr && p.flip_ud ? "lr+ud"
                      : p.flip_lr            ? "lr"
                      : p.flip_ud            ? "ud"
                                             : "none";
  const bool colour = p.contrast_factor != 1.0 || p.brightness_delta != 0.0 ||
                      p.saturation_factor != 1.0 || p.hue_delta != 0.0;
  // snprintf rather than string concatenation: GCC 12 reports a false
  // -Wrestrict on `"literal" + std::string` at -O3.
  char id_line[96], geometry_line[64], colour_line[64];
  std::snprintf(id_line, sizeof id_line, "#%u %s", static_cast<unsigned>(sample.sample_id),
                sample.stem.c_str());
  // The random scale only when the window was drawn: a stretch's caption
  // stays as it was (the window's place is in --dump's params.json).
  if (p.scale_factor != 1.0 || p.crop_x != 0.5 || p.crop_y != 0.5) {
    std::snprintf(geometry_line, sizeof geometry_line, "flip %s, rot %+.1f, scale %.2f", flips,
                  p.angle_deg, p.scale_factor);
  } else {
    std::snprintf(geometry_line, sizeof geometry_line, "flip %s, rot %+.1f deg", flips,
                  p.angle_deg);
  }
  if (colour) {
    std::snprintf(colour_line, sizeof colour_line, "c %.2f b %+.2f s %.2f h %+.2f",
                  p.contrast_factor, p.brightness_delta, p.saturation_factor, p.hue_delta);
  } else {
    std::snprintf(colour_line, sizeof colour_line, "no colour jitter");
  }
  return {id_line, geometry_line, colour_line};
}

void OverlayPreviewMask(const PreviewSample& sample, uint8_t* rgb, int row_bytes) {
  cv::Mat image(sample.height, sample.width, CV_8UC3, rgb, static_cast<size_t>(row_bytes));
  if (sample.num_classes > 0) {
    OverlayLabels(sample, image);
  } else {
    OverlayMask(sample, image);
  }
}

std::vector<uint8_t> RenderPreviewGrid(std::span<const PreviewSample> samples,
                                       const PreviewGridLayout& layout,
                                       std::span<const std::string> class_names) {
  std::vector<uint8_t> pixels(static_cast<size_t>(layout.width) * layout.height * 3);
  cv::Mat grid(layout.height, layout.width, CV_8UC3, pixels.data());
  grid.setTo(kGridBackground);
  for (size_t i = 0; i < samples.size(); ++i) {
    const PreviewSample& sample = samples[i];
    const int column = static_cast<int>(i) % layout.columns;
    const int row = static_cast<int>(i) / layout.columns;
    const int cell_x = kPreviewGap + column * (layout.cell_width + kPreviewGap);
    const int cell_y = kPreviewGap + row * (layout.cell_height + kPreviewGap);
    const int image_x = cell_x + (layout.cell_width - sample.width) / 2;

    cv::Mat cell_image = grid(cv::Rect(image_x, cell_y, sample.width, sample.height));
    cv::Mat(sample.height, sample.width, CV_8UC3, const_cast<uint8_t*>(sample.rgb.data()))
        .copyTo(cell_image);
    OverlayPreviewMask(sample, cell_image.data, static_cast<int>(cell_image.step));

    // Drawing into the label's own Mat header clips the text to the cell.
    cv::Mat label = grid(cv::Rect(cell_x, cell_y + sample.height, layout.cell_width,
                                  layout.cell_height - sample.height));
    label.setTo(kLabelBackground);
    int baseline_y = kLabelLineHeight - 2;
    for (const std::string& line : PreviewLabelLines(sample)) {
      cv::putText(label, line, cv::Point(4, baseline_y), kLabelFont, kLabelFontScale, kLabelText, 1,
                  cv::LINE_AA);
      baseline_y += kLabelLineHeight;
    }
    if (sample.num_classes > 0) DrawLegend(sample, label, baseline_y, class_names);
  }
  return pixels;
}

}  // namespace segfeed::cli
