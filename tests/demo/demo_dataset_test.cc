#include "demo/demo_dataset.h"

#include <gif_lib.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <string>
#include <vector>

#include "io/gif_decoder.h"
#include "output/image_writers.h"
#include "temp_dir.h"

namespace segfeed::tools {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

std::vector<char> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reads a GIF with giflib's whole-file API, independently of segfeed's own
// line-by-line decoder.
struct DecodedGif {
  int width = 0, height = 0;
  std::vector<GifColorType> palette;
  std::vector<uint8_t> indices;
};
DecodedGif ReadGif(const fs::path& path) {
  int error = 0;
  GifFileType* gif = DGifOpenFileName(path.c_str(), &error);
  EXPECT_NE(gif, nullptr) << path << ": " << GifErrorString(error);
  DecodedGif out;
  if (!gif) return out;
  EXPECT_EQ(DGifSlurp(gif), GIF_OK) << path;
  EXPECT_GE(gif->ImageCount, 1);
  out.width = gif->SWidth;
  out.height = gif->SHeight;
  if (gif->SColorMap) {
    out.palette.assign(gif->SColorMap->Colors, gif->SColorMap->Colors + gif->SColorMap->ColorCount);
  }
  if (gif->ImageCount >= 1) {
    const SavedImage& frame = gif->SavedImages[0];
    EXPECT_EQ(frame.ImageDesc.Width, gif->SWidth);
    EXPECT_EQ(frame.ImageDesc.Height, gif->SHeight);
    out.indices.assign(
        frame.RasterBits,
        frame.RasterBits + static_cast<size_t>(frame.ImageDesc.Width) * frame.ImageDesc.Height);
  }
  DGifCloseFile(gif, &error);
  return out;
}

std::vector<fs::path> SortedFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// What make-demo's GIF writer produces, segfeed's own decoder reads back
// exactly, at Carvana's size.
TEST(DemoDatasetTest, GifDecoderReadsMakeDemoMask) {
  DemoRaster demo;
  RenderDemoSample(DemoOptions{}, 5, &demo);
  TempDir dir;
  ASSERT_TRUE(WriteMaskGif(dir / "m.gif", demo.mask.data(), demo.width, demo.height).ok());
  const std::vector<char> bytes = ReadBytes(dir / "m.gif");
  const std::vector<uint8_t> gif(bytes.begin(), bytes.end());
  internal::GifDecoder decoder({});
  internal::MaskImage mask;
  const internal::Status status = decoder.Decode(gif, "train_masks/m.gif", &mask);
  ASSERT_TRUE(status.ok()) << status.error().Message();
  EXPECT_EQ(mask.width, 1918);
  EXPECT_EQ(mask.height, 1280);
  EXPECT_TRUE(mask.pixels == demo.mask);
}

TEST(DemoDatasetTest, SameSeedGivesByteIdenticalFiles) {
  TempDir first, second, other_seed;
  DemoOptions options;
  options.count = 6;
  options.width = 320;
  options.height = 214;
  ASSERT_TRUE(WriteDemoDataset(first.path(), options, {}).ok());
  ASSERT_TRUE(WriteDemoDataset(second.path(), options, {}).ok());
  options.seed = 7;
  ASSERT_TRUE(WriteDemoDataset(other_seed.path(), options, {}).ok());

  for (const char* sub : {"train", "train_masks"}) {
    const auto a = SortedFiles(first / sub);
    const auto b = SortedFiles(second / sub);
    ASSERT_EQ(a.size(), 6u);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].filename(), b[i].filename());
      EXPECT_EQ(ReadBytes(a[i]), ReadBytes(b[i])) << a[i].filename();
    }
  }
  // A different seed changes names and pixels.
  EXPECT_NE(SortedFiles(first / "train")[0].filename(),
            SortedFiles(other_seed / "train")[0].filename());
}

TEST(DemoDatasetTest, WritesCarvanaLayoutAndNames) {
  TempDir dir;
  DemoOptions options;
  options.count = 3;
  options.width = 64;
  options.height = 48;
  auto summary = WriteDemoDataset(dir.path(), options, {});
  ASSERT_TRUE(summary.ok()) << summary.error().Message();
  EXPECT_EQ(summary.value().pairs, 3);
  for (int i = 0; i < 3; ++i) {
    const std::string stem = DemoStem(0, i);
    EXPECT_TRUE(fs::is_regular_file(dir / "train" / (stem + ".jpg"))) << stem;
    EXPECT_TRUE(fs::is_regular_file(dir / "train_masks" / (stem + "_mask.gif"))) << stem;
  }
  // Nothing else, in particular no leftover temporary files.
  EXPECT_EQ(SortedFiles(dir / "train").size(), 3u);
  EXPECT_EQ(SortedFiles(dir / "train_masks").size(), 3u);
}

