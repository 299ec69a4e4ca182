// Decode-stage micro-benchmarks on make-demo images (1918x1280, Carvana's
// size): JPEG at full size vs at the DCT scale chosen for a target size, and
// GIF masks; PNG masks and photos (libspng) beside GIF and JPEG at 1918x1280
// and 2048x1024 (Cityscapes' size), and the same PNGs through OpenCV's
// imdecode (libpng). Single thread: the numbers are per core.
//
// Also: decoding only a window of the photo (libjpeg's partial decode).
//
// SEGFEED_BENCH_DATASET=DIR decodes the photos and GIF masks of a Carvana-
// layout dataset instead (the first 32 pairs of DIR/train and
// DIR/train_masks, e.g. bench/photo_like.py's), for the JPEG and GIF
// benchmarks; interlaced-mask benchmarks are then skipped.
//
//   build/release/bench/decode_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)

#include <benchmark/benchmark.h>
#include <spng.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

// After <cstdio>: jpeglib.h uses FILE without including it.
#include <jpeglib.h>

#include "decode/gif_decoder.h"
#include "decode/jpeg_decoder.h"
#include "decode/png_decoder.h"
#include "demo/demo_dataset.h"
#include "fuzz/giflib_reference.h"
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
// The first `limit` pairs of a Carvana-layout dataset, by photo name.
EncodedDemo ReadDataset(const std::filesystem::path& root, size_t limit) {
  std::vector<std::filesystem::path> photos;
  for (const auto& entry : std::filesystem::directory_iterator(root / "train")) {
    if (entry.path().extension() == ".jpg") photos.push_back(entry.path());
  }
  std::sort(photos.begin(), photos.end());
  if (photos.size() > limit) photos.resize(limit);
  EncodedDemo out;
  for (const auto& photo : photos) {
    out.jpegs.push_back(ReadAll(photo));
    out.gifs.push_back(ReadAll(root / "train_masks" / (photo.stem().string() + "_mask.gif")));
  }
  if (out.jpegs.size() < static_cast<size_t>(kSamples)) {
    std::fprintf(stderr, "decode_bench: fewer than %d photos in %s/train\n", kSamples,
                 root.c_str());
    std::exit(2);
  }
  return out;
}

