#include "cli/preview_grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo/demo_dataset.h"
#include "output/label_palette.h"
#include "segfeed/loader.h"
#include "temp_dir.h"

namespace segfeed::cli {
namespace {

using segfeed::testing::TempDir;
namespace fs = std::filesystem;

// A flat grey sample with a rectangular mask, so every pixel's expected value
// is known.
PreviewSample GreySample(int width, int height, int x0, int y0, int x1, int y1) {
  PreviewSample sample;
  sample.sample_id = 3;
  sample.stem = "cafe0001_01";
  sample.width = width;
  sample.height = height;
  sample.rgb.assign(static_cast<size_t>(width) * height * 3, 100);
  sample.mask.assign(static_cast<size_t>(width) * height, 0);
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) sample.mask[static_cast<size_t>(y) * width + x] = 1;
  }
  return sample;
}

const uint8_t* GridPixel(const std::vector<uint8_t>& grid, const PreviewGridLayout& layout, int x,
                         int y) {
  return grid.data() + (static_cast<size_t>(y) * layout.width + x) * 3;
}

TEST(PreviewGridTest, LayoutFollowsTheDocumentedFormula) {
  PreviewGridLayout layout = PlanPreviewGrid(16, 160, 106);
  EXPECT_EQ(layout.columns, 4);
  EXPECT_EQ(layout.rows, 4);
  EXPECT_EQ(layout.cell_width, kPreviewMinCellWidth);  // narrow images get the label's width
  EXPECT_EQ(layout.cell_height, 106 + kPreviewLabelHeight);
  EXPECT_EQ(layout.width, 4 * kPreviewMinCellWidth + 5 * kPreviewGap);
  EXPECT_EQ(layout.height, 4 * (106 + kPreviewLabelHeight) + 5 * kPreviewGap);

  layout = PlanPreviewGrid(5, 512, 256);
  EXPECT_EQ(layout.columns, 3);
  EXPECT_EQ(layout.rows, 2);
  EXPECT_EQ(layout.width, 3 * 512 + 4 * kPreviewGap);
  EXPECT_EQ(layout.height, 2 * (256 + kPreviewLabelHeight) + 3 * kPreviewGap);

  layout = PlanPreviewGrid(1, 300, 200);
  EXPECT_EQ(layout.columns, 1);
  EXPECT_EQ(layout.rows, 1);
  EXPECT_EQ(layout.width, 300 + 2 * kPreviewGap);

  layout = PlanPreviewGrid(17, 300, 200);
  EXPECT_EQ(layout.columns, 5);
  EXPECT_EQ(layout.rows, 4);
}

TEST(PreviewGridTest, OverlayTintsTheMaskOutlinesItAndLeavesTheBackground) {
  const int width = 240, height = 60;  // wider than the minimum cell: no centring offset
  const PreviewSample sample = GreySample(width, height, 50, 10, 150, 40);
  const PreviewGridLayout layout = PlanPreviewGrid(1, width, height);
  const std::vector<uint8_t> grid = RenderPreviewGrid(std::span(&sample, 1), layout);
  ASSERT_EQ(grid.size(), static_cast<size_t>(layout.width) * layout.height * 3);
  const int ox = kPreviewGap, oy = kPreviewGap;

  // Background: exactly the loader's pixels.
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      if (sample.mask[static_cast<size_t>(y) * width + x]) continue;
      const uint8_t* p = GridPixel(grid, layout, ox + x, oy + y);
      ASSERT_EQ(p[0], 100) << x << "," << y;
      ASSERT_EQ(p[1], 100);
      ASSERT_EQ(p[2], 100);
    }
  }
  // Inside: blended with the mask colour.
  const uint8_t* inside = GridPixel(grid, layout, ox + 100, oy + 25);
  for (int c = 0; c < 3; ++c) {
    const double expected =
        (1 - kPreviewMaskOpacity) * 100 + kPreviewMaskOpacity * kPreviewMaskColor[c];
    EXPECT_NEAR(inside[c], expected, 1.0) << c;
  }
  // The outermost foreground pixels carry the outline.
  for (auto [x, y] :
       {std::pair{50, 10}, std::pair{149, 39}, std::pair{100, 10}, std::pair{50, 25}}) {
    const uint8_t* edge = GridPixel(grid, layout, ox + x, oy + y);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(edge[c], kPreviewContourColor[c]) << x << "," << y;
  }
}

