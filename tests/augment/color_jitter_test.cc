#include "augment/color_jitter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::DescribeJitter;
using segfeed::testing::MaxAbsDiff;
using segfeed::testing::MutableView;
using segfeed::testing::NoiseImage;
using segfeed::testing::RenderDemoScene;

cv::Mat Fast(const AugmentParams& params, const cv::Mat& image) {
  cv::Mat out = image.clone();
  ApplyColorJitter(params, MutableView(out));
  return out;
}

cv::Mat Reference(const AugmentParams& params, const cv::Mat& image) {
  cv::Mat out = image.clone();
  ApplyColorJitterReference(params, MutableView(out));
  return out;
}

cv::Mat OnePixel(uint8_t r, uint8_t g, uint8_t b) {
  return cv::Mat(1, 1, CV_8UC3, cv::Scalar(r, g, b));
}

cv::Vec3b Pixel(const cv::Mat& m) { return m.at<cv::Vec3b>(0, 0); }

TEST(ColorJitterTest, FastPathMatchesFloatReferenceOn100ParameterSets) {
  // Noise hits every hue sector and both clamps; a demo crop is a photo.
  const cv::Mat noise = NoiseImage(128, 96, 3, 11);
  const cv::Mat photo = RenderDemoScene(0).image(cv::Rect(600, 400, 160, 120)).clone();
  AugmentOptions defaults;
  AugmentOptions wide;
  wide.contrast_factor = {0.0, 2.0};
  wide.brightness_delta = {-0.5, 0.5};
  wide.saturation_factor = {0.0, 2.5};
  wide.hue_delta = {-0.5, 0.5};
  int worst = 0;
  for (uint64_t id = 0; id < 100; ++id) {
    const AugmentParams params = DrawAugmentParams(id % 2 ? wide : defaults, 5, 0, id);
    for (const cv::Mat* image : {&noise, &photo}) {
      const int diff = MaxAbsDiff(Fast(params, *image), Reference(params, *image));
      worst = std::max(worst, diff);
      EXPECT_LE(diff, 2) << "set " << id << ": " << DescribeJitter(params);
    }
  }
  std::printf("jitter fast path vs reference: max abs diff %d levels\n", worst);
}

TEST(ColorJitterTest, IdentityParamsLeaveImageUntouched) {
  const cv::Mat noise = NoiseImage(50, 30, 3, 3);
  EXPECT_EQ(MaxAbsDiff(Fast({}, noise), noise), 0);
  EXPECT_EQ(MaxAbsDiff(Reference({}, noise), noise), 0);
}

TEST(ColorJitterTest, HueThirdOfTurnMapsRedToGreen) {
  AugmentParams params;
  params.hue_delta = 1.0 / 3.0;
  EXPECT_EQ(Pixel(Fast(params, OnePixel(255, 0, 0))), cv::Vec3b(0, 255, 0));
  EXPECT_EQ(Pixel(Reference(params, OnePixel(255, 0, 0))), cv::Vec3b(0, 255, 0));
  params.hue_delta = -1.0 / 3.0;
  EXPECT_EQ(Pixel(Fast(params, OnePixel(255, 0, 0))), cv::Vec3b(0, 0, 255));
}

TEST(ColorJitterTest, SaturationZeroGivesValueGrey) {
  AugmentParams params;
  params.saturation_factor = 0.0;
  // HSV value is the largest channel.
  EXPECT_EQ(Pixel(Fast(params, OnePixel(200, 50, 100))), cv::Vec3b(200, 200, 200));
  params.saturation_factor = 0.5;
  // Half the distance to the value: 50 -> 125, 100 -> 150.
  EXPECT_EQ(Pixel(Fast(params, OnePixel(200, 50, 100))), cv::Vec3b(200, 125, 150));
}

TEST(ColorJitterTest, BrightnessAddsOnUnitScaleAndClamps) {
  AugmentParams params;
  params.brightness_delta = 0.2;  // 51 levels
  EXPECT_EQ(Pixel(Fast(params, OnePixel(100, 230, 0))), cv::Vec3b(151, 255, 51));
  params.brightness_delta = -0.2;
  EXPECT_EQ(Pixel(Fast(params, OnePixel(100, 30, 255))), cv::Vec3b(49, 0, 204));
}

