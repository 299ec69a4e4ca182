// Writes a small seed corpus for the decoder fuzzers into OUT_DIR/jpeg,
// OUT_DIR/gif and OUT_DIR/png (each fuzzer takes its format's): make-demo
// pictures at a small size, as baseline, progressive and grayscale JPEG, as
// plain, interlaced+transparent and two-frame GIF, and as PNG of every
// colour type (OpenCV's libpng for RGB, RGBA and grey; libspng for palette
// masks, low bit depths and Adam7).
#include <gif_lib.h>
#include <spng.h>
#include <turbojpeg.h>

#include <cstdlib>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "demo/demo_dataset.h"
#include "output/image_writers.h"

namespace {

namespace fs = std::filesystem;

int WriteBytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return out.good() ? 0 : 1;
}

// An interlaced GIF with a transparent index and a second frame, the
// variants WriteMaskGif does not produce.
int WriteVariantGif(const fs::path& path, const std::vector<uint8_t>& mask, int width, int height) {
  int error = 0;
  GifFileType* gif = EGifOpenFileName(path.c_str(), false, &error);
  if (!gif) return 1;
  const GifColorType palette[4] = {{0, 0, 0}, {255, 255, 255}, {128, 128, 128}, {9, 9, 9}};
  ColorMapObject* map = GifMakeMapObject(4, palette);
  bool ok = EGifPutScreenDesc(gif, width, height, 8, 0, map) == GIF_OK;
  GraphicsControlBlock control{};
  control.TransparentColor = 2;
  GifByteType block[4];
  EGifGCBToExtension(&control, block);
  ok = ok && EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, block) == GIF_OK;
  ok = ok && EGifPutImageDesc(gif, 0, 0, width, height, true, nullptr) == GIF_OK;
  const int first_row[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
  std::vector<GifPixelType> row(width);
  for (int pass = 0; ok && pass < 4; ++pass) {
    for (int y = first_row[pass]; ok && y < height; y += step[pass]) {
      for (int x = 0; x < width; ++x) row[x] = mask[y * width + x] ? 1 : ((x + y) % 5 == 0 ? 2 : 0);
      ok = EGifPutLine(gif, row.data(), width) == GIF_OK;
    }
  }
  // A smaller second frame at an offset.
  ok = ok && EGifPutImageDesc(gif, 2, 3, width / 2, height / 2, false, nullptr) == GIF_OK;
  for (int y = 0; ok && y < height / 2; ++y) {
    for (int x = 0; x < width / 2; ++x) row[x] = 3;
    ok = EGifPutLine(gif, row.data(), width / 2) == GIF_OK;
  }
  GifFreeMapObject(map);
  if (EGifCloseFile(gif, &error) != GIF_OK) ok = false;
  return ok ? 0 : 1;
}

