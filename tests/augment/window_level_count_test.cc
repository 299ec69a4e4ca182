// CountWindowLevels() against the warp it replaces for crop_max_class_ratio:
// the levels of the window WarpMaskOnly() writes, counted, for every window
// it takes on (unturned), and a refusal for the windows it leaves to the warp.
#include "augment/window_level_count.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "augment/affine_warp.h"
#include "segfeed/augment.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::MutableView;
using segfeed::testing::View;

// A label map of `width` x `height`: blocks of classes 0-5 of uneven sizes,
// so that a shifted or flipped window counts differently, and a one-pixel
// band of ignore (255) through it.
cv::Mat LabelMap(int width, int height) {
  cv::Mat map(height, width, CV_8UC1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      map.at<uint8_t>(y, x) = static_cast<uint8_t>((x * 7 / (y % 5 + 3) + y / 4) % 6);
  map.col(width / 3).setTo(255);
  map.row(height / 2).setTo(255);
  return map;
}

struct Case {
  std::string name;
  AugmentOptions options;
  int mask_width, mask_height;
};

AugmentOptions Recipe(ResizeMode resize, int width, int height, double rotation, FillMode fill) {
  AugmentOptions options;
  options.output_width = width;
  options.output_height = height;
  options.resize = resize;
  options.scale_enabled = true;
  options.scale_factor = {0.3, 3.0};
  options.crop = CropPlacement::kRandom;
  options.crop_max_class_ratio = 0.75;
  options.flip_lr_probability = 0.5;
  options.flip_ud_probability = 0.5;
  options.rotation_fraction = rotation;
  options.fill_mode = fill;
  return options;
}

// Both fills: the ignore value (present in the map, as ChooseWindow() uses
// it) and a level the map lacks, which shows that filled pixels are left
// out and nothing else is.
TEST(WindowLevelCountTest, CountsWhatTheMaskWarpWritesWithoutWritingIt) {
  const std::vector<Case> cases = {
      {"keep_ratio", Recipe(ResizeMode::kKeepRatio, 64, 48, 0, FillMode::kConstant), 90, 67},
      {"stretch odd", Recipe(ResizeMode::kStretch, 37, 53, 0, FillMode::kConstant), 41, 29},
      {"short_side reflect", Recipe(ResizeMode::kShortSide, 40, 40, 0, FillMode::kReflect), 75, 31},
      {"long_side turns", Recipe(ResizeMode::kLongSide, 48, 32, 0.5, FillMode::kConstant), 60, 90},
      {"keep_ratio turns reflect", Recipe(ResizeMode::kKeepRatio, 33, 33, 0.5, FillMode::kReflect),
       50, 70},
  };
  LevelCountScratch scratch;
  for (const Case& c : cases) {
    const cv::Mat map = LabelMap(c.mask_width, c.mask_height);
    cv::Mat warped(c.options.output_height, c.options.output_width, CV_8UC1);
    int counted = 0, refused = 0;
    for (uint64_t id = 0; id < 300; ++id) {
      const AugmentParams params = DrawAugmentParams(c.options, 3, 0, id);
      LevelCounts counts{};
      counts[7] = -1;  // untouched when refused
      const bool taken = CountWindowLevels(c.options, params, View(map), &scratch, &counts);
      if (params.angle_deg != 0) {
        // A turned window is the warp's.
        EXPECT_FALSE(taken) << c.name << " " << id;
        EXPECT_EQ(counts[7], -1) << c.name;
        ++refused;
        continue;
      }
      ASSERT_TRUE(taken) << c.name << " " << id;
      ++counted;
      for (const uint8_t fill : {uint8_t{255}, uint8_t{200}}) {
        WarpMaskOnly(c.options, params, View(map), fill, MutableView(warped));
        LevelCounts expected = CountLevels(warped.data, warped.total());
        const int64_t filled = fill == 200 ? expected[200] : 0;
        expected[200] = 0;  // the map has no 200: only filled pixels
        LevelCounts got = counts;
        if (fill == 255) expected[255] = got[255] = 0;  // fill and ignore alike
        EXPECT_EQ(got, expected) << c.name << " " << id << " fill " << int{fill};
        if (fill == 200) {
          int64_t total = filled;
          for (int64_t count : counts) total += count;
          EXPECT_EQ(total, int64_t{c.options.output_width} * c.options.output_height) << c.name;
        }
      }
    }
    // rotation_fraction turns every window by an angle drawn within it.
    if (c.options.rotation_fraction > 0) {
      EXPECT_GT(refused, 250) << c.name;
    } else {
      EXPECT_EQ(counted, 300) << c.name;
    }
  }
}

// The row runs stay within the output height, so a reserved scratch never
// grows.
TEST(WindowLevelCountTest, ScratchStaysWithinTheOutputSize) {
  const AugmentOptions options = Recipe(ResizeMode::kKeepRatio, 64, 48, 0, FillMode::kReflect);
  LevelCountScratch scratch;
  scratch.rows.reserve(48);
  const IndexRun* rows = scratch.rows.data();
  const cv::Mat map = LabelMap(500, 375);
  for (uint64_t id = 0; id < 100; ++id) {
    LevelCounts counts{};
    ASSERT_TRUE(CountWindowLevels(options, DrawAugmentParams(options, 9, 0, id), View(map),
                                  &scratch, &counts));
  }
  EXPECT_EQ(scratch.rows.data(), rows);
}

}  // namespace
}  // namespace segfeed::augment