TEST(DemoDatasetTest, StemsAreUniqueAndCarvanaShaped) {
  std::set<std::string> stems;
  for (int i = 0; i < 5000; ++i) {
    const std::string stem = DemoStem(3, i);
    ASSERT_EQ(stem.size(), 11u) << stem;
    EXPECT_EQ(stem[8], '_');
    EXPECT_EQ(std::stoi(stem.substr(9)), i % 16 + 1);
    stems.insert(stem);
  }
  EXPECT_EQ(stems.size(), 5000u);
}

TEST(DemoDatasetTest, FullSizeJpegsCostWhatPhotosCost) {
  TempDir dir;
  DemoOptions options;  // 1918x1280, quality 90
  options.count = 4;
  auto summary = WriteDemoDataset(dir.path(), options, {});
  ASSERT_TRUE(summary.ok()) << summary.error().Message();
  const double mean_kb = static_cast<double>(summary.value().image_bytes) / options.count / 1000.0;
  std::cout << "mean JPEG size at 1918x1280 q90: " << mean_kb << " KB\n";
  EXPECT_GE(mean_kb, 80.0);
  EXPECT_LE(mean_kb, 400.0);

  for (const auto& jpeg : SortedFiles(dir / "train")) {
    const cv::Mat image = cv::imread(jpeg.string(), cv::IMREAD_COLOR);
    ASSERT_FALSE(image.empty()) << jpeg;
    EXPECT_EQ(image.cols, 1918);
    EXPECT_EQ(image.rows, 1280);
  }
}

TEST(DemoDatasetTest, MasksAreTwoLevelPaletteGifs) {
  TempDir dir;
  DemoOptions options;
  options.count = 5;
  options.width = 480;
  options.height = 320;
  ASSERT_TRUE(WriteDemoDataset(dir.path(), options, {}).ok());
  for (const auto& path : SortedFiles(dir / "train_masks")) {
    const DecodedGif gif = ReadGif(path);
    ASSERT_EQ(gif.width, 480);
    ASSERT_EQ(gif.height, 320);
    ASSERT_EQ(gif.palette.size(), 2u);
    EXPECT_EQ(gif.palette[0].Red + gif.palette[0].Green + gif.palette[0].Blue, 0);
    EXPECT_EQ(gif.palette[1].Red + gif.palette[1].Green + gif.palette[1].Blue, 3 * 255);
    size_t foreground = 0;
    for (uint8_t index : gif.indices) {
      ASSERT_LE(index, 1);
      foreground += index;
    }
    // A car fills a good part of the frame, never all of it.
    const double fraction = static_cast<double>(foreground) / gif.indices.size();
    EXPECT_GT(fraction, 0.08) << path;
    EXPECT_LT(fraction, 0.6) << path;
  }
}

// The mask must outline the car in the photo: image edges concentrate on the
// mask's boundary, so a preview overlay visibly lines up.
TEST(DemoDatasetTest, MaskBoundaryFollowsImageEdges) {
  DemoOptions options;
  options.width = 960;
  options.height = 640;
  for (int index : {0, 4, 11}) {
    DemoRaster raster;
    RenderDemoSample(options, index, &raster);
    cv::Mat rgb(raster.height, raster.width, CV_8UC3, raster.rgb.data());
    cv::Mat mask(raster.height, raster.width, CV_8UC1, raster.mask.data());
    cv::Mat gray, smooth, gx, gy, magnitude;
    cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
    // Smooth away sensor noise so only real edges remain.
    cv::GaussianBlur(gray, smooth, cv::Size(5, 5), 1.5);
    cv::Sobel(smooth, gx, CV_32F, 1, 0);
    cv::Sobel(smooth, gy, CV_32F, 0, 1);
    cv::magnitude(gx, gy, magnitude);
    cv::Mat eroded, boundary;
    cv::erode(mask, eroded, cv::Mat());
    boundary = (mask != eroded);
    const double on_boundary = cv::mean(magnitude, boundary)[0];
    const double elsewhere = cv::mean(magnitude, ~boundary)[0];
    EXPECT_GT(on_boundary, 3.0 * elsewhere) << "sample " << index;
  }
}

}  // namespace
}  // namespace segfeed::tools
