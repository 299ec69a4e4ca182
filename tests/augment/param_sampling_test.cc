#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "segfeed/augment.h"

namespace segfeed {
namespace {

constexpr int kDraws = 10000;

std::vector<AugmentParams> Draw(const AugmentOptions& options, uint64_t seed, uint64_t epoch) {
  std::vector<AugmentParams> out;
  for (uint64_t id = 0; id < kDraws; ++id)
    out.push_back(DrawAugmentParams(options, seed, epoch, id));
  return out;
}

// Fraction of draws where `pick` is true must be p within 0.02 (about four
// standard deviations at 10,000 draws; a wrong probability such as 0.45 for
// 0.5 is well outside).
void ExpectRate(const std::vector<AugmentParams>& draws,
                const std::function<bool(const AugmentParams&)>& pick, double p,
                const std::string& name) {
  const double rate =
      static_cast<double>(std::count_if(draws.begin(), draws.end(), pick)) / draws.size();
  EXPECT_NEAR(rate, p, 0.02) << name;
}

// Values must lie in [lo, hi], reach within 1% of the width of both ends,
// and have the mean and standard deviation of U(lo, hi) within 2% and 5%.
void ExpectUniform(const std::vector<AugmentParams>& draws,
                   const std::function<double(const AugmentParams&)>& value, double lo, double hi,
                   const std::string& name) {
  double min = INFINITY, max = -INFINITY, sum = 0, sum_sq = 0;
  for (const auto& p : draws) {
    const double v = value(p);
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sum_sq += v * v;
  }
  const double width = hi - lo;
  const double mean = sum / draws.size();
  const double sd = std::sqrt(sum_sq / draws.size() - mean * mean);
  EXPECT_GE(min, lo) << name;
  EXPECT_LE(max, hi) << name;
  EXPECT_LT(min, lo + 0.01 * width) << name;
  EXPECT_GT(max, hi - 0.01 * width) << name;
  EXPECT_NEAR(mean, (lo + hi) / 2, 0.02 * width) << name;
  EXPECT_NEAR(sd, width / std::sqrt(12.0), 0.05 * width / std::sqrt(12.0)) << name;
}

TEST(ParamSamplingTest, SameKeyGivesSameParams) {
  const AugmentOptions options;
  for (uint64_t id = 0; id < 100; ++id)
    EXPECT_EQ(DrawAugmentParams(options, 42, 3, id), DrawAugmentParams(options, 42, 3, id));
}

TEST(ParamSamplingTest, DifferentEpochsSeedsAndSamplesGiveDifferentParams) {
  const AugmentOptions options;
  const AugmentParams base = DrawAugmentParams(options, 42, 3, 7);
  EXPECT_NE(base.angle_deg, DrawAugmentParams(options, 42, 4, 7).angle_deg);
  EXPECT_NE(base.angle_deg, DrawAugmentParams(options, 43, 3, 7).angle_deg);
  EXPECT_NE(base.angle_deg, DrawAugmentParams(options, 42, 3, 8).angle_deg);
  // Over many samples, epochs 0 and 1 disagree on nearly every draw.
  int same = 0;
  for (uint64_t id = 0; id < 1000; ++id)
    same += DrawAugmentParams(options, 1, 0, id) == DrawAugmentParams(options, 1, 1, id);
  EXPECT_EQ(same, 0);
}

TEST(ParamSamplingTest, DistributionMatchesDefaults) {
  const auto draws = Draw(AugmentOptions{}, 2024, 0);
  ExpectRate(
      draws, [](const auto& p) { return p.flip_lr; }, 0.5, "flip_lr");
  ExpectRate(
      draws, [](const auto& p) { return p.flip_ud; }, 0.5, "flip_ud");
  ExpectRate(
      draws, [](const auto& p) { return p.flip_lr && p.flip_ud; }, 0.25, "both flips");
  ExpectUniform(
      draws, [](const auto& p) { return p.angle_deg; }, -72, 72, "angle_deg");
  ExpectUniform(
      draws, [](const auto& p) { return p.contrast_factor; }, 0.4, 0.6, "contrast");
  ExpectUniform(
      draws, [](const auto& p) { return p.brightness_delta; }, -0.2, 0.2, "brightness");
  ExpectUniform(
      draws, [](const auto& p) { return p.saturation_factor; }, 0.4, 0.6, "saturation");
  ExpectUniform(
      draws, [](const auto& p) { return p.hue_delta; }, -0.2, 0.2, "hue");
}

TEST(ParamSamplingTest, DistributionFollowsConfiguredRanges) {
  AugmentOptions options;
  options.flip_lr_probability = 0.1;
  options.flip_ud_probability = 0.9;
  options.rotation_fraction = 0.05;  // +-18 degrees
  options.contrast_factor = {1.0, 2.0};
  options.brightness_delta = {0.0, 0.1};
  options.saturation_factor = {0.9, 1.3};
  options.hue_delta = {-0.5, -0.4};
  const auto draws = Draw(options, 9, 5);
  ExpectRate(
      draws, [](const auto& p) { return p.flip_lr; }, 0.1, "flip_lr");
  ExpectRate(
      draws, [](const auto& p) { return p.flip_ud; }, 0.9, "flip_ud");
  ExpectUniform(
      draws, [](const auto& p) { return p.angle_deg; }, -18, 18, "angle_deg");
  ExpectUniform(
      draws, [](const auto& p) { return p.contrast_factor; }, 1.0, 2.0, "contrast");
  ExpectUniform(
      draws, [](const auto& p) { return p.brightness_delta; }, 0.0, 0.1, "brightness");
  ExpectUniform(
      draws, [](const auto& p) { return p.saturation_factor; }, 0.9, 1.3, "saturation");
  ExpectUniform(
      draws, [](const auto& p) { return p.hue_delta; }, -0.5, -0.4, "hue");
}

TEST(ParamSamplingTest, DisabledOpsGiveIdentityAndKeepOthersUnchanged) {
  const AugmentOptions all;
  AugmentOptions some = all;
  some.flip_lr_probability = 0;
  some.rotation_fraction = 0;
  some.contrast_enabled = false;
  some.hue_enabled = false;
  for (uint64_t id = 0; id < 200; ++id) {
    const AugmentParams a = DrawAugmentParams(all, 1, 2, id);
    const AugmentParams b = DrawAugmentParams(some, 1, 2, id);
    EXPECT_FALSE(b.flip_lr);
    EXPECT_EQ(b.angle_deg, 0.0);
    EXPECT_EQ(b.contrast_factor, 1.0);
    EXPECT_EQ(b.hue_delta, 0.0);
    // The ops still on draw exactly what they drew before.
    EXPECT_EQ(a.flip_ud, b.flip_ud);
    EXPECT_EQ(a.brightness_delta, b.brightness_delta);
    EXPECT_EQ(a.saturation_factor, b.saturation_factor);
  }
}

}  // namespace
}  // namespace segfeed
