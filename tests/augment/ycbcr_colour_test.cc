#include "augment/ycbcr_colour.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "kernel_scopes.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::MutableView;
using segfeed::testing::NoiseImage;
using segfeed::testing::View;

// Matrices the kernels meet: the linear model's (default ranges and beyond
// them), and one whose coefficients and offsets drive most pixels past
// both ends of 0..255.
std::vector<ColourMatrix> Matrices() {
  AugmentParams mild;
  mild.contrast_factor = 0.8, mild.brightness_delta = 0.1;
  mild.saturation_factor = 1.3, mild.hue_delta = 0.07;
  AugmentParams strong;
  strong.contrast_factor = 3.0, strong.brightness_delta = -0.4;
  strong.saturation_factor = 4.0, strong.hue_delta = -0.45;
  const std::array<double, 3> means = {110.0, 131.0, 120.0};
  return {LinearColourFromYCbCr(mild, means), LinearColourFromYCbCr(strong, means),
          LinearColourFromRgb(mild, means), LinearColourFromRgb({}, means),
          ColourMatrix{3.5, -2.25, 0.75, -40, -1.5, 2.0, 1.25, 30, 0.1, 0.2, -4.0, 600}};
}

// The matrix in doubles, rounded once: the fixed-point kernels may differ
// from it by the rounding of their 12-bit coefficients only.
uint8_t ByFormula(const ColourMatrix& m, int row, int a, int b, int c) {
  const double value = m[4 * row] * a + m[4 * row + 1] * b + m[4 * row + 2] * c + m[4 * row + 3];
  return static_cast<uint8_t>(std::clamp(std::floor(value + 0.5), 0.0, 255.0));
}

// Planar uint8 output of the planar entry point, one plane per channel.
cv::Mat ThroughPlanes(const ColourMatrix& matrix, const cv::Mat& rgb,
                      const OutputConverter& converter) {
  cv::Mat planes[3];
  cv::split(rgb, planes);
  const std::array<MutableRasterView, 3> views = {MutableView(planes[0]), MutableView(planes[1]),
                                                  MutableView(planes[2])};
  cv::Mat out(rgb.rows, rgb.cols, CV_8UC3, cv::Scalar::all(7));
  ApplyColourMatrixAndConvert(matrix, views, converter,
                              converter.DenseImage(out.data, rgb.cols, rgb.rows));
  return out;
}

cv::Mat ThroughPixels(const ColourMatrix& matrix, const cv::Mat& rgb,
                      const OutputConverter& converter) {
  cv::Mat out(rgb.rows, rgb.cols, CV_8UC3, cv::Scalar::all(7));
  ApplyColourMatrixAndConvert(matrix, View(rgb), converter,
                              converter.DenseImage(out.data, rgb.cols, rgb.rows));
  return out;
}

// Every kernel width, planes or pixels in, gives the one-pixel code's bytes,
// within a level of the formula, for widths with tails after the 16-pixel
// steps and after the 512-pixel chunks.
TEST(ColourMatrixTest, KernelsAndInputFormsAgreeAndFollowTheFormula) {
  const OutputConverter converter{OutputOptions{.image_dtype = ElementType::kUint8}};
  for (int width : {1, 15, 16, 17, 77, 530}) {
    const cv::Mat rgb = NoiseImage(width, 5, 3, 90 + width);
    for (const ColourMatrix& matrix : Matrices()) {
      cv::Mat expected;
      {
        ScopedOnePixelKernels one_pixel;
        expected = ThroughPixels(matrix, rgb, converter);
        EXPECT_EQ(cv::norm(ThroughPlanes(matrix, rgb, converter), expected, cv::NORM_INF), 0);
      }
      for (int y = 0; y < rgb.rows; ++y)
        for (int x = 0; x < width; ++x) {
          const cv::Vec3b in = rgb.at<cv::Vec3b>(y, x), out = expected.at<cv::Vec3b>(y, x);
          for (int row = 0; row < 3; ++row)
            ASSERT_LE(std::abs(out[row] - ByFormula(matrix, row, in[0], in[1], in[2])), 1)
                << "width " << width << " pixel " << x << "," << y << " channel " << row;
        }
      ScopedAvx2Kernels vector;  // the same bytes where the CPU has AVX2
      EXPECT_EQ(cv::norm(ThroughPixels(matrix, rgb, converter), expected, cv::NORM_INF), 0)
          << "width " << width;
      EXPECT_EQ(cv::norm(ThroughPlanes(matrix, rgb, converter), expected, cv::NORM_INF), 0)
          << "width " << width;
    }
  }
}