// A label map: the background stays the loader's pixels, each class is
// blended with its own colour, ignore pixels are hatched, and the cell has
// room for the legend line.
TEST(PreviewGridTest, LabelMapsColourClassesAndHatchIgnore) {
  const int width = 240, height = 60;
  PreviewSample sample = GreySample(width, height, 0, 0, 0, 0);
  sample.num_classes = 3;
  const auto paint = [&](int x0, int x1, uint8_t value) {
    for (int y = 0; y < height; ++y)
      for (int x = x0; x < x1; ++x) sample.mask[static_cast<size_t>(y) * width + x] = value;
  };
  paint(60, 120, 1);
  paint(120, 180, 2);
  paint(180, 240, 255);
  const PreviewGridLayout layout = PlanPreviewGrid(1, width, height, true);
  EXPECT_EQ(layout.cell_height, height + kPreviewLabelHeight + kPreviewLegendHeight);
  const std::vector<uint8_t> grid = RenderPreviewGrid(std::span(&sample, 1), layout);
  const int ox = kPreviewGap, oy = kPreviewGap;
  const uint8_t* background = GridPixel(grid, layout, ox + 30, oy + 30);
  EXPECT_EQ(background[0], 100);
  for (const auto& [x, label] : {std::pair{90, 1}, std::pair{150, 2}}) {
    const uint8_t* p = GridPixel(grid, layout, ox + x, oy + 30);
    const output::LabelRgb colour = output::LabelColour(label, 3);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(p[c], (1 - kPreviewLabelOpacity) * 100 + kPreviewLabelOpacity * colour[c], 1.0);
  }
  // The hatch: 2x2 blocks of the ignore colour on a checkerboard.
  const uint8_t* hatched = GridPixel(grid, layout, ox + 180, oy + 0);
  const uint8_t* plain = GridPixel(grid, layout, ox + 182, oy + 0);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(hatched[c], output::kIgnoreColour[c]);
    EXPECT_EQ(plain[c], 100);
  }
}

TEST(PreviewGridTest, LabelsNameTheSampleAndItsParameters) {
  PreviewSample sample = GreySample(32, 32, 0, 0, 1, 1);
  sample.params.flip_lr = true;
  sample.params.angle_deg = -37.25;
  sample.params.contrast_factor = 0.52;
  sample.params.brightness_delta = 0.11;
  sample.params.saturation_factor = 0.47;
  sample.params.hue_delta = -0.08;
  std::vector<std::string> lines = PreviewLabelLines(sample);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "#3 cafe0001_01");
  EXPECT_EQ(lines[1], "flip lr, rot -37.2 deg");
  EXPECT_EQ(lines[2], "c 0.52 b +0.11 s 0.47 h -0.08");

  sample.params = AugmentParams{};
  sample.params.flip_ud = true;
  lines = PreviewLabelLines(sample);
  EXPECT_EQ(lines[1], "flip ud, rot +0.0 deg");
  EXPECT_EQ(lines[2], "no colour jitter");
}