// The demo mask as a PNG of `bit_depth` (1, 2, 4 or 8) palette indices or
// grey levels (0 and the largest value), plain or Adam7, with libspng.
int WriteMaskPng(const fs::path& path, const std::vector<uint8_t>& mask, int width, int height,
                 int color_type, int bit_depth, bool interlaced) {
  const size_t row_bytes = (static_cast<size_t>(width) * bit_depth + 7) / 8;
  std::vector<uint8_t> samples(row_bytes * height, 0);
  const int foreground = color_type == SPNG_COLOR_TYPE_INDEXED ? 1 : (1 << bit_depth) - 1;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const size_t bit = static_cast<size_t>(x) * bit_depth;
      const int value = mask[y * width + x]                 ? foreground
                        : (x + y) % 7 == 0 && bit_depth > 1 ? 2
                                                            : 0;
      samples[y * row_bytes + bit / 8] |= static_cast<uint8_t>(value << (8 - bit_depth - bit % 8));
    }
  }
  spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(width);
  ihdr.height = static_cast<uint32_t>(height);
  ihdr.bit_depth = static_cast<uint8_t>(bit_depth);
  ihdr.color_type = static_cast<uint8_t>(color_type);
  ihdr.interlace_method = interlaced ? SPNG_INTERLACE_ADAM7 : SPNG_INTERLACE_NONE;
  int error = spng_set_ihdr(ctx, &ihdr);
  if (color_type == SPNG_COLOR_TYPE_INDEXED) {
    spng_plte plte{};
    plte.n_entries = 3;  // black, white, and a third class
    plte.entries[1] = {255, 255, 255, 0};
    plte.entries[2] = {200, 30, 30, 0};
    if (!error) error = spng_set_plte(ctx, &plte);
  }
  if (!error) {
    error =
        spng_encode_image(ctx, samples.data(), samples.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  }
  size_t size = 0;
  void* buffer = error ? nullptr : spng_get_png_buffer(ctx, &size, &error);
  spng_ctx_free(ctx);
  if (!buffer) return 1;
  const int failed = WriteBytes(path, std::vector<uint8_t>(static_cast<uint8_t*>(buffer),
                                                           static_cast<uint8_t*>(buffer) + size));
  std::free(buffer);  // libspng hands the buffer over, allocated with malloc
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out / "jpeg");
  fs::create_directories(out / "gif");
  fs::create_directories(out / "png");
  int failures = 0;
  segfeed::demo::DemoOptions options;
  segfeed::demo::DemoRaster raster;
  const int sizes[][2] = {{64, 48}, {33, 17}, {120, 80}};
  for (int i = 0; i < 3; ++i) {
    options.width = sizes[i][0];
    options.height = sizes[i][1];
    segfeed::demo::RenderDemoSample(options, i, &raster);
    const std::string n = std::to_string(i);
    failures += !segfeed::output::WriteJpeg(out / "jpeg" / ("baseline" + n + ".jpg"),
                                            raster.rgb.data(), raster.width, raster.height, 75)
                     .ok();
    failures += !segfeed::output::WriteMaskGif(out / "gif" / ("mask" + n + ".gif"),
                                               raster.mask.data(), raster.width, raster.height)
                     .ok();
    failures += WriteVariantGif(out / "gif" / ("variant" + n + ".gif"), raster.mask, raster.width,
                                raster.height);
    cv::Mat rgb(raster.height, raster.width, CV_8UC3, raster.rgb.data()), bgr, gray;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
    std::vector<uint8_t> bytes;
    cv::imencode(".jpg", bgr, bytes,
                 {cv::IMWRITE_JPEG_PROGRESSIVE, 1, cv::IMWRITE_JPEG_QUALITY, 70});
    failures += WriteBytes(out / "jpeg" / ("progressive" + n + ".jpg"), bytes);
    cv::imencode(".jpg", gray, bytes, {cv::IMWRITE_JPEG_QUALITY, 70});
    failures += WriteBytes(out / "jpeg" / ("gray" + n + ".jpg"), bytes);
    cv::imencode(".jpg", bgr, bytes, {cv::IMWRITE_JPEG_RST_INTERVAL, 4});
    failures += WriteBytes(out / "jpeg" / ("restart" + n + ".jpg"), bytes);
    cv::imencode(".png", bgr, bytes);
    failures += WriteBytes(out / "png" / ("rgb" + n + ".png"), bytes);
    cv::imencode(".png", gray, bytes);
    failures += WriteBytes(out / "png" / ("grey" + n + ".png"), bytes);
    cv::Mat bgra, gray16;
    cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
    gray.convertTo(gray16, CV_16U, 257);
    cv::imencode(".png", bgra, bytes);
    failures += WriteBytes(out / "png" / ("rgba" + n + ".png"), bytes);
    cv::imencode(".png", gray16, bytes);
    failures += WriteBytes(out / "png" / ("grey16_" + n + ".png"), bytes);
    const int depth = 1 << i;  // 1, 2 and 4 bits
    failures += WriteMaskPng(out / "png" / ("palette8_" + n + ".png"), raster.mask, raster.width,
                             raster.height, SPNG_COLOR_TYPE_INDEXED, 8, false);
    failures +=
        WriteMaskPng(out / "png" / ("palette_adam7_" + n + ".png"), raster.mask, raster.width,
                     raster.height, SPNG_COLOR_TYPE_INDEXED, 2 * depth > 8 ? 8 : 2 * depth, true);
    failures += WriteMaskPng(out / "png" / ("grey_adam7_" + n + ".png"), raster.mask, raster.width,
                             raster.height, SPNG_COLOR_TYPE_GRAYSCALE, depth, true);
    // Chroma subsamplings OpenCV 4.6 cannot choose.
    for (int subsampling : {TJSAMP_444, TJSAMP_422}) {
      unsigned char* jpeg = nullptr;
      unsigned long jpeg_size = 0;  // NOLINT(runtime/int): TurboJPEG's type
      tjhandle encoder = tjInitCompress();
      if (tjCompress2(encoder, raster.rgb.data(), raster.width, 0, raster.height, TJPF_RGB, &jpeg,
                      &jpeg_size, subsampling, 80, 0) == 0) {
        failures +=
            WriteBytes(out / "jpeg" / ("sub" + std::to_string(subsampling) + "_" + n + ".jpg"),
                       std::vector<uint8_t>(jpeg, jpeg + jpeg_size));
      } else {
        ++failures;
      }
      tjFree(jpeg);
      tjDestroy(encoder);
    }
  }
  return failures == 0 ? 0 : 1;
}
