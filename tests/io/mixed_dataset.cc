#include "io/mixed_dataset.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "io/defective_files.h"
#include "io/fixtures.h"
#include "io/png_fixtures.h"

namespace segfeed::testing {
namespace {

namespace fs = std::filesystem;
constexpr int kWidth = MixedDataset::kWidth;
constexpr int kHeight = MixedDataset::kHeight;

std::string Stem(int position, const std::string& name) {
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%03d_", position);
  return prefix + name;
}

// A different picture and mask for every good pair.
Bytes GoodJpeg(int index) {
  std::vector<uint8_t> rgb = TestPicture(kWidth, kHeight);
  for (size_t i = 0; i < rgb.size(); ++i)
    rgb[i] = static_cast<uint8_t>(rgb[i] + 37 * index + i % (index + 2));
  return EncodeJpegWithOpenCv(rgb, kWidth, kHeight, JpegVariant::kBaseline, 90);
}

Bytes GoodGif(int index) {
  std::vector<uint8_t> mask = TestMask(kWidth, kHeight);
  for (int x = 0; x < kWidth; ++x) mask[static_cast<size_t>(index % kHeight) * kWidth + x] ^= 1;
  return EncodeMaskGif(mask, kWidth, kHeight);
}

struct Layout {
  fs::path images, masks;
  fs::path Image(const std::string& stem) const { return images / (stem + ".jpg"); }
  fs::path Mask(const std::string& stem) const { return masks / (stem + "_mask.gif"); }
};

Layout MakeLayout(const fs::path& root) {
  Layout layout{root / "train", root / "train_masks"};
  fs::create_directories(layout.images);
  fs::create_directories(layout.masks);
  return layout;
}

// Good pair `index` sits at stem position 2 * index: bad pairs fill the odd
// positions between them, so in stem order good and bad alternate.
void WriteGoodPairs(const Layout& layout, int good_pairs, MixedDataset* dataset) {
  for (int i = 0; i < good_pairs; ++i) {
    const std::string stem = Stem(2 * i, "good");
    WriteFile(layout.Image(stem), GoodJpeg(i));
    WriteFile(layout.Mask(stem), GoodGif(i));
    if (dataset) dataset->good_stems.push_back(stem);
  }
}

}  // namespace

std::vector<MixedFile> WriteOutlierPairs(const fs::path& root, int64_t max_file_bytes) {
  const Layout layout = MakeLayout(root);
  const Bytes good_gif = GoodGif(2000);
  const std::vector<uint8_t> rgb = TestPicture(kWidth, kHeight);
  std::vector<MixedFile> outliers;
  auto image_outlier = [&](const std::string& stem, const Bytes& jpeg, ErrorKind kind) {
    WriteFile(layout.Image(stem), jpeg);
    WriteFile(layout.Mask(stem), good_gif);
    outliers.push_back({layout.Image(stem).string(), kind});
  };
  image_outlier(
      "outlier_baseline_10000x10000",
      WithJpegFrameSize(EncodeJpegWithOpenCv(rgb, kWidth, kHeight, JpegVariant::kBaseline), 10000,
                        10000),
      ErrorKind::kTooLarge);
  image_outlier(
      "outlier_progressive_10000x10000",
      WithJpegFrameSize(EncodeJpegWithOpenCv(rgb, kWidth, kHeight, JpegVariant::kProgressive),
                        10000, 10000),
      ErrorKind::kTooLarge);
  {
    // JPEG-looking junk: read whole (it is under the limit), then refused.
    Bytes junk = RandomBytes(static_cast<size_t>(max_file_bytes) - 1, 21);
    junk[0] = 0xFF, junk[1] = 0xD8, junk[2] = 0xFF, junk[3] = 0xE0;
    image_outlier("outlier_junk_under_limit", junk, ErrorKind::kCorruptImage);
  }
  {
    const std::string stem = "outlier_junk_over_limit";
    WriteFile(layout.Image(stem), {});
    fs::resize_file(layout.Image(stem), static_cast<uintmax_t>(max_file_bytes) + 1);  // sparse
    WriteFile(layout.Mask(stem), good_gif);
    outliers.push_back({layout.Image(stem).string(), ErrorKind::kTooLarge});
  }
  {
    const std::string stem = "outlier_gif_screen_10000x10000";
    GifPicture picture;
    picture.screen_width = 10000;
    picture.screen_height = 10000;
    GifFrame frame;
    frame.width = kWidth;
    frame.height = kHeight;
    frame.indices = TestMask(kWidth, kHeight);
    picture.frames.push_back(frame);
    WriteFile(layout.Image(stem),
              EncodeJpegWithOpenCv(rgb, kWidth, kHeight, JpegVariant::kBaseline));
    WriteFile(layout.Mask(stem), EncodeGif(picture));
    outliers.push_back({layout.Mask(stem).string(), ErrorKind::kTooLarge});
  }
  return outliers;
}

void WriteGoodPairsOfMixedDataset(const fs::path& root, int good_pairs) {
  WriteGoodPairs(MakeLayout(root), good_pairs, nullptr);
}

MixedDataset WriteMixedDataset(const fs::path& root, int good_pairs) {
  const Layout layout = MakeLayout(root);
  MixedDataset dataset;
  WriteGoodPairs(layout, good_pairs, &dataset);

  int position = 1;
  auto next_stem = [&](const std::string& name) {
    const std::string stem = Stem(position, name);
    position += 2;
    return stem;
  };
  const Bytes good_jpeg = GoodJpeg(1000);
  const Bytes good_gif = GoodGif(1000);
  for (const DefectiveFile& defect : DefectiveJpegs(good_jpeg, kWidth, kHeight)) {
    const std::string stem = next_stem("jpeg_" + defect.name);
    WriteFile(layout.Image(stem), defect.bytes);
    WriteFile(layout.Mask(stem), good_gif);
    dataset.bad_files.push_back({layout.Image(stem).string(), defect.kind});
  }
  for (const DefectiveFile& defect : DefectiveGifs(good_gif)) {
    const std::string stem = next_stem("gif_" + defect.name);
    WriteFile(layout.Image(stem), good_jpeg);
    WriteFile(layout.Mask(stem), defect.bytes);
    dataset.bad_files.push_back({layout.Mask(stem).string(), defect.kind});
  }
  {
    const std::string stem = next_stem("empty_image");
    WriteFile(layout.Image(stem), {});
    WriteFile(layout.Mask(stem), good_gif);
    dataset.bad_files.push_back({layout.Image(stem).string(), ErrorKind::kEmptyFile});
  }
  {
    const std::string stem = next_stem("empty_mask");
    WriteFile(layout.Image(stem), good_jpeg);
    WriteFile(layout.Mask(stem), {});
    dataset.bad_files.push_back({layout.Mask(stem).string(), ErrorKind::kEmptyFile});
  }
  {
    const std::string stem = next_stem("dangling_symlink");
    fs::create_symlink(layout.images / "does-not-exist.jpg", layout.Image(stem));
    WriteFile(layout.Mask(stem), good_gif);
    dataset.bad_files.push_back({layout.Image(stem).string(), ErrorKind::kIoError});
  }
  {
    const std::string stem = next_stem("fifo");
    EXPECT_EQ(mkfifo(layout.Image(stem).c_str(), 0600), 0);
    WriteFile(layout.Mask(stem), good_gif);
    dataset.bad_files.push_back({layout.Image(stem).string(), ErrorKind::kIoError});
  }
  {
    const std::string stem = next_stem("size_mismatch");
    WriteFile(layout.Image(stem), good_jpeg);
    WriteFile(layout.Mask(stem), EncodeMaskGif(TestMask(kWidth / 2, kHeight), kWidth / 2, kHeight));
    dataset.bad_files.push_back({layout.Image(stem).string(), ErrorKind::kSizeMismatch});
  }
  {
    const std::string stem = next_stem("three_colour_mask");
    WriteFile(layout.Image(stem), good_jpeg);
    WriteFile(layout.Mask(stem), ThreeColourMaskGif(kWidth, kHeight));
    dataset.non_binary_masks.push_back({layout.Mask(stem).string(), ErrorKind::kNonBinaryMask});
  }
  for (const char* name : {"unpaired_a", "unpaired_b"}) {
    const std::string stem = next_stem(name);
    WriteFile(layout.Image(stem), good_jpeg);
    dataset.unpaired_images.push_back({layout.Image(stem).string(), ErrorKind::kMissingMask});
  }
  for (const char* name : {"orphan_a", "orphan_b"}) {
    const std::string stem = next_stem(name);
    WriteFile(layout.Mask(stem), good_gif);
    dataset.orphan_masks.push_back({layout.Mask(stem).string(), ErrorKind::kOrphanMask});
  }
  return dataset;
}

HugeHeaderFiles WriteHugeHeaderPairs(const fs::path& root) {
  fs::create_directories(root / "train");
  fs::create_directories(root / "train_masks");
  constexpr uint32_t kSide = 10000;
  // An 8x8 picture with the header of a kSide x kSide one: its image data
  // ends long before the claimed rows.
  auto png = [](int bit_depth, int color_type, bool interlaced) {
    PngPicture picture{8, 8, bit_depth, color_type, interlaced, {}, {}};
    const int channels = color_type == 2 ? 3 : color_type == 6 ? 4 : color_type == 4 ? 2 : 1;
    if (color_type == 3) picture.palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}};
    picture.samples = PackPngSamples(TestSamples(8, 8, channels, color_type == 3 ? 1 : bit_depth),
                                     8, 8, channels, bit_depth);
    return WithPngSize(EncodePngWithSpng(picture), kSide, kSide);
  };
  auto gif = [](int side) {
    GifPicture screen;
    screen.screen_width = screen.screen_height = side;
    screen.frames.push_back({0, 0, 2, 2, false, -1, {0, 1, 1, 0}});
    return EncodeGif(screen);
  };
  const std::vector<uint8_t> rgb = TestPicture(16, 16);
  const Bytes good_photo =
      EncodeJpegWithOpenCv(TestPicture(64, 48), 64, 48, JpegVariant::kBaseline);
  struct Pair {
    std::string stem;
    Bytes photo;
    Bytes mask;
    bool photo_claims;  // false: a good photo, the mask claims the size
  };
  const std::vector<Pair> pairs = {
      {"huge_png_rgb8", png(8, 2, false), png(8, 0, false), true},
      {"huge_png_rgba16", png(16, 6, false), png(16, 0, false), true},
      {"huge_png_palette_interlaced", png(8, 3, true), png(1, 0, true), true},
      {"huge_jpeg_baseline",
       WithJpegFrameSize(EncodeJpegWithOpenCv(rgb, 16, 16, JpegVariant::kBaseline), kSide, kSide),
       gif(kSide), true},
      {"huge_jpeg_progressive",
       WithJpegFrameSize(EncodeJpegWithOpenCv(rgb, 16, 16, JpegVariant::kProgressive), 8000, 8000),
       gif(8000), true},
      {"huge_mask_png_grey8", good_photo, png(8, 0, false), false},
      {"huge_mask_png_grey16", good_photo, png(16, 0, false), false},
      {"huge_mask_png_interlaced", good_photo, png(8, 0, true), false},
      {"huge_mask_gif", good_photo, gif(kSide), false},
  };
  HugeHeaderFiles files;
  for (const Pair& pair : pairs) {
    const fs::path photo = root / "train" / (pair.stem + (pair.photo[0] == 0x89 ? ".png" : ".jpg"));
    const fs::path mask =
        root / "train_masks" / (pair.stem + (pair.mask[0] == 0x89 ? "_mask.png" : "_mask.gif"));
    WriteFile(photo, pair.photo);
    WriteFile(mask, pair.mask);
    if (pair.photo_claims) files.claiming.push_back(photo.string());
    files.claiming.push_back(mask.string());
    files.first_of_pair.push_back(pair.photo_claims ? photo.string() : mask.string());
  }
  std::sort(files.claiming.begin(), files.claiming.end());
  std::sort(files.first_of_pair.begin(), files.first_of_pair.end());
  return files;
}

