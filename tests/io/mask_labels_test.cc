// Masks as label maps and binary masks of every stored form, read through
// PairReader as the loader reads them: palette and grey PNGs (1 to 16
// bits), colour-coded RGB PNGs, GIF indices, and the errors a label map
// can raise (label_out_of_range, naming the file, the values and their
// pixel counts) between good files on one reader.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decode/mask_values.h"
#include "fixtures/fixtures.h"
#include "fixtures/png_fixtures.h"
#include "io/pair_reader.h"
#include "io/read_pair.h"
#include "temp_dir.h"

namespace segfeed::io {
namespace {

using testing::Bytes;
using testing::PngPicture;
using testing::Rgb;
using testing::TempDir;

constexpr int kWidth = 6;
constexpr int kHeight = 2;

DecodeOptions Labels(int num_classes) {
  DecodeOptions options;
  options.mask_mode = MaskMode::kLabels;
  options.num_classes = num_classes;
  return options;
}

// A pair whose mask is `mask` (a PNG or GIF file's bytes) beside a PNG photo.
SamplePair WritePair(const TempDir& dir, const std::string& stem, const Bytes& mask) {
  SamplePair pair{stem, dir / (stem + ".png"), dir / (stem + "_mask.png")};
  PngPicture photo{kWidth, kHeight, 8, 2, false, {}, {}};
  photo.samples =
      testing::PackPngSamples(testing::TestSamples(kWidth, kHeight, 3, 8), kWidth, kHeight, 3, 8);
  testing::WriteFile(pair.image_path, testing::EncodePngWithSpng(photo));
  testing::WriteFile(pair.mask_path, mask);
  return pair;
}

Bytes GreyPng(const std::vector<uint16_t>& values, int bit_depth) {
  PngPicture picture{kWidth, kHeight, bit_depth, 0, false, {}, {}};
  picture.samples = testing::PackPngSamples(values, kWidth, kHeight, 1, bit_depth);
  return testing::EncodePngWithSpng(picture);
}

Bytes PalettePng(const std::vector<uint16_t>& indices, std::vector<Rgb> palette,
                 int bit_depth = 8) {
  PngPicture picture{kWidth, kHeight, bit_depth, 3, false, std::move(palette), {}};
  picture.samples = testing::PackPngSamples(indices, kWidth, kHeight, 1, bit_depth);
  return testing::EncodePngWithSpng(picture);
}

Bytes RgbPng(const std::vector<Rgb>& colours) {
  std::vector<uint16_t> values;
  for (const Rgb& c : colours) values.insert(values.end(), {c[0], c[1], c[2]});
  PngPicture picture{kWidth, kHeight, 8, 2, false, {}, {}};
  picture.samples = testing::PackPngSamples(values, kWidth, kHeight, 3, 8);
  return testing::EncodePngWithSpng(picture);
}

std::vector<uint8_t> ReadMask(const SamplePair& pair, const DecodeOptions& options) {
  PairReader reader(options);
  const Status status = ReadPair(reader, pair, 0, 0);
  EXPECT_TRUE(status.ok()) << status.error().Message();
  return reader.mask().pixels;
}

// VOC: palette indices are the classes, 255 the boundary (ignore).
TEST(MaskLabelsTest, PaletteIndicesAreLabelsAndTwoFiftyFiveIsIgnore) {
  TempDir dir;
  std::vector<Rgb> voc(256, Rgb{0, 0, 0});
  voc[1] = {128, 0, 0};
  voc[2] = {0, 128, 0};
  voc[255] = {224, 224, 192};
  const SamplePair pair =
      WritePair(dir, "voc", PalettePng({0, 1, 2, 255, 1, 0, 0, 0, 2, 2, 255, 1}, voc));
  EXPECT_EQ(ReadMask(pair, Labels(21)),
            (std::vector<uint8_t>{0, 1, 2, decode::kIgnoreLabel, 1, 0, 0, 0, 2, 2,
                                  decode::kIgnoreLabel, 1}));
  // The same file as a binary mask: every index but 0 is foreground, dark
  // red included (the luminance rule of old read it as all background).
  EXPECT_EQ(ReadMask(pair, {}), (std::vector<uint8_t>{0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(MaskLabelsTest, GreyValuesOfEveryDepthAreTheirIds) {
  TempDir dir;
  const std::vector<uint16_t> ids = {0, 1, 2, 3, 1, 0, 3, 3, 2, 1, 0, 0};
  for (int bits : {2, 4, 8, 16}) {
    const SamplePair pair = WritePair(dir, "grey" + std::to_string(bits), GreyPng(ids, bits));
    EXPECT_EQ(ReadMask(pair, Labels(4)), std::vector<uint8_t>(ids.begin(), ids.end()))
        << bits << " bits";
  }
  // A 1-bit mask is 0/1 as stored, not 0/255.
  const std::vector<uint16_t> bilevel = {0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1};
  const SamplePair pair = WritePair(dir, "bilevel", GreyPng(bilevel, 1));
  EXPECT_EQ(ReadMask(pair, {}), std::vector<uint8_t>(bilevel.begin(), bilevel.end()));
}

// Cityscapes-style: 16-bit ids through label_map; ids it leaves out are
// ignore.
TEST(MaskLabelsTest, LabelMapRemapsIdsAndIgnoresTheRest) {
  TempDir dir;
  DecodeOptions options = Labels(3);
  options.label_map = {{7, 0}, {8, 1}, {1000, 2}, {9, 255}};
  const SamplePair pair =
      WritePair(dir, "city", GreyPng({7, 8, 1000, 9, 4, 0, 7, 7, 8, 8, 1000, 65535}, 16));
  EXPECT_EQ(ReadMask(pair, options),
            (std::vector<uint8_t>{0, 1, 2, decode::kIgnoreLabel, decode::kIgnoreLabel,
                                  decode::kIgnoreLabel, 0, 0, 1, 1, 2, decode::kIgnoreLabel}));
}

TEST(MaskLabelsTest, MaskColorsMapColoursToClasses) {
  TempDir dir;
  DecodeOptions options = Labels(3);
  options.mask_colors = {{{0, 0, 0}, 0}, {{128, 64, 128}, 1}, {{255, 0, 0}, 2}};
  const Rgb k{0, 0, 0}, road{128, 64, 128}, red{255, 0, 0};
  const SamplePair pair =
      WritePair(dir, "camvid", RgbPng({k, road, road, red, k, k, red, red, road, k, k, k}));
  EXPECT_EQ(ReadMask(pair, options), (std::vector<uint8_t>{0, 1, 1, 2, 0, 0, 2, 2, 1, 0, 0, 0}));
  // In labels mode an RGB mask needs the colours.
  PairReader reader(Labels(3));
  const Status status = ReadPair(reader, pair, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kUnsupportedFormat);
  EXPECT_NE(status.error().detail.find("mask_colors"), std::string::npos);
}

// The most common silent bug of segmentation training, caught at the
// input: a value that is no class and not ignore names the file, the value
// and how many pixels have it; the reader goes on with the next file.
TEST(MaskLabelsTest, OutOfRangeValuesNameTheFileValuesAndCounts) {
  TempDir dir;
  std::vector<Rgb> palette(256, Rgb{9, 9, 9});
  const SamplePair good =
      WritePair(dir, "good", PalettePng({0, 1, 2, 255, 1, 0, 0, 0, 2, 2, 255, 1}, palette));
  const SamplePair bad =
      WritePair(dir, "bad", PalettePng({0, 1, 21, 37, 37, 0, 0, 0, 2, 2, 255, 1}, palette));
  const SamplePair grey_bad =
      WritePair(dir, "grey_bad", GreyPng({0, 1, 2, 300, 300, 300, 0, 0, 0, 0, 0, 0}, 16));
  DecodeOptions colours = Labels(2);
  colours.mask_colors = {{{0, 0, 0}, 0}, {{255, 255, 255}, 1}};
  const Rgb k{0, 0, 0}, w{255, 255, 255}, odd{1, 2, 3};
  const SamplePair colour_bad =
      WritePair(dir, "colour_bad", RgbPng({k, w, odd, k, w, w, odd, k, k, k, k, k}));

  PairReader reader(Labels(21));
  ASSERT_TRUE(ReadPair(reader, good, 0, 0).ok());
  const std::vector<uint8_t> good_mask = reader.mask().pixels;
  Status status = ReadPair(reader, bad, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kLabelOutOfRange);
  EXPECT_EQ(status.error().path, bad.mask_path.string());
  EXPECT_EQ(status.error().detail,
            "mask has values that are neither a class id in [0, 21) nor mask_ignore_value 255: "
            "21 (1 pixels), 37 (2 pixels)");
  EXPECT_EQ(ErrorKindName(status.error().kind), "label_out_of_range");
  ASSERT_TRUE(ReadPair(reader, good, 0, 0).ok());
  EXPECT_EQ(reader.mask().pixels, good_mask);

  status = ReadPair(reader, grey_bad, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().detail.find("300 (3 pixels)"), std::string::npos)
      << status.error().detail;

  PairReader colour_reader(colours);
  status = ReadPair(colour_reader, colour_bad, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kLabelOutOfRange);
  EXPECT_EQ(status.error().detail,
            "mask has colours mask_colors does not list: #010203 (2 pixels)");
}

// GIF masks in labels mode: the palette indices are the labels, whatever
// their colours.
TEST(MaskLabelsTest, GifIndicesAreLabels) {
  TempDir dir;
  testing::GifPicture gif;
  gif.screen_width = kWidth;
  gif.screen_height = kHeight;
  gif.palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}, Rgb{0, 0, 0}, Rgb{7, 7, 7}};
  gif.frames.push_back({0, 0, kWidth, kHeight, false, -1, {0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 1, 1}});
  SamplePair pair = WritePair(dir, "gif", testing::EncodeGif(gif));
  EXPECT_EQ(ReadMask(pair, Labels(4)), (std::vector<uint8_t>{0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 1, 1}));
  PairReader reader(Labels(3));
  const Status status = ReadPair(reader, pair, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().detail,
            "mask has values that are neither a class id in [0, 3) nor mask_ignore_value 255: 3 (2 "
            "pixels)");
}

// A binary palette PNG whose colours contradict the nonzero rule (index 0
// white) decodes by index and says its palette disagrees, for the checker.
TEST(MaskLabelsTest, InvertedBinaryPaletteIsFlagged) {
  TempDir dir;
  const std::vector<uint16_t> indices = {0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0};
  PairReader reader(DecodeOptions{});
  const SamplePair inverted =
      WritePair(dir, "inverted", PalettePng(indices, {Rgb{255, 255, 255}, Rgb{0, 0, 0}}, 1));
  ASSERT_TRUE(ReadPair(reader, inverted, 0, 0).ok());
  EXPECT_TRUE(reader.mask().palette_disagrees);
  const SamplePair usual =
      WritePair(dir, "usual", PalettePng(indices, {Rgb{0, 0, 0}, Rgb{255, 255, 255}}, 1));
  ASSERT_TRUE(ReadPair(reader, usual, 0, 0).ok());
  EXPECT_FALSE(reader.mask().palette_disagrees);
  EXPECT_EQ(reader.mask().pixels, std::vector<uint8_t>(indices.begin(), indices.end()));
}

// One binary rule for every stored form: the value (grey level, palette
// index, colour: any channel) decides under the nonzero rule, its luminance
// (a grey level as the 8-bit level it stands for) under the luminance rule;
// and every form counts the distinct values its file holds.
TEST(MaskLabelsTest, OneBinaryRuleForEveryMaskFormat) {
  TempDir dir;
  const std::vector<uint16_t> two = {0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0};
  const std::vector<uint16_t> three = {0, 1, 2, 0, 0, 0, 1, 1, 0, 0, 0, 0};
  auto grey = [](const std::vector<uint16_t>& values, uint16_t one, uint16_t other, int bits) {
    std::vector<uint16_t> levels;
    for (uint16_t v : values) levels.push_back(v == 0 ? 0 : v == 1 ? one : other);
    return GreyPng(levels, bits);
  };
  auto rgb = [](const std::vector<uint16_t>& values, Rgb one, Rgb other) {
    std::vector<Rgb> colours;
    for (uint16_t v : values) colours.push_back(v == 0 ? Rgb{0, 0, 0} : v == 1 ? one : other);
    return RgbPng(colours);
  };
  const std::vector<Rgb> voc = {Rgb{0, 0, 0}, Rgb{128, 0, 0}, Rgb{0, 128, 0}};
  testing::GifPicture gif;
  gif.screen_width = kWidth;
  gif.screen_height = kHeight;
  gif.palette = voc;
  auto gif_of = [&](const std::vector<uint16_t>& values) {
    gif.frames = {
        {0, 0, kWidth, kHeight, false, -1, std::vector<uint8_t>(values.begin(), values.end())}};
    return testing::EncodeGif(gif);
  };
  // A dark foreground in every form: grey level 1, VOC's dark red.
  const std::vector<std::pair<std::string, Bytes>> dark = {
      {"grey8", grey(two, 1, 1, 8)},
      {"grey16", grey(two, 1, 1, 16)},
      {"rgb", rgb(two, {128, 0, 0}, {0, 0, 0})},
      {"palette", PalettePng(two, voc)},
      {"gif", gif_of(two)}};
  const std::vector<uint8_t> foreground(two.begin(), two.end());
  DecodeOptions luminance;
  luminance.mask_foreground = MaskForeground::kLuminance;
  for (const auto& [name, bytes] : dark) {
    const SamplePair pair = WritePair(dir, name, bytes);
    PairReader reader(DecodeOptions{});
    ASSERT_TRUE(ReadPair(reader, pair, 0, 0).ok()) << name;
    EXPECT_EQ(reader.mask().pixels, foreground) << name;
    EXPECT_EQ(reader.mask().distinct_values, 2) << name;
    EXPECT_EQ(ReadMask(pair, luminance), std::vector<uint8_t>(two.size(), 0)) << name;
  }
  // Three values in every form.
  const std::vector<std::pair<std::string, Bytes>> non_binary = {
      {"grey8-3", grey(three, 255, 128, 8)},
      {"grey16-3", grey(three, 65535, 30000, 16)},
      {"rgb-3", rgb(three, {255, 255, 255}, {0, 255, 0})},
      {"palette-3", PalettePng(three, voc)},
      {"gif-3", gif_of(three)}};
  for (const auto& [name, bytes] : non_binary) {
    PairReader reader(DecodeOptions{});
    ASSERT_TRUE(ReadPair(reader, WritePair(dir, name, bytes), 0, 0).ok()) << name;
    EXPECT_EQ(reader.mask().distinct_values, 3) << name;
    EXPECT_EQ(reader.mask().pixels, (std::vector<uint8_t>{0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0}))
        << name;
  }
  // A 16-bit level is the 8-bit level it stands for: 128 x 257 is level
  // 128, one less is not.
  const SamplePair at = WritePair(dir, "grey16-at", grey(two, 128 * 257, 0, 16));
  EXPECT_EQ(ReadMask(at, luminance), foreground);
  const SamplePair below = WritePair(dir, "grey16-below", grey(two, 128 * 257 - 1, 0, 16));
  EXPECT_EQ(ReadMask(below, luminance), std::vector<uint8_t>(two.size(), 0));
}

// The checker's messages state the rule in force.
TEST(MaskLabelsTest, BinaryMaskWarningsStateTheRuleInForce) {
  DecodeOptions options;
  const Error non_binary = decode::NonBinaryMaskWarning("m/a_mask.png", options);
  EXPECT_EQ(non_binary.Message(),
            "m/a_mask.png: mask has more than two distinct values; read as binary with "
            "foreground = every value other than 0 (mask_foreground nonzero) [non_binary_mask]");
  options.mask_foreground = MaskForeground::kLuminance;
  options.mask_threshold = 100;
  EXPECT_EQ(decode::NonBinaryMaskWarning("m/a_mask.png", options).detail,
            "mask has more than two distinct values; read as binary with foreground = luminance "
            "of at least 100 (mask_foreground luminance, mask_threshold 100)");
  decode::MaskImage mask;
  mask.distinct_values = 2;
  const Error empty = decode::UniformMaskWarning("m/a_mask.png", options, mask, false);
  EXPECT_EQ(ErrorKindName(empty.kind), "suspicious_mask");
  EXPECT_EQ(empty.detail,
            "mask holds two distinct values but every pixel reads as background: foreground = "
            "luminance of at least 100 (mask_foreground luminance, mask_threshold 100)");
  mask.distinct_values = 3;
  mask.transparent_used = true;
  EXPECT_EQ(UniformMaskWarning("m/a.gif", DecodeOptions{}, mask, false).detail,
            "mask holds more than two distinct values but every pixel reads as background: "
            "foreground = every value other than 0 (mask_foreground nonzero); its GIF "
            "transparent index is background");
  EXPECT_EQ(UniformMaskWarning("m/a.gif", DecodeOptions{}, mask, true).detail,
            "mask holds more than two distinct values but every pixel reads as foreground: "
            "foreground = every value other than 0 (mask_foreground nonzero)");
}

}  // namespace
}  // namespace segfeed::io
