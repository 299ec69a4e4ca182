// Label maps through the Loader, end to end: the value that marks a pixel
// without a class in the files (mask_ignore_value) and the value written
// into the batch for it (ignore_index) are two options, so a VOC-style
// palette PNG's 255 boundary trains as PyTorch's -100 with no label_map.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "fixtures/png_fixtures.h"
#include "segfeed/errors.h"
#include "segfeed/loader.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using testing::PngPicture;
using testing::Rgb;
using testing::TempDir;

constexpr int kWidth = 6;
constexpr int kHeight = 2;

// One pair in Carvana's folders: a PNG photo and a mask PNG of `values`,
// palette indices (`palette` true, VOC's way) or 8-bit grey values.
void WritePair(const TempDir& dir, const std::string& stem, const std::vector<uint16_t>& values,
               bool palette) {
  std::filesystem::create_directories(dir / "train");
  std::filesystem::create_directories(dir / "train_masks");
  PngPicture photo{kWidth, kHeight, 8, 2, false, {}, {}};
  photo.samples =
      testing::PackPngSamples(testing::TestSamples(kWidth, kHeight, 3, 8), kWidth, kHeight, 3, 8);
  testing::WriteFile(dir / "train" / (stem + ".png"), testing::EncodePngWithSpng(photo));
  PngPicture mask{kWidth, kHeight, 8, palette ? 3 : 0, false, {}, {}};
  if (palette) mask.palette = std::vector<Rgb>(256, Rgb{224, 224, 192});  // VOC's boundary colour
  mask.samples = testing::PackPngSamples(values, kWidth, kHeight, 1, 8);
  testing::WriteFile(dir / "train_masks" / (stem + "_mask.png"), testing::EncodePngWithSpng(mask));
}

// Labels mode, the source's size, no augmentation: the batch's mask pixels
// lie where the file's do.
LoaderOptions Labels(int num_classes) {
  LoaderOptions options;
  options.batch_size = 1;
  options.threads = 1;
  options.shuffle = Shuffle::kNone;
  options.pinned = PinnedMode::kOff;
  options.decode.mask_mode = MaskMode::kLabels;
  options.decode.num_classes = num_classes;
  options.output.mask_dtype = ElementType::kInt64;
  AugmentOptions& augment = options.augment;
  augment.output_width = kWidth;
  augment.output_height = kHeight;
  augment.flip_lr_probability = augment.flip_ud_probability = augment.rotation_fraction = 0;
  augment.contrast_enabled = augment.brightness_enabled = false;
  augment.saturation_enabled = augment.hue_enabled = false;
  return options;
}

std::vector<int64_t> FirstMask(const TempDir& dir, const LoaderOptions& options) {
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  loader.StartEpoch(0);
  auto lease = loader.Next();
  EXPECT_TRUE(lease.has_value());
  if (!lease) return {};
  const auto* values = static_cast<const int64_t*>(lease->masks().data);
  return std::vector<int64_t>(values, values + kWidth * kHeight);
}

const std::vector<uint16_t> kVocMask = {0, 255, 1, 1, 255, 2, 0, 0, 255, 2, 2, 1};

TEST(LoaderLabelsTest, VocBoundaryIsWrittenAsTheIgnoreIndexWithoutALabelMap) {
  TempDir dir;
  WritePair(dir, "a", kVocMask, /*palette=*/true);
  LoaderOptions options = Labels(3);
  EXPECT_EQ(FirstMask(dir, options),
            (std::vector<int64_t>{0, 255, 1, 1, 255, 2, 0, 0, 255, 2, 2, 1}));
  options.decode.ignore_index = -100;
  EXPECT_EQ(FirstMask(dir, options),
            (std::vector<int64_t>{0, -100, 1, 1, -100, 2, 0, 0, -100, 2, 2, 1}));
}

