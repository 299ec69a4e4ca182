// The PNG decode candidates of issue 47, per file: libspng as segfeed used
// it before (progressive, a row per call), libspng without its checksums,
// segfeed's PngDecoder (the whole-buffer path), and the inflate alone with
// zlib and with libdeflate (the floor of any path). Files are given on the
// command line, after Google Benchmark's own flags:
//
//   build/release/bench/png_candidates --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true FILE.png...   (one line)
//
// A grey or palette file decodes as a mask (its raw samples), an RGB one as
// a photo (8-bit RGB), as the loader would.
#include <benchmark/benchmark.h>
#include <libdeflate.h>
#include <spng.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "decode/png_decoder.h"

namespace {

using Bytes = std::vector<uint8_t>;
using segfeed::decode::PngDecoder;

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint32_t BigEndian32(const uint8_t* at) {
  return (uint32_t{at[0]} << 24) | (uint32_t{at[1]} << 16) | (uint32_t{at[2]} << 8) | at[3];
}

// The IDAT data joined: what inflate reads.
Bytes JoinedImageData(const Bytes& png) {
  Bytes joined;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t length = BigEndian32(&png[at]);
    if (std::string(png.begin() + at + 4, png.begin() + at + 8) == "IDAT")
      joined.insert(joined.end(), png.begin() + at + 8, png.begin() + at + 8 + length);
    at += 12 + length;
  }
  return joined;
}

bool IsPhoto(const Bytes& png) { return png.size() > 25 && (png[25] == 2 || png[25] == 6); }

// libspng, progressive, as PngDecoder did before the whole-buffer path:
// photos through SPNG_FMT_RGB8 a row per call, masks as raw scanlines.
void SpngRows(benchmark::State& state, const Bytes& png, bool without_checksums) {
  const bool photo = IsPhoto(png);
  Bytes out;
  for (auto _ : state) {
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(
        spng_ctx_new(without_checksums ? SPNG_CTX_IGNORE_ADLER32 : 0), spng_ctx_free);
    if (without_checksums) spng_set_crc_action(ctx.get(), SPNG_CRC_USE, SPNG_CRC_USE);
    spng_set_png_buffer(ctx.get(), png.data(), png.size());
    const int format = photo ? SPNG_FMT_RGB8 : SPNG_FMT_PNG;
    size_t size = 0;
    spng_decoded_image_size(ctx.get(), format, &size);
    out.resize(size);
    spng_ihdr ihdr{};
    spng_get_ihdr(ctx.get(), &ihdr);
    const size_t row_bytes = size / ihdr.height;
    int error = spng_decode_image(ctx.get(), nullptr, 0, format, SPNG_DECODE_PROGRESSIVE);
    while (!error) {
      spng_row_info row{};
      if ((error = spng_get_row_info(ctx.get(), &row))) break;
      error = spng_decode_row(ctx.get(), out.data() + row.row_num * row_bytes, row_bytes);
    }
    if (error != SPNG_EOI) state.SkipWithError("libspng refused the file");
    benchmark::DoNotOptimize(out.data());
  }
}

void Segfeed(benchmark::State& state, const Bytes& png) {
  PngDecoder decoder({});
  segfeed::decode::DecodedImage image;
  segfeed::decode::MaskSamples mask;
  const bool photo = IsPhoto(png);
  for (auto _ : state) {
    const segfeed::Status status = photo ? decoder.DecodeImage(png, "bench.png", &image)
                                         : decoder.DecodeMask(png, "bench.png", &mask);
    if (!status.ok()) state.SkipWithError(status.error().Message().c_str());
  }
}

size_t InflatedBytes(const Bytes& png) {
  const uint32_t width = BigEndian32(&png[16]), height = BigEndian32(&png[20]);
  const int channels[] = {1, 0, 3, 1, 2, 0, 4};
  const size_t bits = size_t{width} * channels[png[25]] * png[24];
  return height * ((bits + 7) / 8 + 1);
}

void InflateZlib(benchmark::State& state, const Bytes& png) {
  const Bytes data = JoinedImageData(png);
  Bytes out(InflatedBytes(png));
  for (auto _ : state) {
    uLongf size = out.size();
    if (uncompress(out.data(), &size, data.data(), data.size()) != Z_OK)
      state.SkipWithError("zlib refused the stream");
    benchmark::DoNotOptimize(out.data());
  }
}

void InflateLibdeflate(benchmark::State& state, const Bytes& png) {
  const Bytes data = JoinedImageData(png);
  Bytes out(InflatedBytes(png));
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> decompressor(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  for (auto _ : state) {
    if (libdeflate_zlib_decompress(decompressor.get(), data.data(), data.size(), out.data(),
                                   out.size(), nullptr) != LIBDEFLATE_SUCCESS)
      state.SkipWithError("libdeflate refused the stream");
    benchmark::DoNotOptimize(out.data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<Bytes> files;
  files.reserve(argc);
  for (int i = 1; i < argc; ++i) {
    files.push_back(ReadFile(argv[i]));
    const Bytes& png = files.back();
    if (png.size() < 33) {
      std::fprintf(stderr, "%s: not a PNG file\n", argv[i]);
      return 1;
    }
    std::string name = argv[i];
    name = name.substr(name.find_last_of('/') + 1);
    const auto add = [&](const char* candidate, auto&& run) {
      benchmark::RegisterBenchmark((name + "/" + candidate).c_str(), run)
          ->Unit(benchmark::kMillisecond);
    };
    add("libspng_rows", [&png](benchmark::State& s) { SpngRows(s, png, false); });
    add("libspng_rows_no_checksums", [&png](benchmark::State& s) { SpngRows(s, png, true); });
    add("segfeed_whole_buffer", [&png](benchmark::State& s) { Segfeed(s, png); });
    add("inflate_zlib", [&png](benchmark::State& s) { InflateZlib(s, png); });
    add("inflate_libdeflate", [&png](benchmark::State& s) { InflateLibdeflate(s, png); });
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