// Named classes: the legend writes each class's name after its id, and
// nothing else in the grid changes.
TEST(PreviewGridTest, LegendNamesTheClassesWhenNamed) {
  const int width = 240, height = 60;
  PreviewSample sample = GreySample(width, height, 0, 0, 0, 0);
  sample.num_classes = 3;
  for (int y = 0; y < height; ++y)
    for (int x = 120; x < 180; ++x) sample.mask[static_cast<size_t>(y) * width + x] = 2;
  const PreviewGridLayout layout = PlanPreviewGrid(1, width, height, true);
  const std::vector<uint8_t> plain = RenderPreviewGrid(std::span(&sample, 1), layout);
  const std::vector<std::string> names = {"background", "road", "vegetation"};
  const std::vector<uint8_t> named = RenderPreviewGrid(std::span(&sample, 1), layout, names);
  // The rightmost column of the label band (its lines and the legend) with
  // ink: anything but the band's own colour, read at its last column. The
  // label lines are the same in both, so a longer extent is the legend's.
  const int band_top = kPreviewGap + height;
  const auto ink_extent = [&](const std::vector<uint8_t>& grid) {
    int extent = -1;
    for (int y = band_top; y < band_top + kPreviewLabelHeight + kPreviewLegendHeight; ++y) {
      const uint8_t* blank = GridPixel(grid, layout, kPreviewGap + layout.cell_width - 1, y);
      for (int x = kPreviewGap; x < kPreviewGap + layout.cell_width; ++x) {
        const uint8_t* p = GridPixel(grid, layout, x, y);
        if (p[0] != blank[0] || p[1] != blank[1] || p[2] != blank[2]) extent = std::max(extent, x);
      }
    }
    return extent;
  };
  const int plain_extent = ink_extent(plain), named_extent = ink_extent(named);
  EXPECT_GT(plain_extent, kPreviewGap);
  EXPECT_GT(named_extent, plain_extent + 30);  // "0 background", "2 vegetation"
  for (int y = 0; y < band_top; ++y) {
    for (int x = 0; x < layout.width; ++x) {
      ASSERT_EQ(std::memcmp(GridPixel(plain, layout, x, y), GridPixel(named, layout, x, y), 3), 0)
          << x << "," << y;
    }
  }
}

TEST(PreviewGridTest, LongestLabelFitsTheMinimumCell) {
  // A narrow image gets the minimum cell width; the widest label lines must
  // end before the label band's last columns.
  PreviewSample sample = GreySample(32, 20, 0, 0, 1, 1);
  sample.sample_id = 99999;
  sample.stem = "ffffffff_16";
  sample.params.flip_lr = sample.params.flip_ud = true;
  sample.params.angle_deg = -179.95;
  sample.params.contrast_factor = 0.6;
  sample.params.brightness_delta = -0.2;
  sample.params.saturation_factor = 0.6;
  sample.params.hue_delta = -0.2;
  const PreviewGridLayout layout = PlanPreviewGrid(1, sample.width, sample.height);
  ASSERT_EQ(layout.cell_width, kPreviewMinCellWidth);
  const std::vector<uint8_t> grid = RenderPreviewGrid(std::span(&sample, 1), layout);
  const int label_x = kPreviewGap, label_y = kPreviewGap + sample.height;
  for (int y = label_y; y < label_y + kPreviewLabelHeight; ++y) {
    for (int x = label_x + kPreviewMinCellWidth - 3; x < label_x + kPreviewMinCellWidth; ++x) {
      const uint8_t* p = GridPixel(grid, layout, x, y);
      ASSERT_EQ(p[0], p[1]) << x << "," << y;
      ASSERT_LT(p[0], 40) << "text reaches the cell's edge at " << x << "," << y;
    }
  }
}

class PreviewCollectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    demo::DemoOptions demo;
    demo.count = 7;
    demo.width = 160;
    demo.height = 106;
    ASSERT_TRUE(demo::WriteDemoDataset(dir_.path(), demo, {}).ok());
    options_.batch_size = 3;
    options_.threads = 2;
    options_.seed = 11;
    options_.augment.output_width = 64;
    options_.augment.output_height = 48;
    options_.output.image_dtype = ElementType::kUint8;
    options_.output.mask_dtype = ElementType::kUint8;
    options_.pinned = PinnedMode::kOff;
  }
  TempDir dir_;
  LoaderOptions options_;
};