TEST(ColorJitterTest, ContrastScalesAroundChannelMean) {
  // Two pixels per channel: means 100, 150, 50.
  cv::Mat image(1, 2, CV_8UC3);
  image.at<cv::Vec3b>(0, 0) = {80, 150, 0};
  image.at<cv::Vec3b>(0, 1) = {120, 150, 100};
  AugmentParams params;
  params.contrast_factor = 0.5;
  const cv::Mat out = Fast(params, image);
  EXPECT_EQ(out.at<cv::Vec3b>(0, 0), cv::Vec3b(90, 150, 25));
  EXPECT_EQ(out.at<cv::Vec3b>(0, 1), cv::Vec3b(110, 150, 75));
}

TEST(ColorJitterTest, OpsRunInDocumentedOrder) {
  // Brightness (clamped at 1) before saturation: (255, 100, 100) -> (255,
  // 151, 151) -> halfway to the value: (255, 203, 203). Saturation first
  // would give (255, 228, 228).
  AugmentParams params;
  params.brightness_delta = 0.2;
  params.saturation_factor = 0.5;
  EXPECT_EQ(Pixel(Fast(params, OnePixel(255, 100, 100))), cv::Vec3b(255, 203, 203));
  EXPECT_EQ(Pixel(Reference(params, OnePixel(255, 100, 100))), cv::Vec3b(255, 203, 203));
}

// Without contrast the jitter is a function of each pixel alone, so a pixel
// jittered inside a wide image (8 or 16 pixels a step where AVX2 is available)
// must get the same bits as the same pixel alone (the one-pixel code).
TEST(ColorJitterTest, VectorAndOnePixelPathsGiveSameBits) {
  const cv::Mat noise = NoiseImage(67, 5, 3, 40);
  AugmentOptions wide;
  wide.contrast_enabled = false;
  wide.brightness_delta = {-0.5, 0.5};
  wide.saturation_factor = {0.0, 2.5};
  wide.hue_delta = {-0.5, 0.5};
  for (uint64_t id = 0; id < 20; ++id) {
    const AugmentParams params = DrawAugmentParams(wide, 6, 0, id);
    const cv::Mat whole = Fast(params, noise);
    int mismatches = 0;
    for (int y = 0; y < noise.rows; ++y) {
      for (int x = 0; x < noise.cols; ++x) {
        const cv::Mat alone = Fast(params, noise(cv::Rect(x, y, 1, 1)).clone());
        mismatches += Pixel(alone) != whole.at<cv::Vec3b>(y, x);
      }
    }
    EXPECT_EQ(mismatches, 0) << "set " << id;
  }
}

// The fused jitter + conversion writes exactly what the jitter followed by
// the plain conversion writes, for every dtype and layout, with widths that
// leave tails after the 8-pixel vector steps and the 64-pixel chunks.
TEST(ColorJitterTest, FusedConversionMatchesJitterThenConvert) {
  for (int width : {1, 13, 64, 77, 200}) {
    const cv::Mat image = NoiseImage(width, 9, 3, 21 + width);
    for (int dtype = 0; dtype < 3; ++dtype) {
      for (Layout layout : {Layout::kNHWC, Layout::kNCHW}) {
        OutputOptions output;
        output.image_dtype = static_cast<ElementType>(dtype);
        output.layout = layout;
        output.normalize = dtype != 0 && width % 2 == 1;
        const OutputConverter converter(output);
        const size_t bytes = size_t{3} * width * image.rows * ElementBytes(output.image_dtype);
        for (uint64_t id = 0; id < 4; ++id) {
          AugmentOptions options;
          options.saturation_enabled = options.hue_enabled = id != 3;
          const AugmentParams params = DrawAugmentParams(options, 8, 0, id);
          std::vector<uint8_t> fused(bytes, 0xAB), expected(bytes, 0xCD);
          ASSERT_TRUE(
              ApplyColorJitterAndConvert(params, segfeed::testing::View(image), converter,
                                         converter.DenseImage(fused.data(), width, image.rows)));
          converter.ConvertImage(segfeed::testing::View(Fast(params, image)),
                                 converter.DenseImage(expected.data(), width, image.rows));
          EXPECT_TRUE(fused == expected) << "width " << width << " dtype " << dtype << " layout "
                                         << LayoutName(layout) << " set " << id;
        }
      }
    }
  }
  // Identity parameters write nothing and say so.
  const cv::Mat image = NoiseImage(8, 2, 3, 1);
  const OutputConverter converter{OutputOptions{}};
  std::vector<float> out(3 * 8 * 2, -1.0f);
  EXPECT_FALSE(ApplyColorJitterAndConvert({}, segfeed::testing::View(image), converter,
                                          converter.DenseImage(out.data(), 8, 2)));
  EXPECT_EQ(out[0], -1.0f);
}

}  // namespace
}  // namespace segfeed::augment
