// Decode-stage micro-benchmarks on make-demo images (1918x1280, Carvana's
// size): JPEG at full size vs at the DCT scale chosen for a target size, and
// GIF masks. Single thread: the numbers are per core.
//
//   build/release/bench/decode_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "demo/demo_dataset.h"
#include "fuzz/giflib_reference.h"
#include "io/gif_decoder.h"
#include "io/jpeg_decoder.h"
#include "output/image_writers.h"

namespace segfeed {
namespace {

constexpr int kSamples = 4;  // decoded in turn, so one picture's content does not dominate

struct EncodedDemo {
  std::vector<std::vector<uint8_t>> jpegs;
  std::vector<std::vector<uint8_t>> gifs;
  // The same masks interlaced, as Pillow and many other tools write them.
  std::vector<std::vector<uint8_t>> interlaced_gifs;
};

std::vector<uint8_t> ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Renders and encodes the samples once, through files as make-demo writes
// them, then keeps the bytes in memory so the benchmark measures decoding
// only. A function-level static because every benchmark reads the same
// bytes and rendering them costs more than a whole benchmark run.
const EncodedDemo& Demo() {
  static const EncodedDemo demo = [] {
    EncodedDemo out;
    std::string pattern =
        (std::filesystem::temp_directory_path() / "segfeed-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    const std::filesystem::path dir = pattern;
    tools::DemoOptions options;
    tools::DemoRaster raster;
    for (int i = 0; i < kSamples; ++i) {
      tools::RenderDemoSample(options, i, &raster);
      const auto jpeg_path = dir / "image.jpg";
      const auto gif_path = dir / "mask.gif";
      if (!tools::WriteJpeg(jpeg_path, raster.rgb.data(), raster.width, raster.height,
                            options.quality)
               .ok() ||
          !tools::WriteMaskGif(gif_path, raster.mask.data(), raster.width, raster.height).ok()) {
        std::abort();
      }
      out.jpegs.push_back(ReadAll(jpeg_path));
      out.gifs.push_back(ReadAll(gif_path));
      auto interlaced = tools::EncodeMaskGif(raster.mask.data(), raster.width, raster.height,
                                             tools::GifRowOrder::kInterlaced, "bench.gif");
      if (!interlaced.ok()) std::abort();
      const std::string& bytes = interlaced.value();
      out.interlaced_gifs.emplace_back(bytes.begin(), bytes.end());
    }
    std::filesystem::remove_all(dir);
    return out;
  }();
  return demo;
}

// Arg: target side in pixels (0 = full size).
void BM_JpegDecode(benchmark::State& state) {
  const EncodedDemo& demo = Demo();
  const int target = static_cast<int>(state.range(0));
  internal::JpegDecoder decoder(DecodeOptions{});
  internal::RgbImage image;
  internal::DctScale scale;
  size_t i = 0;
  for (auto _ : state) {
    const auto& jpeg = demo.jpegs[i++ % kSamples];
    auto header = decoder.ReadHeader(jpeg, "bench.jpg");
    if (!header.ok()) {
      state.SkipWithError(header.error().Message().c_str());
      break;
    }
    scale = decoder.ChooseScale(header.value().width, header.value().height, target, target);
    internal::Status status = decoder.Decode(jpeg, header.value(), scale, "bench.jpg", &image);
    if (!status.ok()) {
      state.SkipWithError(status.error().Message().c_str());
      break;
    }
    benchmark::DoNotOptimize(image.pixels.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("scale " + std::to_string(scale.num) + "/" + std::to_string(scale.denom) + " -> " +
                 std::to_string(image.width) + "x" + std::to_string(image.height));
}
BENCHMARK(BM_JpegDecode)
    ->ArgName("target")
    ->Arg(0)
    ->Arg(512)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);

// Sequential (as make-demo writes them) and interlaced rows: interlacing
// only reorders rows, so it should cost next to nothing.
void BM_GifDecode(benchmark::State& state) {
  const EncodedDemo& demo = Demo();
  const auto& gifs = state.range(0) ? demo.interlaced_gifs : demo.gifs;
  internal::GifDecoder decoder(DecodeOptions{});
  internal::MaskImage mask;
  size_t i = 0;
  for (auto _ : state) {
    internal::Status status = decoder.Decode(gifs[i++ % kSamples], "bench.gif", &mask);
    if (!status.ok()) {
      state.SkipWithError(status.error().Message().c_str());
      break;
    }
    benchmark::DoNotOptimize(mask.pixels.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::to_string(mask.width) + "x" + std::to_string(mask.height));
}
BENCHMARK(BM_GifDecode)->ArgName("interlaced")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same masks through giflib's own line decoder (DGifGetLine), the
// baseline GifDecoder's LZW decoding replaced.
void BM_GifDecodeGiflibLines(benchmark::State& state) {
  const EncodedDemo& demo = Demo();
  size_t i = 0;
  for (auto _ : state) {
    auto mask = testing::DecodeMaskWithGiflibLines(demo.gifs[i++ % kSamples], 128, 100'000'000);
    if (!mask) {
      state.SkipWithError("giflib refused the mask");
      break;
    }
    benchmark::DoNotOptimize(mask->pixels.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GifDecodeGiflibLines)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace segfeed

BENCHMARK_MAIN();