int WriteTinyJpegPairs(const fs::path& root) {
  fs::create_directories(root / "train");
  fs::create_directories(root / "train_masks");
  int pairs = 0;
  for (int side = 1; side <= 16; ++side) {
    const std::vector<uint8_t> rgb = TestPicture(side, side);
    const std::vector<std::pair<std::string, Bytes>> photos = {
        {"opencv_progressive", EncodeJpegWithOpenCv(rgb, side, side, JpegVariant::kProgressive)},
        {"opencv_baseline", EncodeJpegWithOpenCv(rgb, side, side, JpegVariant::kBaseline)},
        {"libjpeg_progressive",
         EncodeJpegWithLibjpeg(rgb, side, side, LibjpegVariant::kProgressive)},
        {"libjpeg_arithmetic", EncodeJpegWithLibjpeg(rgb, side, side, LibjpegVariant::kArithmetic)},
        {"libjpeg_arithmetic_progressive",
         EncodeJpegWithLibjpeg(rgb, side, side, LibjpegVariant::kArithmeticProgressive)},
        {"libjpeg_progressive_411",
         EncodeJpegWithLibjpeg(rgb, side, side, LibjpegVariant::kProgressive411)},
    };
    const Bytes mask = EncodeMaskGif(TestMask(side, side), side, side);
    for (const auto& [coding, jpeg] : photos) {
      const std::string stem = coding + "_" + std::to_string(side);
      WriteFile(root / "train" / (stem + ".jpg"), jpeg);
      WriteFile(root / "train_masks" / (stem + "_mask.gif"), mask);
      ++pairs;
    }
  }
  return pairs;
}

}  // namespace segfeed::testing
