#include "demo/demo_dataset.h"

#include <gif_lib.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <string>
#include <vector>

#include "decode/gif_decoder.h"
#include "demo/demo_cache.h"
#include "demo/demo_layouts.h"
#include "fnv1a_digest.h"
#include "output/image_writers.h"
#include "output/label_palette.h"
#include "support/png_reader.h"
#include "temp_dir.h"

namespace segfeed::demo {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::DecodedPng;
using segfeed::testing::ReadPng;
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
  ASSERT_TRUE(output::WriteMaskGif(dir / "m.gif", demo.mask.data(), demo.width, demo.height).ok());
  const std::vector<char> bytes = ReadBytes(dir / "m.gif");
  const std::vector<uint8_t> gif(bytes.begin(), bytes.end());
  decode::GifDecoder decoder({});
  decode::MaskImage mask;
  const Status status = decoder.Decode(gif, "train_masks/m.gif", &mask);
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

DemoOptions LabelOptions(DemoMaskFormat format) {
  DemoOptions options;
  options.count = 8;
  options.width = 240;
  options.height = 160;
  options.classes = 5;
  options.mask_format = format;
  return options;
}

// The files of one folder, by name, in one digest: what the binary default
// set's files were before --classes existed (the project's reference
// digests depend on them).
std::string FolderDigest(const fs::path& dir) {
  Fnv1aDigest digest;
  for (const auto& sub : {"train", "train_masks"}) {
    for (const auto& path : SortedFiles(dir / sub)) {
      digest.Add(path.filename().string());
      const std::vector<char> bytes = ReadBytes(path);
      digest.Add(std::string_view(bytes.data(), bytes.size()));
    }
  }
  return digest.Hex();
}

TEST(DemoDatasetTest, BinaryDefaultFilesAreUnchanged) {
  TempDir dir;
  DemoOptions options;
  options.count = 3;
  options.width = 96;
  options.height = 64;
  ASSERT_TRUE(WriteDemoDataset(dir.path(), options, {}).ok());
  // Digest of the files make-demo wrote before --classes existed.
  EXPECT_EQ(FolderDigest(dir.path()), "e21dbbc3ba76b6db");
}

// --classes 5 as VOC writes it: palette PNGs with VOC's colour map whose
// indices are class ids 0..4 or 255 on the band around every object; over
// a few scenes every class appears.
TEST(DemoDatasetTest, PaletteLabelMapsHoldClassIdsAndAVoidBand) {
  TempDir dir;
  const DemoOptions options = LabelOptions(DemoMaskFormat::kPalette);
  ASSERT_TRUE(WriteDemoDataset(dir.path(), options, {}).ok());
  std::set<int> classes_seen;
  const auto masks = SortedFiles(dir / "train_masks");
  ASSERT_EQ(masks.size(), 8u);
  for (const auto& path : masks) {
    EXPECT_TRUE(path.filename().string().ends_with("_mask.png")) << path;
    const DecodedPng png = ReadPng(path);
    ASSERT_EQ(png.error, "");
    ASSERT_EQ(png.width, 240);
    ASSERT_EQ(png.height, 160);
    ASSERT_EQ(png.color_type, 3);
    ASSERT_EQ(png.bit_depth, 8);
    ASSERT_EQ(png.palette.size(), 256u);
    EXPECT_TRUE(std::equal(png.palette.begin(), png.palette.end(), output::VocColormap().begin()));
    size_t void_pixels = 0, background = 0;
    for (uint8_t index : png.samples) {
      ASSERT_TRUE(index <= 4 || index == 255) << path << ": " << int{index};
      void_pixels += index == 255;
      background += index == 0;
      if (index >= 1 && index <= 4) classes_seen.insert(index);
    }
    EXPECT_GT(void_pixels, 0u) << path;
    EXPECT_LT(void_pixels, png.samples.size() / 4) << path;
    EXPECT_GT(background, png.samples.size() / 3) << path;
  }
  EXPECT_EQ(classes_seen, (std::set<int>{1, 2, 3, 4}));
}

// The band lies on outlines only: every void pixel has a pixel of another
// label within the band's radius and only there.
TEST(DemoDatasetTest, VoidBandFollowsTheOutlines) {
  DemoOptions grey = LabelOptions(DemoMaskFormat::kGrey);
  DemoOptions palette = LabelOptions(DemoMaskFormat::kPalette);
  for (int index : {0, 3}) {
    DemoRaster clean, banded;
    RenderDemoSample(grey, index, &clean);
    RenderDemoSample(palette, index, &banded);
    EXPECT_EQ(clean.rgb, banded.rgb);
    const int r = kDemoBoundaryRadiusPx;
    for (int y = 0; y < clean.height; ++y) {
      for (int x = 0; x < clean.width; ++x) {
        const size_t i = static_cast<size_t>(y) * clean.width + x;
        bool near_other = false;
        for (int dy = -r; dy <= r; ++dy) {
          for (int dx = -r; dx <= r; ++dx) {
            const int yy = y + dy, xx = x + dx;
            if (yy < 0 || xx < 0 || yy >= clean.height || xx >= clean.width) continue;
            near_other |= clean.mask[static_cast<size_t>(yy) * clean.width + xx] != clean.mask[i];
          }
        }
        ASSERT_EQ(banded.mask[i], near_other ? 255 : clean.mask[i]) << x << "," << y;
      }
    }
  }
}

TEST(DemoDatasetTest, GreyLabelMapsHoldClassIds) {
  TempDir dir;
  const DemoOptions options = LabelOptions(DemoMaskFormat::kGrey);
  ASSERT_TRUE(WriteDemoDataset(dir.path(), options, {}).ok());
  std::set<int> values;
  for (const auto& path : SortedFiles(dir / "train_masks")) {
    const DecodedPng png = ReadPng(path);
    ASSERT_EQ(png.error, "");
    ASSERT_EQ(png.color_type, 0);
    ASSERT_EQ(png.bit_depth, 8);
    values.insert(png.samples.begin(), png.samples.end());
    const cv::Mat opencv = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(opencv.type(), CV_8UC1) << path;
  }
  EXPECT_EQ(values, (std::set<int>{0, 1, 2, 3, 4}));
}

// Lossless photos: the PNG holds exactly the rendered pixels.
TEST(DemoDatasetTest, PngPhotosHoldTheRenderedPixels) {
  TempDir dir;
  DemoOptions options = LabelOptions(DemoMaskFormat::kPalette);
  options.count = 2;
  options.image_format = DemoImageFormat::kPng;
  ASSERT_TRUE(WriteDemoDataset(dir.path(), options, {}).ok());
  for (int index = 0; index < options.count; ++index) {
    const fs::path path = dir / "train" / (DemoStem(0, index) + ".png");
    const cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(bgr.type(), CV_8UC3) << path;
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    DemoRaster raster;
    RenderDemoSample(options, index, &raster);
    ASSERT_EQ(rgb.cols, raster.width);
    ASSERT_EQ(rgb.rows, raster.height);
    EXPECT_TRUE(std::equal(raster.rgb.begin(), raster.rgb.end(), rgb.data)) << path;
  }
  EXPECT_EQ(SortedFiles(dir / "train").size(), 2u);
}

TEST(DemoDatasetTest, SameFilesWhateverTheThreadCount) {
  for (DemoMaskFormat format : {DemoMaskFormat::kPalette, DemoMaskFormat::kGrey}) {
    DemoOptions options = LabelOptions(format);
    options.count = 6;
    options.image_format = DemoImageFormat::kPng;
    TempDir one, four;
    options.threads = 1;
    ASSERT_TRUE(WriteDemoDataset(one.path(), options, {}).ok());
    options.threads = 4;
    ASSERT_TRUE(WriteDemoDataset(four.path(), options, {}).ok());
    EXPECT_EQ(FolderDigest(one.path()), FolderDigest(four.path()));
  }
}

// The demo's options are checked by the demo, for every front end: the
// writers refuse what cannot be rendered before writing anything, in the
// words the CLI gives under its flags.
TEST(DemoDatasetTest, WritersRefuseOptionsOutOfRangeBeforeWriting) {
  const auto refusal = [](const DemoOptions& options, DemoLayout layout) -> std::string {
    TempDir dir;
    try {
      if (layout == DemoLayout::kCarvana) {
        (void)WriteDemoDataset(dir / "out", options, {});
      } else {
        (void)WriteDemoLayout(dir / "out", layout, options, {});
      }
    } catch (const ConfigError& e) {
      EXPECT_FALSE(fs::exists(dir / "out")) << e.what();
      return e.what();
    }
    return "no error";
  };
  DemoOptions options;
  options.count = 2;
  options.width = 32;
  options.height = 24;
  for (const int classes : {1, -1, 256}) {
    options.classes = classes;
    EXPECT_EQ(
        refusal(options, DemoLayout::kCarvana),
        "classes must be 0 (binary masks) or in [2, 255] (got " + std::to_string(classes) + ")");
  }
  options.classes = 255;
  options.quality = 0;
  EXPECT_EQ(refusal(options, DemoLayout::kVoc), "quality must be in [1, 100] (got 0)");
  options.quality = 90;
  options.width = 0;
  EXPECT_EQ(refusal(options, DemoLayout::kCarvana), "width must be >= 1 (got 0)");
  options.width = 32;
  EXPECT_NO_THROW(ValidateDemoOptions(options));
  EXPECT_EQ(refusal(options, DemoLayout::kCarvana), "no error");
}

// The cache keys on every option that shapes the files: a --classes request
// never gets the binary set of the same size and seed, nor palette maps for
// grey ones.
TEST(DemoDatasetTest, CacheKeysOnClassesAndFormats) {
  TempDir cache;
  ASSERT_EQ(setenv("SEGFEED_CACHE_DIR", cache.path().c_str(), 1), 0);
  DemoOptions options;
  options.count = 2;
  options.width = 64;
  options.height = 48;
  const auto binary = EnsureDemoDataset(options);
  options.classes = 5;
  const auto palette = EnsureDemoDataset(options);
  options.mask_format = DemoMaskFormat::kGrey;
  const auto grey = EnsureDemoDataset(options);
  options.image_format = DemoImageFormat::kPng;
  const auto png = EnsureDemoDataset(options);
  options.threads = 1;  // not part of the files
  const auto png_again = EnsureDemoDataset(options);
  unsetenv("SEGFEED_CACHE_DIR");
  ASSERT_TRUE(binary.ok() && palette.ok() && grey.ok() && png.ok() && png_again.ok());
  const std::set<fs::path> dirs = {binary.value(), palette.value(), grey.value(), png.value()};
  EXPECT_EQ(dirs.size(), 4u);
  EXPECT_EQ(png_again.value(), png.value());
  EXPECT_EQ(binary.value().filename(), "demo-v1-n2-seed0-64x48-q90");
  const std::string stem = DemoStem(0, 0);
  EXPECT_TRUE(fs::exists(binary.value() / "train_masks" / (stem + "_mask.gif")));
  EXPECT_EQ(ReadPng(palette.value() / "train_masks" / (stem + "_mask.png")).color_type, 3);
  EXPECT_EQ(ReadPng(grey.value() / "train_masks" / (stem + "_mask.png")).color_type, 0);
  EXPECT_TRUE(fs::exists(png.value() / "train" / (stem + ".png")));
}

}  // namespace
}  // namespace segfeed::demo
