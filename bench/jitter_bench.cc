// Colour jitter of one 512x512 RGB image in place, one core.

#include <vector>

#include <opencv2/core.hpp>

#include "augment/color_jitter.h"
#include "bench_main.h"
#include "counter_rng.h"

namespace segfeed::bench {
namespace {

constexpr int kSide = 512;

// A smooth gradient with noise, so every hue sector and branch shows up.
cv::Mat TestImage() {
  cv::Mat image(kSide, kSide, CV_8UC3);
  CounterRng rng(7);
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x)
      image.at<cv::Vec3b>(y, x) =
          cv::Vec3b(static_cast<uint8_t>(x / 2), static_cast<uint8_t>(y / 2),
                    static_cast<uint8_t>(rng.NextU64() & 0xff));
  return image;
}

// Arg: 0 = all four ops (default ranges), 1 = contrast + brightness only.
void BM_ColorJitter(benchmark::State& state) {
  const cv::Mat source = TestImage();
  cv::Mat image = source.clone();
  AugmentOptions options;
  if (state.range(0) == 1) options.saturation_enabled = options.hue_enabled = false;
  std::vector<AugmentParams> params;
  for (uint64_t id = 0; id < 16; ++id) params.push_back(DrawAugmentParams(options, 1, 0, id));
  const augment::MutableRasterView view{image.data, kSide, kSide, 3,
                                        static_cast<ptrdiff_t>(image.step)};
  size_t i = 0;
  for (auto _ : state) {
    // Jitter a fresh copy each time so the input stays the same picture; the
    // copy (0.75 MiB) is part of the measured time, a small overestimate.
    source.copyTo(image);
    augment::ApplyColorJitter(params[i++ % params.size()], view);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) == 0 ? "all ops" : "contrast+brightness");
}
BENCHMARK(BM_ColorJitter)->ArgName("ops")->Arg(0)->Arg(1);

// The path the loader takes: jitter fused with the conversion to float32
// NHWC, writing a separate destination (the input stays as it is, no copy).
// Arg: 0 = all four ops, 1 = contrast + brightness only.
void BM_ColorJitterAndConvertFloat32(benchmark::State& state) {
  const cv::Mat source = TestImage();
  AugmentOptions options;
  if (state.range(0) == 1) options.saturation_enabled = options.hue_enabled = false;
  std::vector<AugmentParams> params;
  for (uint64_t id = 0; id < 16; ++id) params.push_back(DrawAugmentParams(options, 1, 0, id));
  const augment::OutputConverter converter{OutputOptions{}};
  std::vector<float> out(size_t{3} * kSide * kSide);
  const augment::StridedImage dst = converter.DenseImage(out.data(), kSide, kSide);
  const augment::RasterView view{source.data, kSide, kSide, 3, static_cast<ptrdiff_t>(source.step)};
  size_t i = 0;
  for (auto _ : state) {
    augment::ApplyColorJitterAndConvert(params[i++ % params.size()], view, converter, dst);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) == 0 ? "all ops" : "contrast+brightness");
}
BENCHMARK(BM_ColorJitterAndConvertFloat32)->ArgName("ops")->Arg(0)->Arg(1);

void BM_ColorJitterReference(benchmark::State& state) {
  const cv::Mat source = TestImage();
  cv::Mat image = source.clone();
  const AugmentParams params = DrawAugmentParams(AugmentOptions{}, 1, 0, 0);
  const augment::MutableRasterView view{image.data, kSide, kSide, 3,
                                        static_cast<ptrdiff_t>(image.step)};
  for (auto _ : state) {
    source.copyTo(image);
    augment::ApplyColorJitterReference(params, view);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ColorJitterReference);

}  // namespace
}  // namespace segfeed::bench

SEGFEED_BENCHMARK_MAIN();
