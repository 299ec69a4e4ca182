// The fused warp (image + mask) to the output size, per sample, one core.
// Sources are make-demo rasters: the image either as a 1/2 DCT decode gives
// it (959x640) or at full resolution (1918x1280, which takes the area
// pre-reduce), the mask always at 1918x1280.

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/affine_warp.h"
#include "augment/color_jitter.h"
#include "augment/sample_augmenter.h"
#include "bench_main.h"
#include "demo/demo_dataset.h"

namespace segfeed::bench {
namespace {

struct Sources {
  cv::Mat full;  // 1918x1280 RGB
  cv::Mat half;  // 959x640 RGB
  cv::Mat mask;  // 1918x1280, 0/1
};

const Sources& DemoSources() {
  static const Sources sources = [] {
    demo::DemoRaster raster;
    demo::RenderDemoSample(demo::DemoOptions{}, 0, &raster);
    Sources s;
    s.full = cv::Mat(raster.height, raster.width, CV_8UC3, raster.rgb.data()).clone();
    s.mask = cv::Mat(raster.height, raster.width, CV_8UC1, raster.mask.data()).clone();
    cv::resize(s.full, s.half, cv::Size(959, 640), 0, 0, cv::INTER_AREA);
    return s;
  }();
  return sources;
}

augment::RasterView View(const cv::Mat& m) {
  return {m.data, m.cols, m.rows, m.channels(), static_cast<ptrdiff_t>(m.step)};
}

// 16 parameter sets from the default options, cycled so the numbers include
// rotations of every angle and both fill paths' typical share.
std::vector<AugmentParams> ParamSets(const AugmentOptions& options) {
  std::vector<AugmentParams> params;
  for (uint64_t id = 0; id < 16; ++id) params.push_back(DrawAugmentParams(options, 1, 0, id));
  return params;
}

// Args: output side, image source (0 = 959x640, 1 = 1918x1280), antialias.
void BM_WarpImageAndMask(benchmark::State& state) {
  const Sources& sources = DemoSources();
  AugmentOptions options;
  options.output_width = options.output_height = static_cast<int>(state.range(0));
  const cv::Mat& image = state.range(1) == 0 ? sources.half : sources.full;
  options.antialias = state.range(2) != 0;
  const auto params = ParamSets(options);
  std::vector<uint8_t> image_out(size_t{3} * options.output_width * options.output_height);
  std::vector<uint8_t> mask_out(size_t{1} * options.output_width * options.output_height);
  const augment::MutableRasterView image_view{image_out.data(), options.output_width,
                                              options.output_height, 3, 3 * options.output_width};
  const augment::MutableRasterView mask_view{mask_out.data(), options.output_width,
                                             options.output_height, 1, options.output_width};
  augment::WarpScratch scratch;
  size_t i = 0;
  for (auto _ : state) {
    augment::WarpImageAndMask(options, params[i++ % params.size()],
                              {View(image), View(sources.mask)}, image_view, mask_view, &scratch);
    benchmark::DoNotOptimize(image_out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  const double scale = static_cast<double>(image.cols) / sources.mask.cols;
  const int factor_x = options.antialias ? augment::PreReduceFactor(
                                               1918.0 * scale / options.output_width, image.cols)
                                         : 1;
  const int factor_y = options.antialias ? augment::PreReduceFactor(
                                               1280.0 * scale / options.output_height, image.rows)
                                         : 1;
  state.SetLabel(std::to_string(image.cols) + "x" + std::to_string(image.rows) + " image, " +
                 (factor_x > 1 || factor_y > 1
                      ? "pre-reduce " + std::to_string(factor_x) + "x" + std::to_string(factor_y)
                      : "no pre-reduce"));
}
BENCHMARK(BM_WarpImageAndMask)
    ->ArgNames({"out", "full_res", "antialias"})
    ->Args({512, 0, 1})
    ->Args({256, 0, 1})
    ->Args({512, 1, 1})
    ->Args({512, 1, 0})
    ->Args({256, 1, 1})
    ->Args({256, 1, 0});

// The pre-reduce alone: area resize of the full-resolution image by the
// factor WarpImageAndMask would pick for the output side.
void BM_PreReduceOnly(benchmark::State& state) {
  const Sources& sources = DemoSources();
  const int side = static_cast<int>(state.range(0));
  const int fx = augment::PreReduceFactor(1918.0 / side, 1918);
  const int fy = augment::PreReduceFactor(1280.0 / side, 1280);
  cv::Mat reduced((1280 + fy / 2) / fy, (1918 + fx / 2) / fx, CV_8UC3);
  for (auto _ : state) {
    cv::resize(sources.full, reduced, reduced.size(), 0, 0, cv::INTER_AREA);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("1918x1280 -> " + std::to_string(reduced.cols) + "x" +
                 std::to_string(reduced.rows));
}
BENCHMARK(BM_PreReduceOnly)->ArgName("out")->Arg(512)->Arg(256);

// The mask's nearest warp alone (1918x1280 0/1 bytes to 512x512), to see
// what a bit-packed mask (300 KB instead of 2.4 MB) could save. Arg cache:
// 0 the mask stays hot between iterations; 1 L2 is flushed before each (in
// the loader the photo's decode runs between the mask's decode and the
// warp); 2 L3 is flushed too. The flush is outside the timing. 3: a 640x427
// mask instead (273 KB, as small as the packed form, in L2), the same
// number of gathers: what the warp costs when the mask's bytes are near.
void BM_WarpMaskOnly(benchmark::State& state) {
  const Sources& sources = DemoSources();
  AugmentOptions options;
  const auto params = ParamSets(options);
  std::vector<uint8_t> mask_out(size_t{512} * 512);
  const augment::MutableRasterView mask_view{mask_out.data(), 512, 512, 1, 512};
  const int64_t cache = state.range(0);
  const size_t flush_bytes = cache == 1 ? 4u << 20 : cache == 2 ? 64u << 20 : 0;
  cv::Mat small_mask;
  cv::resize(sources.mask, small_mask, cv::Size(640, 427), 0, 0, cv::INTER_NEAREST);
  const cv::Mat& mask = cache == 3 ? small_mask : sources.mask;
  std::vector<uint8_t> flush(flush_bytes, 1);
  size_t i = 0;
  for (auto _ : state) {
    if (flush_bytes) {
      state.PauseTiming();
      for (size_t b = 0; b < flush.size(); b += 64) flush[b] = static_cast<uint8_t>(flush[b] + 1);
      benchmark::ClobberMemory();
      state.ResumeTiming();
    }
    augment::WarpMaskOnly(options, params[i++ % params.size()], View(mask), 0, mask_view);
    benchmark::DoNotOptimize(mask_out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WarpMaskOnly)->ArgName("cache")->Arg(0)->Arg(1)->Arg(2)->Arg(3);

// The whole stage for one sample: warp, jitter, conversion (float32 NHWC
// image, float32 mask), from the 959x640 image.
void BM_SampleAugmenterFloat32(benchmark::State& state) {
  const Sources& sources = DemoSources();
  AugmentOptions options;
  augment::SampleAugmenter augmenter(options, OutputOptions{});
  const auto params = ParamSets(options);
  std::vector<float> image_out(size_t{3} * 512 * 512);
  std::vector<float> mask_out(size_t{512} * 512);
  const auto image_dst = augmenter.converter().DenseImage(image_out.data(), 512, 512);
  const auto mask_dst = augmenter.converter().DenseMask(mask_out.data(), 512);
  size_t i = 0;
  for (auto _ : state) {
    augmenter.Run(params[i++ % params.size()], {View(sources.half), View(sources.mask), 0.5},
                  image_dst, mask_dst);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SampleAugmenterFloat32);

// The same, writing sample i into slot i % 32 of a page-aligned 32-slot
// float32 buffer (2 batches of 16 at 512x512: 128 MiB, like the default
// pool), so the destination is cold as in the loader rather than the same
// hot 4 MiB every time.
void BM_SampleAugmenterIntoBatchSlots(benchmark::State& state) {
  const Sources& sources = DemoSources();
  AugmentOptions options;
  augment::SampleAugmenter augmenter(options, OutputOptions{});
  const auto params = ParamSets(options);
  constexpr size_t kSlots = 32;
  constexpr size_t kImageFloats = size_t{3} * 512 * 512;
  constexpr size_t kMaskFloats = size_t{512} * 512;
  constexpr size_t kSlotBytes = (kImageFloats + kMaskFloats) * sizeof(float);
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  const std::unique_ptr<void, FreeDeleter> pool(std::aligned_alloc(4096, kSlots * kSlotBytes));
  std::memset(pool.get(), 0, kSlots * kSlotBytes);
  size_t i = 0;
  for (auto _ : state) {
    auto* slot = static_cast<uint8_t*>(pool.get()) + (i % kSlots) * kSlotBytes;
    augmenter.Run(params[i % params.size()], {View(sources.half), View(sources.mask), 0.5},
                  augmenter.converter().DenseImage(slot, 512, 512),
                  augmenter.converter().DenseMask(slot + kImageFloats * sizeof(float), 512));
    ++i;
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SampleAugmenterIntoBatchSlots);

}  // namespace
}  // namespace segfeed::bench

SEGFEED_BENCHMARK_MAIN();
