#include "augment/sample_augmenter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>

#include "segfeed/errors.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::HalfResolution;
using segfeed::testing::RenderDemoScene;
using segfeed::testing::View;

struct Sample {
  std::vector<uint8_t> image;
  std::vector<uint8_t> mask;
  bool operator==(const Sample&) const = default;
};

constexpr int kSize = 128;

Sample RunOne(SampleAugmenter& augmenter, const AugmentParams& params, const WarpSource& source) {
  const OutputConverter& converter = augmenter.converter();
  Sample out;
  out.image.resize(kSize * kSize * 3 * ElementBytes(converter.options().image_dtype));
  out.mask.resize(kSize * kSize * ElementBytes(converter.options().mask_dtype));
  augmenter.Run(params, source, converter.DenseImage(out.image.data(), kSize, kSize),
                converter.DenseMask(out.mask.data(), kSize));
  return out;
}

class SampleAugmenterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scene_ = RenderDemoScene(3);
    half_ = HalfResolution(scene_.image);
    source_ = {View(half_), View(scene_.mask), 0.5};
    options_.output_width = kSize;
    options_.output_height = kSize;
  }
  segfeed::testing::DemoScene scene_;
  cv::Mat half_;
  WarpSource source_;
  AugmentOptions options_;
};

TEST_F(SampleAugmenterTest, SameKeyGivesIdenticalBytesOnAnyThread) {
  OutputOptions output;
  output.image_dtype = ElementType::kFloat16;
  output.layout = Layout::kNCHW;
  constexpr int kSamples = 24;
  std::vector<Sample> serial;
  {
    SampleAugmenter augmenter(options_, output);
    for (int id = 0; id < kSamples; ++id)
      serial.push_back(RunOne(augmenter, DrawAugmentParams(options_, 17, 2, id), source_));
  }
  // Four threads, each its own augmenter, samples interleaved in a
  // different order: every sample's bytes must match the serial run.
  std::vector<Sample> parallel(kSamples);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SampleAugmenter augmenter(options_, output);
      for (int id = kSamples - 1 - t; id >= 0; id -= 4)
        parallel[id] = RunOne(augmenter, DrawAugmentParams(options_, 17, 2, id), source_);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int id = 0; id < kSamples; ++id) EXPECT_TRUE(parallel[id] == serial[id]) << id;
}

TEST_F(SampleAugmenterTest, DifferentEpochsGiveDifferentBytes) {
  SampleAugmenter augmenter(options_, OutputOptions{});
  const Sample a = RunOne(augmenter, DrawAugmentParams(options_, 17, 0, 5), source_);
  const Sample b = RunOne(augmenter, DrawAugmentParams(options_, 17, 1, 5), source_);
  EXPECT_FALSE(a.image == b.image);
}

TEST_F(SampleAugmenterTest, DirectUint8AndFloatPathsAgree) {
  OutputOptions u8;
  u8.image_dtype = ElementType::kUint8;
  u8.mask_dtype = ElementType::kUint8;
  SampleAugmenter direct(options_, u8);
  SampleAugmenter scaled(options_, OutputOptions{});  // float32 NHWC
  for (int id = 0; id < 8; ++id) {
    const AugmentParams params = DrawAugmentParams(options_, 3, 0, id);
    const Sample a = RunOne(direct, params, source_);
    const Sample b = RunOne(scaled, params, source_);
    int mismatches = 0;
    for (size_t i = 0; i < a.image.size(); ++i) {
      float value;
      std::memcpy(&value, &b.image[i * 4], 4);
      mismatches += value != a.image[i] / 255.0f;
    }
    for (size_t i = 0; i < a.mask.size(); ++i) {
      float value;
      std::memcpy(&value, &b.mask[i * 4], 4);
      mismatches += value != a.mask[i];
      mismatches += a.mask[i] > 1;
    }
    EXPECT_EQ(mismatches, 0) << id;
  }
}

TEST_F(SampleAugmenterTest, ConstructorValidatesBothOptionStructs) {
  AugmentOptions bad = options_;
  bad.output_width = 0;
  EXPECT_THROW(SampleAugmenter(bad, OutputOptions{}), ConfigError);
  OutputOptions bad_output;
  bad_output.normalize = true;
  bad_output.std[0] = -1;
  EXPECT_THROW(SampleAugmenter(options_, bad_output), ConfigError);
}

}  // namespace
}  // namespace segfeed::augment
