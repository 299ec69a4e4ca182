// The PNG writers: what they write, libspng and OpenCV read back exactly,
// and a file they cannot write is an error naming it.
#include "output/image_writers.h"

#include <gtest/gtest.h>

#include <array>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <vector>

#include "output/label_palette.h"
#include "support/png_reader.h"
#include "temp_dir.h"

namespace segfeed::output {
namespace {

using segfeed::testing::DecodedPng;
using segfeed::testing::ReadPng;
using segfeed::testing::TempDir;

std::vector<uint8_t> Ramp(size_t n, int step) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * step);
  return v;
}

TEST(ImageWritersTest, PalettePngKeepsIndicesAndPalette) {
  TempDir dir;
  const int width = 7, height = 5;
  std::vector<uint8_t> indices(width * height);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i % 9 == 0 ? 255 : i % 4;
  ASSERT_TRUE(WritePalettePng(dir / "l.png", indices.data(), width, height, VocColormap()).ok());
  const DecodedPng png = ReadPng(dir / "l.png");
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.width, width);
  EXPECT_EQ(png.height, height);
  EXPECT_EQ(png.color_type, 3);
  EXPECT_EQ(png.bit_depth, 8);
  EXPECT_EQ(png.samples, indices);
  ASSERT_EQ(png.palette.size(), 256u);
  EXPECT_EQ(png.palette[1], (LabelRgb{128, 0, 0}));
  EXPECT_EQ(png.palette[255], (LabelRgb{224, 224, 192}));
}

TEST(ImageWritersTest, PalettePngRejectsAnIndexOutsideThePalette) {
  TempDir dir;
  const std::array<LabelRgb, 2> palette = {LabelRgb{0, 0, 0}, LabelRgb{255, 255, 255}};
  const std::vector<uint8_t> indices = {0, 1, 2, 1};
  const Status status = WritePalettePng(dir / "bad.png", indices.data(), 2, 2, palette);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().Message().find("bad.png"), std::string::npos)
      << status.error().Message();
  EXPECT_NE(status.error().Message().find("palette index 2 at pixel 2"), std::string::npos)
      << status.error().Message();
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.png"));
  // The next write is not affected.
  const std::vector<uint8_t> good = {0, 1, 1, 0};
  EXPECT_TRUE(WritePalettePng(dir / "good.png", good.data(), 2, 2, palette).ok());
  EXPECT_EQ(ReadPng(dir / "good.png").samples, good);
}

TEST(ImageWritersTest, GreyPngHoldsTheValuesAt8And16Bits) {
  TempDir dir;
  const int width = 33, height = 3;
  const std::vector<uint8_t> grey = Ramp(width * height, 7);
  ASSERT_TRUE(WriteGreyPng(dir / "g8.png", grey.data(), width, height).ok());
  DecodedPng png = ReadPng(dir / "g8.png");
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.color_type, 0);
  EXPECT_EQ(png.bit_depth, 8);
  EXPECT_EQ(png.samples, grey);
  const cv::Mat opencv8 = cv::imread((dir / "g8.png").string(), cv::IMREAD_UNCHANGED);
  ASSERT_EQ(opencv8.type(), CV_8UC1);
  EXPECT_EQ(opencv8.at<uint8_t>(2, 5), grey[2 * width + 5]);

  std::vector<uint16_t> deep(width * height);
  for (size_t i = 0; i < deep.size(); ++i) deep[i] = static_cast<uint16_t>(i * 613 + 258);
  ASSERT_TRUE(
      WriteGreyPng(OutputFile::Prepare(dir / "g16.png").value(), deep.data(), width, height).ok());
  png = ReadPng(dir / "g16.png");
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.bit_depth, 16);
  // OpenCV reads the big-endian samples back as the same numbers.
  const cv::Mat opencv16 = cv::imread((dir / "g16.png").string(), cv::IMREAD_UNCHANGED);
  ASSERT_EQ(opencv16.type(), CV_16UC1);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      ASSERT_EQ(opencv16.at<uint16_t>(y, x), deep[y * width + x]) << x << "," << y;
    }
  }
}

TEST(ImageWritersTest, RgbPngDecodesToTheSamePixels) {
  TempDir dir;
  const int width = 20, height = 11;
  const std::vector<uint8_t> rgb = Ramp(width * height * 3, 5);
  ASSERT_TRUE(WritePng(dir / "c.png", rgb.data(), width, height, 3).ok());
  const DecodedPng png = ReadPng(dir / "c.png");
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.color_type, 2);
  EXPECT_EQ(png.samples, rgb);
  const cv::Mat bgr = cv::imread((dir / "c.png").string(), cv::IMREAD_UNCHANGED);
  ASSERT_EQ(bgr.type(), CV_8UC3);
  const cv::Vec3b pixel = bgr.at<cv::Vec3b>(4, 9);
  const size_t i = (4 * width + 9) * 3;
  EXPECT_EQ(pixel[2], rgb[i]);
  EXPECT_EQ(pixel[1], rgb[i + 1]);
  EXPECT_EQ(pixel[0], rgb[i + 2]);
}

TEST(ImageWritersTest, ErrorsNameTheFile) {
  TempDir dir;
  const std::vector<uint8_t> pixels(12, 0);
  Status status = WritePng(dir / "no" / "such" / "x.png", pixels.data(), 2, 2, 3);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().Message().find("x.png"), std::string::npos);
  status = WritePng(dir / "two.png", pixels.data(), 2, 2, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().Message().find("two.png"), std::string::npos);
  status = WriteGreyPng(dir / "empty.png", pixels.data(), 0, 4);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().Message().find("empty.png: cannot write: PNG needs a size"),
            std::string::npos)
      << status.error().Message();
}

}  // namespace
}  // namespace segfeed::output