// The pass writes through the converter: float32 NCHW holds what the plain
// conversion of the uint8 result holds, and uint8 NHWC may be the input's
// own memory.
TEST(ColourMatrixTest, WritesEveryDtypeAndMayRunInPlace) {
  const cv::Mat rgb = NoiseImage(77, 6, 3, 5);
  const ColourMatrix matrix = Matrices()[0];
  const OutputConverter bytes{OutputOptions{.image_dtype = ElementType::kUint8}};
  const cv::Mat levels = ThroughPixels(matrix, rgb, bytes);

  OutputOptions floats;
  floats.image_dtype = ElementType::kFloat32;
  floats.layout = Layout::kNCHW;
  floats.normalize = true;
  const OutputConverter converter(floats);
  std::vector<float> fused(size_t{3} * rgb.cols * rgb.rows, -1.0f), expected(fused.size(), -2.0f);
  ApplyColourMatrixAndConvert(matrix, View(rgb), converter,
                              converter.DenseImage(fused.data(), rgb.cols, rgb.rows));
  converter.ConvertImage(View(levels), converter.DenseImage(expected.data(), rgb.cols, rgb.rows));
  EXPECT_TRUE(fused == expected);

  cv::Mat in_place = rgb.clone();
  ApplyColourMatrixAndConvert(matrix, View(in_place), bytes,
                              bytes.DenseImage(in_place.data, rgb.cols, rgb.rows));
  EXPECT_EQ(cv::norm(in_place, levels, cv::NORM_INF), 0);
}

// YCbCr -> RGB is libjpeg's jdcolor.c, on every kernel width, over a grid
// of the whole cube (a width that leaves a vector tail), with the sums of
// the levels it wrote.
TEST(ColourMatrixTest, YCbCrToRgbIsLibjpegsConversion) {
  constexpr int kSteps = 19;  // levels 0, 14, ..., 252, and 255
  auto level = [](int step) { return std::min(255, 14 * step); };
  const int width = kSteps * kSteps * kSteps;
  auto fix = [](double value) { return static_cast<int>(value * 65536 + 0.5); };
  for (int kernel = 0; kernel < 2; ++kernel) {
    std::optional<ScopedOnePixelKernels> one_pixel;
    if (kernel == 1) one_pixel.emplace();
    cv::Mat planes[3];
    for (cv::Mat& plane : planes) plane.create(1, width, CV_8UC1);
    for (int i = 0; i < width; ++i) {
      planes[0].at<uint8_t>(0, i) = static_cast<uint8_t>(level(i / (kSteps * kSteps)));
      planes[1].at<uint8_t>(0, i) = static_cast<uint8_t>(level(i / kSteps % kSteps));
      planes[2].at<uint8_t>(0, i) = static_cast<uint8_t>(level(i % kSteps));
    }
    const cv::Mat ycbcr[3] = {planes[0].clone(), planes[1].clone(), planes[2].clone()};
    ChannelSums sums{0, 0, 0};
    YCbCrToRgbInPlace({MutableView(planes[0]), MutableView(planes[1]), MutableView(planes[2])},
                      &sums);
    ChannelSums expected_sums{0, 0, 0};
    for (int i = 0; i < width; ++i) {
      const int y = ycbcr[0].at<uint8_t>(0, i);
      const int cb = ycbcr[1].at<uint8_t>(0, i) - 128, cr = ycbcr[2].at<uint8_t>(0, i) - 128;
      const int rgb[3] = {
          std::clamp(y + ((fix(1.402) * cr + 32768) >> 16), 0, 255),
          std::clamp(y + ((-fix(0.34414) * cb - fix(0.71414) * cr + 32768) >> 16), 0, 255),
          std::clamp(y + ((fix(1.772) * cb + 32768) >> 16), 0, 255)};
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(planes[c].at<uint8_t>(0, i), rgb[c])
            << "Y " << y << " Cb " << cb + 128 << " Cr " << cr + 128 << " kernel " << kernel;
        expected_sums[c] += static_cast<uint64_t>(rgb[c]);
      }
    }
    EXPECT_EQ(sums, expected_sums) << "kernel " << kernel;
  }
}

}  // namespace
}  // namespace segfeed::augment