const EncodedDemo& Demo() {
  static const EncodedDemo demo = [] {
    if (const char* dataset = std::getenv("SEGFEED_BENCH_DATASET")) return ReadDataset(dataset, 32);
    EncodedDemo out;
    std::string pattern =
        (std::filesystem::temp_directory_path() / "segfeed-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    const std::filesystem::path dir = pattern;
    demo::DemoOptions options;
    demo::DemoRaster raster;
    for (int i = 0; i < kSamples; ++i) {
      demo::RenderDemoSample(options, i, &raster);
      const auto jpeg_path = dir / "image.jpg";
      const auto gif_path = dir / "mask.gif";
      if (!output::WriteJpeg(jpeg_path, raster.rgb.data(), raster.width, raster.height,
                             options.quality)
               .ok() ||
          !output::WriteMaskGif(gif_path, raster.mask.data(), raster.width, raster.height).ok()) {
        std::abort();
      }
      out.jpegs.push_back(ReadAll(jpeg_path));
      out.gifs.push_back(ReadAll(gif_path));
      auto interlaced = output::EncodeMaskGif(raster.mask.data(), raster.width, raster.height,
                                              output::GifRowOrder::kInterlaced, "bench.gif");
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
  decode::JpegDecoder decoder(DecodeOptions{});
  decode::DecodedImage image;
  decode::DctScale scale;
  size_t i = 0;
  for (auto _ : state) {
    const auto& jpeg = demo.jpegs[i++ % demo.jpegs.size()];
    auto header = decoder.ReadHeader(jpeg, "bench.jpg");
    if (!header.ok()) {
      state.SkipWithError(header.error().Message().c_str());
      break;
    }
    scale = decoder.ChooseScale(header.value().width, header.value().height, target, target);
    Status status = decoder.Decode(jpeg, header.value(), scale, "bench.jpg", &image);
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

// What a JPEG decode at a DCT scale spends its time on, stage by stage,
// through libjpeg's API (the same libjpeg-turbo TurboJPEG calls), each row
// doing one stage more than the one before:
//   0 coefficients: jpeg_read_coefficients, the entropy decoding alone;
//   1 planes: raw_data_out, the scaled inverse DCT into Y, Cb and Cr at
//     their own resolution (no upsampling, no colour conversion);
//   2 ycbcr: out_color_space JCS_YCbCr, chroma upsampled (fancy) and the
//     three channels interleaved, not converted;
//   3 rgb: the whole decode, as segfeed's JpegDecoder does it;
//   4 rgb, merged: do_fancy_upsampling off, libjpeg-turbo's merged
//     upsample-and-convert (box upsampling of the chroma);
//   5 TurboJPEG planes: tjDecompressToYUVPlanes at the scale.
// Args: stage, scale denominator.
void BM_JpegStages(benchmark::State& state) {
  const EncodedDemo& demo = Demo();
  const int stage = static_cast<int>(state.range(0));
  const auto denominator = static_cast<unsigned>(state.range(1));
  std::vector<uint8_t> pixels;
  std::array<std::vector<uint8_t>, 3> planes;
  tjhandle turbo = tjInitDecompress();
  size_t i = 0;
  for (auto _ : state) {
    const std::vector<uint8_t>& jpeg = demo.jpegs[i++ % demo.jpegs.size()];
    if (stage == 5) {
      int width = 0, height = 0, subsampling = 0, colorspace = 0;
      tjDecompressHeader3(turbo, jpeg.data(), jpeg.size(), &width, &height, &subsampling,
                          &colorspace);
      const int scaled_width = TJSCALED(width, (tjscalingfactor{1, static_cast<int>(denominator)}));
      const int scaled_height =
          TJSCALED(height, (tjscalingfactor{1, static_cast<int>(denominator)}));
      std::array<unsigned char*, 3> out{};
      for (int c = 0; c < 3; ++c) {
        planes[c].resize(tjPlaneSizeYUV(c, scaled_width, 0, scaled_height, subsampling));
        out[c] = planes[c].data();
      }
      if (tjDecompressToYUVPlanes(turbo, jpeg.data(), jpeg.size(), out.data(), scaled_width,
                                  nullptr, scaled_height, 0) != 0) {
        state.SkipWithError(tjGetErrorStr2(turbo));
        break;
      }
      benchmark::DoNotOptimize(planes[0].data());
      continue;
    }
    jpeg_decompress_struct decompress;
    jpeg_error_mgr errors;
    decompress.err = jpeg_std_error(&errors);  // the benchmark's files are valid: exit on error
    jpeg_create_decompress(&decompress);
    jpeg_mem_src(&decompress, jpeg.data(), jpeg.size());
    jpeg_read_header(&decompress, TRUE);
    if (stage == 0) {
      jvirt_barray_ptr* coefficients = jpeg_read_coefficients(&decompress);
      benchmark::DoNotOptimize(coefficients);
      jpeg_finish_decompress(&decompress);
      jpeg_destroy_decompress(&decompress);
      continue;
    }
    decompress.scale_num = 1;
    decompress.scale_denom = denominator;
    decompress.raw_data_out = stage == 1 ? TRUE : FALSE;
    decompress.out_color_space = stage == 2 ? JCS_YCbCr : stage == 1 ? JCS_YCbCr : JCS_RGB;
    decompress.do_fancy_upsampling = stage == 4 ? FALSE : TRUE;
    jpeg_start_decompress(&decompress);
    if (stage == 1) {
      // One iMCU row a call: max_v_samp_factor x min_DCT_scaled_size rows.
      // Each component has its own scaled block size: libjpeg-turbo scales
      // a subsampled chroma component up in its inverse DCT where the ratio
      // allows (at 1/2, a 4:2:0 file's Cb and Cr get the full 8x8 IDCT and
      // come out at the luma's resolution), so the planes are not the
      // subsampled ones.
      const int components = decompress.num_components;
      const int rows_per_call = decompress.max_v_samp_factor * decompress.min_DCT_scaled_size;
      std::array<std::vector<JSAMPROW>, 3> rows;
      for (int c = 0; c < components; ++c) {
        const jpeg_component_info& info = decompress.comp_info[c];
        const int block = info.DCT_scaled_size;
        const size_t width = info.width_in_blocks * static_cast<size_t>(block);
        const int component_rows = info.v_samp_factor * block;
        planes[c].resize(width * component_rows);
        rows[c].resize(component_rows);
        for (int r = 0; r < component_rows; ++r) rows[c][r] = planes[c].data() + r * width;
      }
      std::array<JSAMPARRAY, 3> arrays{rows[0].data(), rows[1].data(), rows[2].data()};
      while (decompress.output_scanline < decompress.output_height) {
        if (jpeg_read_raw_data(&decompress, arrays.data(), rows_per_call) == 0) break;
      }
    } else {
      const size_t row_bytes = static_cast<size_t>(decompress.output_width) * 3;
      pixels.resize(row_bytes * decompress.output_height);
      while (decompress.output_scanline < decompress.output_height) {
        JSAMPROW row = pixels.data() + decompress.output_scanline * row_bytes;
        jpeg_read_scanlines(&decompress, &row, 1);
      }
    }
    benchmark::DoNotOptimize(pixels.data());
    jpeg_finish_decompress(&decompress);
    jpeg_destroy_decompress(&decompress);
  }
  tjDestroy(turbo);
  state.SetItemsProcessed(state.iterations());
  static constexpr const char* kStages[] = {"coefficients", "planes",      "ycbcr",
                                            "rgb",          "rgb, merged", "TurboJPEG planes"};
  state.SetLabel(std::string(kStages[stage]) + ", 1/" + std::to_string(denominator));
}
BENCHMARK(BM_JpegStages)
    ->ArgNames({"stage", "scale_denom"})
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {2}})
    ->Args({3, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond);

// Decoding only a window of the photo with libjpeg's partial decode
// (jpeg_crop_scanline for the columns, jpeg_skip_scanlines for the rows
// above, abort below), against the whole photo at the same DCT scale: what a
// random crop of a scaled-up photo would save. The window is 1/2^k of each
// side (Arg 0: the whole photo), at a place that moves from sample to sample
// (top to bottom), widened by one column on each side so the chroma
// upsampling of its edge columns sees their neighbours (without it a 4:2:0
// window's edges differ from the whole decode's). Args: window divisor,
// scale denominator.
void BM_JpegWindowDecode(benchmark::State& state) {
  const EncodedDemo& demo = Demo();
  const int divisor = static_cast<int>(state.range(0));
  const int denominator = static_cast<int>(state.range(1));
  std::vector<uint8_t> row;
  size_t i = 0;
  int decoded_rows = 0, decoded_width = 0;
  for (auto _ : state) {
    const std::vector<uint8_t>& jpeg = demo.jpegs[i % kSamples];
    jpeg_decompress_struct decompress;
    jpeg_error_mgr errors;
    decompress.err = jpeg_std_error(&errors);  // make-demo's files are valid: exit on error
    jpeg_create_decompress(&decompress);
    jpeg_mem_src(&decompress, jpeg.data(), jpeg.size());
    jpeg_read_header(&decompress, TRUE);
    decompress.out_color_space = JCS_RGB;
    decompress.scale_num = 1;
    decompress.scale_denom = static_cast<unsigned>(denominator);
    jpeg_start_decompress(&decompress);
    const int width = static_cast<int>(decompress.output_width);
    const int height = static_cast<int>(decompress.output_height);
    int top = 0, rows = height;
    if (divisor > 1) {
      const int window_width = width / divisor;
      rows = height / divisor;
      const int phase = static_cast<int>(i % 5);  // left/top .. right/bottom
      const int left = (width - window_width) * phase / 4;
      top = (height - rows) * phase / 4;
      JDIMENSION x = static_cast<JDIMENSION>(std::max(0, left - 1));
      JDIMENSION cropped = static_cast<JDIMENSION>(std::min(width, left + window_width + 1)) - x;
      jpeg_crop_scanline(&decompress, &x, &cropped);
      if (top > 0) jpeg_skip_scanlines(&decompress, static_cast<JDIMENSION>(top));
    }
    decoded_width = static_cast<int>(decompress.output_width);
    row.resize(static_cast<size_t>(decoded_width) * 3);
    JSAMPROW rows_out[] = {row.data()};
    for (int y = 0; y < rows; ++y) jpeg_read_scanlines(&decompress, rows_out, 1);
    benchmark::DoNotOptimize(row.data());
    jpeg_abort_decompress(&decompress);  // the rows below are not needed
    jpeg_destroy_decompress(&decompress);
    decoded_rows = rows;
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("1/" + std::to_string(denominator) + " scale, " + std::to_string(decoded_width) +
                 "x" + std::to_string(decoded_rows) + " decoded");
}
BENCHMARK(BM_JpegWindowDecode)
    ->ArgNames({"window_divisor", "scale_denom"})
    ->ArgsProduct({{1, 2, 4}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

// Target 1 is the smallest scale, 1/8: the checker's decode.
BENCHMARK(BM_JpegDecode)
    ->ArgName("target")
    ->Arg(0)
    ->Arg(512)
    ->Arg(256)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

// Sequential (as make-demo writes them) and interlaced rows: interlacing
// only reorders rows, so it should cost next to nothing.
void BM_GifDecode(benchmark::State& state) {
  const EncodedDemo& demo = Demo();
  const auto& gifs = state.range(0) ? demo.interlaced_gifs : demo.gifs;
  if (gifs.empty()) {
    state.SkipWithError("no interlaced masks in a dataset");
    return;
  }
  decode::GifDecoder decoder(DecodeOptions{});
  decode::MaskImage mask;
  size_t i = 0;
  for (auto _ : state) {
    Status status = decoder.Decode(gifs[i++ % gifs.size()], "bench.gif", &mask);
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

// --- PNG beside GIF and JPEG, at two sizes --------------------------------

constexpr int kSizes[][2] = {{1918, 1280}, {2048, 1024}};

// Encodes with libspng's defaults (zlib level 6, adaptive filters per row),
// what Pillow's PNG writer also does by default.
std::vector<uint8_t> EncodePng(const uint8_t* samples, int width, int height, int color_type,
                               int channels, const std::vector<spng_plte_entry>& palette) {
  spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(width);
  ihdr.height = static_cast<uint32_t>(height);
  ihdr.bit_depth = 8;
  ihdr.color_type = static_cast<uint8_t>(color_type);
  int error = spng_set_ihdr(ctx, &ihdr);
  if (!error && !palette.empty()) {
    spng_plte plte{};
    plte.n_entries = static_cast<uint32_t>(palette.size());
    std::copy(palette.begin(), palette.end(), plte.entries);
    error = spng_set_plte(ctx, &plte);
  }
  const size_t size = static_cast<size_t>(width) * height * channels;
  if (!error) error = spng_encode_image(ctx, samples, size, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  size_t png_size = 0;
  void* buffer = error ? nullptr : spng_get_png_buffer(ctx, &png_size, &error);
  spng_ctx_free(ctx);
  if (!buffer) std::abort();
  std::vector<uint8_t> png(static_cast<uint8_t*>(buffer), static_cast<uint8_t*>(buffer) + png_size);
  std::free(buffer);  // libspng hands the buffer over, allocated with malloc
  return png;
}

struct SizedDemo {
  int width = 0;
  int height = 0;
  std::vector<std::vector<uint8_t>> jpegs;
  std::vector<std::vector<uint8_t>> gifs;
  // Label maps as VOC writes them: class ids 0 and 1 with a 255 ("void")
  // outline, as 8-bit palette indices and as 8-bit grey.
  std::vector<std::vector<uint8_t>> palette_pngs;
  std::vector<std::vector<uint8_t>> grey_pngs;
  std::vector<std::vector<uint8_t>> photo_pngs;  // 8-bit RGB
};

// The make-demo samples at kSizes[size_index], encoded once and kept in
// memory (a function-level static for the reason Demo() gives).
const SizedDemo& DemoAt(int size_index) {
  static SizedDemo demos[std::size(kSizes)];
  SizedDemo& demo = demos[size_index];
  if (!demo.jpegs.empty()) return demo;
  std::string pattern = (std::filesystem::temp_directory_path() / "segfeed-bench-XXXXXX").string();
  if (!mkdtemp(pattern.data())) std::abort();
  const std::filesystem::path dir = pattern;
  demo::DemoOptions options;
  options.width = demo.width = kSizes[size_index][0];
  options.height = demo.height = kSizes[size_index][1];
  std::vector<spng_plte_entry> palette(256);
  for (int i = 0; i < 256; ++i)
    palette[i] = {static_cast<uint8_t>(i), static_cast<uint8_t>(i), static_cast<uint8_t>(i), 0};
  demo::DemoRaster raster;
  for (int i = 0; i < kSamples; ++i) {
    demo::RenderDemoSample(options, i, &raster);
    const auto jpeg_path = dir / "image.jpg";
    if (!output::WriteJpeg(jpeg_path, raster.rgb.data(), raster.width, raster.height,
                           options.quality)
             .ok()) {
      std::abort();
    }
    demo.jpegs.push_back(ReadAll(jpeg_path));
    auto gif = output::EncodeMaskGif(raster.mask.data(), raster.width, raster.height,
                                     output::GifRowOrder::kSequential, "bench.gif");
    if (!gif.ok()) std::abort();
    demo.gifs.emplace_back(gif.value().begin(), gif.value().end());
    std::vector<uint8_t> labels(raster.mask.size());
    const int w = raster.width, h = raster.height;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const size_t at = static_cast<size_t>(y) * w + x;
        const bool edge = (x + 1 < w && raster.mask[at] != raster.mask[at + 1]) ||
                          (y + 1 < h && raster.mask[at] != raster.mask[at + w]);
        labels[at] = edge ? 255 : raster.mask[at];
      }
    }
    demo.palette_pngs.push_back(
        EncodePng(labels.data(), w, h, SPNG_COLOR_TYPE_INDEXED, 1, palette));
    demo.grey_pngs.push_back(EncodePng(labels.data(), w, h, SPNG_COLOR_TYPE_GRAYSCALE, 1, {}));
    demo.photo_pngs.push_back(EncodePng(raster.rgb.data(), w, h, SPNG_COLOR_TYPE_TRUECOLOR, 3, {}));
  }
  std::filesystem::remove_all(dir);
  return demo;
}

std::string SizeLabel(const SizedDemo& demo, const std::vector<std::vector<uint8_t>>& files) {
  size_t bytes = 0;
  for (const auto& file : files) bytes += file.size();
  return std::to_string(demo.width) + "x" + std::to_string(demo.height) + ", " +
         std::to_string(bytes / files.size() / 1024) + " KiB";
}

// Args: kind (0 palette, 1 grey), size (index into kSizes).
void BM_PngMaskDecode(benchmark::State& state) {
  const SizedDemo& demo = DemoAt(static_cast<int>(state.range(1)));
  const auto& pngs = state.range(0) == 0 ? demo.palette_pngs : demo.grey_pngs;
  decode::PngDecoder decoder(DecodeOptions{});
  decode::MaskSamples mask;
  size_t i = 0;
  for (auto _ : state) {
    Status status = decoder.DecodeMask(pngs[i++ % kSamples], "bench.png", &mask);
    if (!status.ok()) {
      state.SkipWithError(status.error().Message().c_str());
      break;
    }
    benchmark::DoNotOptimize(mask.bytes.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(SizeLabel(demo, pngs));
}
BENCHMARK(BM_PngMaskDecode)
    ->ArgNames({"grey", "size"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// Arg: size.
void BM_PngPhotoDecode(benchmark::State& state) {
  const SizedDemo& demo = DemoAt(static_cast<int>(state.range(0)));
  decode::PngDecoder decoder(DecodeOptions{});
  decode::DecodedImage image;
  size_t i = 0;
  for (auto _ : state) {
    Status status = decoder.DecodeImage(demo.photo_pngs[i++ % kSamples], "bench.png", &image);
    if (!status.ok()) {
      state.SkipWithError(status.error().Message().c_str());
      break;
    }
    benchmark::DoNotOptimize(image.pixels.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(SizeLabel(demo, demo.photo_pngs));
}
BENCHMARK(BM_PngPhotoDecode)->ArgName("size")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same PNGs through cv::imdecode (libpng), IMREAD_UNCHANGED: libspng
// against libpng. OpenCV expands a palette to BGR and swaps RGB to BGR, so
// its palette and photo cases do a little more per pixel than ours.
// Args: input (0 palette mask, 1 grey mask, 2 photo), size.
void BM_PngDecodeOpenCv(benchmark::State& state) {
  const SizedDemo& demo = DemoAt(static_cast<int>(state.range(1)));
  const auto& pngs = state.range(0) == 0   ? demo.palette_pngs
                     : state.range(0) == 1 ? demo.grey_pngs
                                           : demo.photo_pngs;
  cv::Mat decoded;
  size_t i = 0;
  for (auto _ : state) {
    const auto& png = pngs[i++ % kSamples];
    decoded = cv::imdecode(
        cv::Mat(1, static_cast<int>(png.size()), CV_8UC1, const_cast<uint8_t*>(png.data())),
        cv::IMREAD_UNCHANGED);
    if (decoded.empty()) {
      state.SkipWithError("cv::imdecode refused the PNG");
      break;
    }
    benchmark::DoNotOptimize(decoded.data);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(SizeLabel(demo, pngs));
}
BENCHMARK(BM_PngDecodeOpenCv)
    ->ArgNames({"input", "size"})
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// The GIF mask and the full-size JPEG photo of the same samples and sizes.
// Arg: size.
void BM_GifMaskDecodeSized(benchmark::State& state) {
  const SizedDemo& demo = DemoAt(static_cast<int>(state.range(0)));
  decode::GifDecoder decoder(DecodeOptions{});
  decode::MaskImage mask;
  size_t i = 0;
  for (auto _ : state) {
    Status status = decoder.Decode(demo.gifs[i++ % kSamples], "bench.gif", &mask);
    if (!status.ok()) {
      state.SkipWithError(status.error().Message().c_str());
      break;
    }
    benchmark::DoNotOptimize(mask.pixels.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(SizeLabel(demo, demo.gifs));
}
BENCHMARK(BM_GifMaskDecodeSized)->ArgName("size")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_JpegPhotoDecodeSized(benchmark::State& state) {
  const SizedDemo& demo = DemoAt(static_cast<int>(state.range(0)));
  decode::JpegDecoder decoder(DecodeOptions{});
  decode::DecodedImage image;
  size_t i = 0;
  for (auto _ : state) {
    const auto& jpeg = demo.jpegs[i++ % kSamples];
    auto header = decoder.ReadHeader(jpeg, "bench.jpg");
    Status status = header.ok() ? decoder.Decode(jpeg, header.value(), {}, "bench.jpg", &image)
                                : Status(header.error());
    if (!status.ok()) {
      state.SkipWithError(status.error().Message().c_str());
      break;
    }
    benchmark::DoNotOptimize(image.pixels.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(SizeLabel(demo, demo.jpegs));
}
BENCHMARK(BM_JpegPhotoDecodeSized)->ArgName("size")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace segfeed

BENCHMARK_MAIN();