// The file value is ignore before the map is looked at; the map's ids left
// out and its targets equal to ignore_index are the written value too.
TEST(LoaderLabelsTest, MaskIgnoreValueIsIgnoreBeforeTheLabelMap) {
  TempDir dir;
  WritePair(dir, "a", {0, 7, 1, 1, 7, 2, 0, 0, 7, 2, 9, 255}, /*palette=*/false);
  LoaderOptions options = Labels(3);
  options.decode.mask_ignore_value = 7;
  options.decode.ignore_index = -1;
  options.decode.label_map = {{0, 2}, {1, 1}, {2, 0}, {255, 1}};
  EXPECT_EQ(FirstMask(dir, options),
            (std::vector<int64_t>{2, -1, 1, 1, -1, 0, 2, 2, -1, 0, -1, 1}));
}

// Without a map, a file value that is neither a class nor mask_ignore_value
// stops the stream naming mask_ignore_value: 255 is no longer ignore once
// the files say 7 is.
TEST(LoaderLabelsTest, AnotherFileValueIsOutOfRange) {
  TempDir dir;
  WritePair(dir, "a", kVocMask, /*palette=*/true);
  LoaderOptions options = Labels(3);
  options.decode.mask_ignore_value = 7;
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  loader.StartEpoch(0);
  try {
    loader.Next();
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::kLabelOutOfRange);
    EXPECT_NE(e.error().detail.find("nor mask_ignore_value 7: 255 (3 pixels)"), std::string::npos)
        << e.error().detail;
  }
}

TEST(LoaderLabelsTest, MaskIgnoreValueIsCheckedAgainstTheClassesAndTheMap) {
  TempDir dir;
  WritePair(dir, "a", kVocMask, /*palette=*/true);
  const auto message = [&](const LoaderOptions& options) -> std::string {
    try {
      Loader loader(DatasetSpec::Carvana(dir.path()), options);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  LoaderOptions options = Labels(3);
  options.decode.mask_ignore_value = 2;
  EXPECT_EQ(message(options),
            "mask_ignore_value must not be a class id in [0, num_classes = 3) without a label_map "
            "(got 2)");
  options.decode.label_map = {{2, 0}};
  EXPECT_EQ(message(options),
            "label_map must not map mask_ignore_value 2: its pixels are ignore before mapping (got "
            "2:0; set mask_ignore_value to the file's own unlabelled value to train 2)");
  options.decode.label_map = {{2, 255}, {3, 0}};  // says what the rule does: allowed
  EXPECT_EQ(message(options), "no error");
  // Colour-coded masks name their unlabelled colour in mask_colors.
  options.decode.label_map.clear();
  options.decode.mask_colors = {{{0, 0, 0}, 0}, {{224, 224, 192}, 255}};
  EXPECT_EQ(
      message(options),
      "mask_ignore_value applies to masks of ids: with mask_colors, map the unlabelled colour "
      "to ignore_index there (got 2 with mask_colors)");
  LoaderOptions binary;
  binary.decode.mask_ignore_value = 0;
  EXPECT_EQ(message(binary),
            "mask_ignore_value applies to label maps: set mask_mode='labels' (got 0 with "
            "mask_mode='binary')");
}

// A colour that marks pixels without a class (CamVid's Void, a colour
// file's) is written as ignore_index whatever that is; the Loader gives the
// classes' names back.
TEST(LoaderLabelsTest, AnIgnoredColourIsTheIgnoreIndexAndTheClassesKeepTheirNames) {
  TempDir dir;
  WritePair(dir, "a", kVocMask, true);
  LoaderOptions options = Labels(2);
  options.decode.mask_ignore_value = 255;
  options.decode.ignore_index = -100;
  MaskColor boundary{{224, 224, 192}, 0, true};
  options.decode.mask_colors = {boundary};
  options.decode.class_names = {"background", "thing"};
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  EXPECT_EQ(loader.class_names(), (std::vector<std::string>{"background", "thing"}));
  loader.StartEpoch(0);
  auto lease = loader.Next();
  ASSERT_TRUE(lease.has_value());
  const auto* values = static_cast<const int64_t*>(lease->masks().data);
  // Every palette entry is the boundary's colour, so every pixel is ignore.
  for (int i = 0; i < kWidth * kHeight; ++i) EXPECT_EQ(values[i], -100) << i;
}

}  // namespace
}  // namespace segfeed
