// Output conversion of one 512x512 sample, per dtype and layout, one core.

#include <string>
#include <vector>

#include "augment/output_conversion.h"
#include "bench_main.h"
#include "counter_rng.h"

namespace segfeed::bench {
namespace {

constexpr int kSide = 512;

std::vector<uint8_t> Noise(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> out(bytes);
  CounterRng rng(seed);
  for (auto& v : out) v = rng.NextU64() & 0xff;
  return out;
}

// Args: image dtype (0 uint8, 1 float16, 2 float32), layout (0 NHWC, 1 NCHW),
// normalize.
void BM_ConvertImage(benchmark::State& state) {
  OutputOptions options;
  options.image_dtype = static_cast<ElementType>(state.range(0));
  options.layout = static_cast<Layout>(state.range(1));
  options.normalize = state.range(2) != 0;
  const augment::OutputConverter converter(options);
  const std::vector<uint8_t> rgb = Noise(size_t{3} * kSide * kSide, 1);
  std::vector<uint8_t> out(size_t{3} * kSide * kSide * ElementBytes(options.image_dtype));
  const augment::StridedImage dst = converter.DenseImage(out.data(), kSide, kSide);
  for (auto _ : state) {
    converter.ConvertImage({rgb.data(), kSide, kSide, 3, 3 * kSide}, dst);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(out.size()));
  state.SetLabel(std::string(ElementTypeName(options.image_dtype)) + " " +
                 std::string(LayoutName(options.layout)) + (options.normalize ? " mean/std" : ""));
}
BENCHMARK(BM_ConvertImage)
    ->ArgNames({"dtype", "nchw", "normalize"})
    ->Args({0, 0, 0})
    ->Args({0, 1, 0})
    ->Args({1, 0, 0})
    ->Args({1, 1, 0})
    ->Args({2, 0, 0})
    ->Args({2, 1, 0})
    ->Args({2, 1, 1});

// Arg: mask dtype, as ElementType (0 uint8, 2 float32).
void BM_ConvertMask(benchmark::State& state) {
  OutputOptions options;
  options.mask_dtype = static_cast<ElementType>(state.range(0));
  const augment::OutputConverter converter(options);
  std::vector<uint8_t> mask = Noise(size_t{kSide} * kSide, 2);
  for (auto& v : mask) v &= 1;
  std::vector<uint8_t> out(size_t{kSide} * kSide * ElementBytes(options.mask_dtype));
  for (auto _ : state) {
    converter.ConvertMask({mask.data(), kSide, kSide, 1, kSide},
                          converter.DenseMask(out.data(), kSide));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(ElementTypeName(options.mask_dtype)));
}
BENCHMARK(BM_ConvertMask)->ArgName("dtype")->Arg(0)->Arg(2);

}  // namespace
}  // namespace segfeed::bench

SEGFEED_BENCHMARK_MAIN();
