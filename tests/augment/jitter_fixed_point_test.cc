#include "augment/jitter_fixed_point.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <opencv2/core.hpp>

#include "augment/color_jitter.h"
#include "augment/simd_dispatch.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::DescribeJitter;
using segfeed::testing::MaxAbsDiff;
using segfeed::testing::MutableView;
using segfeed::testing::NoiseImage;

// The ranges the fixed-point path takes: factors up to 1, any hue and
// brightness.
AugmentOptions FixedPointRanges() {
  AugmentOptions options;
  options.contrast_factor = {0.0, 1.0};
  options.brightness_delta = {-0.5, 0.5};
  options.saturation_factor = {0.0, 1.0};
  options.hue_delta = {-0.5, 0.5};
  return options;
}

// Every 5th level of every channel: 52^3 colours, all hue sectors, greys and
// saturated corners.
cv::Mat ColourGrid() {
  std::vector<cv::Vec3b> colours;
  for (int r = 0; r < 256; r += 5)
    for (int g = 0; g < 256; g += 5)
      for (int b = 0; b < 256; b += 5)
        colours.emplace_back(static_cast<uint8_t>(r), static_cast<uint8_t>(g),
                             static_cast<uint8_t>(b));
  return cv::Mat(static_cast<int>(colours.size()) / 52, 52, CV_8UC3, colours.data()).clone();
}

// Runs the fixed-point kernels over `image` as the library does, a row at a
// time: the AVX2 steps (when `vector`) and the one-pixel tail.
// Which kernel RunFixedPoint starts each row with; the scalar one finishes it.
enum class Kernel { kScalar, kAvx2, kAvx512 };

cv::Mat RunFixedPoint(const FixedPointJitter& jitter, const cv::Mat& image, Kernel kernel) {
  cv::Mat out(image.size(), CV_8UC3);
  std::vector<uint8_t> r(image.cols), g(image.cols), b(image.cols);
  for (int y = 0; y < image.rows; ++y) {
    const uint8_t* row = image.ptr<uint8_t>(y);
    int done = 0;
    if (kernel == Kernel::kAvx2)
      done = jitter.RunAvx2(row, image.cols, r.data(), g.data(), b.data());
    if (kernel == Kernel::kAvx512)
      done = jitter.RunAvx512(row, image.cols, r.data(), g.data(), b.data());
    jitter.RunScalar(row, done, image.cols, r.data(), g.data(), b.data());
    for (int x = 0; x < image.cols; ++x) out.at<cv::Vec3b>(y, x) = {r[x], g[x], b[x]};
  }
  return out;
}

TEST(FixedPointJitterTest, TakesFactorsUpToOneOnly) {
  AugmentParams params;
  params.contrast_factor = 0.5;
  params.saturation_factor = 1.0;
  EXPECT_TRUE(FixedPointJitter::For(params, {0.5, 0.5, 0.5}).has_value());
  params.saturation_factor = 1.01;
  EXPECT_FALSE(FixedPointJitter::For(params, {0.5, 0.5, 0.5}).has_value());
  params.saturation_factor = 0.5;
  params.contrast_factor = 1.5;
  EXPECT_FALSE(FixedPointJitter::For(params, {0.5, 0.5, 0.5}).has_value());
}

// Within 1 level of the double-precision reference for every colour of the
// grid, over 40 parameter sets. Contrast uses the grid's own means, as the
// library does.
TEST(FixedPointJitterTest, WithinOneLevelOfReferenceOnColourGrid) {
  const cv::Mat grid = ColourGrid();
  const cv::Scalar grid_mean = cv::mean(grid);
  const std::array<double, 3> means{grid_mean[0] / 255.0, grid_mean[1] / 255.0,
                                    grid_mean[2] / 255.0};
  int worst = 0;
  for (uint64_t id = 0; id < 40; ++id) {
    const AugmentParams params = DrawAugmentParams(FixedPointRanges(), 3, 0, id);
    const auto jitter = FixedPointJitter::For(params, means);
    ASSERT_TRUE(jitter.has_value());
    cv::Mat reference = grid.clone();
    ApplyColorJitterReference(params, MutableView(reference));
    const int diff = MaxAbsDiff(RunFixedPoint(*jitter, grid, Kernel::kScalar), reference);
    worst = std::max(worst, diff);
    EXPECT_LE(diff, 1) << "set " << id << ": " << DescribeJitter(params);
  }
  std::printf("fixed-point jitter vs reference on the colour grid: max abs diff %d\n", worst);
}