TEST_F(PreviewCollectTest, CopiesTheLoadersSamplesInStreamOrder) {
  Loader preview_loader(DatasetSpec::Carvana(dir_.path()), options_);
  const std::vector<PreviewSample> samples = CollectPreviewSamples(preview_loader, 1, 5, {});
  ASSERT_EQ(samples.size(), 5u);

  Loader loader(DatasetSpec::Carvana(dir_.path()), options_);
  loader.StartEpoch(1);
  size_t index = 0;
  while (index < samples.size()) {
    std::optional<Lease> lease = loader.Next();
    ASSERT_TRUE(lease.has_value());
    const size_t image_bytes = 64 * 48 * 3, mask_bytes = 64 * 48;
    for (int slot = 0; slot < lease->size() && index < samples.size(); ++slot, ++index) {
      const PreviewSample& sample = samples[index];
      EXPECT_EQ(sample.sample_id, lease->sample_ids()[slot]);
      EXPECT_EQ(sample.stem, loader.dataset().pairs[sample.sample_id].stem);
      EXPECT_EQ(sample.params, lease->params()[slot]);
      ASSERT_EQ(sample.width, 64);
      ASSERT_EQ(sample.height, 48);
      const auto* image = static_cast<const uint8_t*>(lease->images().data) + slot * image_bytes;
      const auto* mask = static_cast<const uint8_t*>(lease->masks().data) + slot * mask_bytes;
      EXPECT_EQ(std::memcmp(sample.rgb.data(), image, image_bytes), 0) << index;
      EXPECT_EQ(std::memcmp(sample.mask.data(), mask, mask_bytes), 0) << index;
    }
  }
}

TEST_F(PreviewCollectTest, StopsAtTheEndOfTheEpoch) {
  Loader loader(DatasetSpec::Carvana(dir_.path()), options_);
  int last_progress = 0;
  const std::vector<PreviewSample> samples =
      CollectPreviewSamples(loader, 0, 100, [&](int n) { last_progress = n; });
  EXPECT_EQ(samples.size(), 7u);
  EXPECT_EQ(last_progress, 7);
}

TEST_F(PreviewCollectTest, RefusesFloatImages) {
  options_.output.image_dtype = ElementType::kFloat32;
  Loader loader(DatasetSpec::Carvana(dir_.path()), options_);
  EXPECT_THROW(CollectPreviewSamples(loader, 0, 2, {}), std::invalid_argument);
}

// Preview draws the masks bench would stream, in their dtype: a binary
// float32 mask as the uint8 one, and a label map of int32/int64 with
// ignore_index -100 as the uint8 map with 255, pixel for pixel (a value
// outside 0-255 is ignore, 255).
TEST_F(PreviewCollectTest, MasksOfEveryDtypeDrawAsTheUint8Ones) {
  const auto collect = [&](const fs::path& root, const LoaderOptions& options, int num_classes) {
    Loader loader(DatasetSpec::Carvana(root), options);
    return CollectPreviewSamples(loader, 0, 5, {}, num_classes);
  };
  const auto expect_same_masks = [](const std::vector<PreviewSample>& a,
                                    const std::vector<PreviewSample>& b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].mask, b[i].mask) << what << " " << i;
  };
  const std::vector<PreviewSample> binary = collect(dir_.path(), options_, 0);
  LoaderOptions float_masks = options_;
  float_masks.output.mask_dtype = ElementType::kFloat32;
  expect_same_masks(collect(dir_.path(), float_masks, 0), binary, "float32");

  TempDir labelled;
  demo::DemoOptions demo;
  demo.count = 5;
  demo.width = 96;
  demo.height = 64;
  demo.classes = 5;
  demo.mask_format = demo::DemoMaskFormat::kGrey;  // ids 0-4, no 255 band
  ASSERT_TRUE(demo::WriteDemoDataset(labelled.path(), demo, {}).ok());
  LoaderOptions labels = options_;
  labels.decode.mask_mode = MaskMode::kLabels;
  labels.decode.num_classes = 4;
  labels.decode.label_map = {{1, 0}, {2, 1}, {3, 2}, {4, 3}};  // 0 left out: ignore
  const std::vector<PreviewSample> uint8_255 = collect(labelled.path(), labels, 4);
  size_t ignored = 0;
  for (const PreviewSample& sample : uint8_255)
    ignored += static_cast<size_t>(std::count(sample.mask.begin(), sample.mask.end(), 255));
  EXPECT_GT(ignored, 0u);
  labels.decode.ignore_index = -100;
  for (const ElementType dtype : {ElementType::kInt32, ElementType::kInt64}) {
    labels.output.mask_dtype = dtype;
    expect_same_masks(collect(labelled.path(), labels, 4), uint8_255,
                      std::string(ElementTypeName(dtype)));
  }
}

}  // namespace
}  // namespace segfeed::cli
