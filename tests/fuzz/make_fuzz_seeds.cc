// Writes a small seed corpus for the decoder fuzzers into OUT_DIR/jpeg and
// OUT_DIR/gif: make-demo pictures at a small size, as baseline, progressive
// and grayscale JPEG, and as plain, interlaced+transparent and two-frame GIF.
#include <gif_lib.h>
#include <turbojpeg.h>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out / "jpeg");
  fs::create_directories(out / "gif");
  int failures = 0;
  segfeed::tools::DemoOptions options;
  segfeed::tools::DemoRaster raster;
  const int sizes[][2] = {{64, 48}, {33, 17}, {120, 80}};
  for (int i = 0; i < 3; ++i) {
    options.width = sizes[i][0];
    options.height = sizes[i][1];
    segfeed::tools::RenderDemoSample(options, i, &raster);
    const std::string n = std::to_string(i);
    failures += !segfeed::tools::WriteJpeg(out / "jpeg" / ("baseline" + n + ".jpg"),
                                           raster.rgb.data(), raster.width, raster.height, 75)
                     .ok();
    failures += !segfeed::tools::WriteMaskGif(out / "gif" / ("mask" + n + ".gif"),
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