// Hue shifts that land on sextant boundaries, whole turns and their
// neighbours: the wrap into the next sextant must not jump.
TEST(FixedPointJitterTest, HueShiftsOnSextantBoundaries) {
  const cv::Mat grid = ColourGrid();
  for (double hue : {-0.5, -1.0 / 3, -1.0 / 6, -1e-6, 0.0, 1e-6, 1.0 / 6, 0.25, 1.0 / 3, 0.5}) {
    for (double saturation : {0.0, 0.5, 1.0}) {
      AugmentParams params;
      params.hue_delta = hue;
      params.saturation_factor = saturation;
      const auto jitter = FixedPointJitter::For(params, {0, 0, 0});
      ASSERT_TRUE(jitter.has_value());
      cv::Mat reference = grid.clone();
      ApplyColorJitterReference(params, MutableView(reference));
      EXPECT_LE(MaxAbsDiff(RunFixedPoint(*jitter, grid, Kernel::kScalar), reference), 1)
          << "hue " << hue << " saturation " << saturation;
    }
  }
}

// Random draws, then the branches they never take: each op off, factors
// of exactly 0 and 1, the widest brightness, shifts on sextant edges.
std::vector<AugmentParams> KernelTestSets() {
  std::vector<AugmentParams> sets;
  for (uint64_t id = 0; id < 100; ++id)
    sets.push_back(DrawAugmentParams(FixedPointRanges(), 4, 0, id));
  for (double contrast : {0.0, 0.7, 1.0})
    for (double brightness : {-1.0, 0.0, 1.0})
      for (double saturation : {0.0, 0.6, 1.0})
        for (double hue : {-0.5, -1.0 / 6, 0.0, 1.0 / 3, 0.5}) {
          AugmentParams params;
          params.contrast_factor = contrast;
          params.brightness_delta = brightness;
          params.saturation_factor = saturation;
          params.hue_delta = hue;
          sets.push_back(params);
        }
  return sets;
}

TEST(FixedPointJitterTest, Avx512AndOnePixelKernelsGiveSameBits) {
  if (!CpuHasAvx512()) GTEST_SKIP() << "no AVX-512 on this CPU (or SEGFEED_NO_AVX512 set)";
  // 32-pixel steps plus a tail of 23.
  const cv::Mat noise = NoiseImage(32 * 5 + 23, 40, 3, 78);
  const std::vector<AugmentParams> sets = KernelTestSets();
  for (size_t id = 0; id < sets.size(); ++id) {
    const auto jitter = FixedPointJitter::For(sets[id], {0.3 + 0.004 * id, 0.5, 0.6});
    ASSERT_TRUE(jitter.has_value());
    const cv::Mat vector = RunFixedPoint(*jitter, noise, Kernel::kAvx512);
    const cv::Mat one_pixel = RunFixedPoint(*jitter, noise, Kernel::kScalar);
    EXPECT_EQ(cv::norm(vector, one_pixel, cv::NORM_INF), 0.0) << "set " << id;
  }
}

TEST(FixedPointJitterTest, Avx2AndOnePixelKernelsGiveSameBits) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU (or SEGFEED_NO_AVX2 set)";
  // 16-pixel steps plus a tail of 7.
  const cv::Mat noise = NoiseImage(16 * 9 + 7, 40, 3, 77);
  const std::vector<AugmentParams> sets = KernelTestSets();
  for (size_t id = 0; id < sets.size(); ++id) {
    const AugmentParams& params = sets[id];
    const auto jitter = FixedPointJitter::For(params, {0.3 + 0.004 * id, 0.5, 0.6});
    ASSERT_TRUE(jitter.has_value());
    const cv::Mat vector = RunFixedPoint(*jitter, noise, Kernel::kAvx2);
    const cv::Mat one_pixel = RunFixedPoint(*jitter, noise, Kernel::kScalar);
    EXPECT_EQ(cv::norm(vector, one_pixel, cv::NORM_INF), 0.0) << "set " << id;
  }
}

}  // namespace
}  // namespace segfeed::augment
