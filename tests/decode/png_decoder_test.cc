#include "decode/png_decoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "decode/decode_budget.h"
#include "fixtures/defective_files.h"
#include "fixtures/fixtures.h"
#include "fixtures/png_fixtures.h"

namespace segfeed::decode {
namespace {

using testing::Bytes;
using testing::PngPicture;
using testing::Rgb;

constexpr const char* kMaskPath = "SegmentationClass/2007_000032.png";
constexpr const char* kImagePath = "JPEGImages/2007_000032.png";

// One PNG kind: colour type and bit depth.
struct PngKind {
  int color_type;
  int bit_depth;
};
// Every combination PNG allows.
constexpr PngKind kEveryKind[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1},
                                  {3, 2}, {3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};

int ChannelsOf(int color_type) {
  return color_type == 2 ? 3 : color_type == 4 ? 2 : color_type == 6 ? 4 : 1;
}

std::string KindName(const PngKind& kind, bool interlaced, int width, int height) {
  return "colour type " + std::to_string(kind.color_type) + ", " + std::to_string(kind.bit_depth) +
         "-bit" + (interlaced ? ", Adam7, " : ", ") + std::to_string(width) + "x" +
         std::to_string(height);
}

// A palette of `size` distinct colours.
std::vector<Rgb> TestPalette(int size) {
  std::vector<Rgb> palette(size);
  for (int i = 0; i < size; ++i) {
    palette[i] = Rgb{static_cast<uint8_t>(i), static_cast<uint8_t>(255 - i),
                     static_cast<uint8_t>(i * 7 + 3)};
  }
  return palette;
}

PngPicture MakePicture(const PngKind& kind, bool interlaced, int width, int height,
                       std::vector<uint16_t>* values) {
  const int channels = ChannelsOf(kind.color_type);
  *values = testing::TestSamples(width, height, channels, kind.bit_depth);
  PngPicture picture;
  picture.width = width;
  picture.height = height;
  picture.bit_depth = kind.bit_depth;
  picture.color_type = kind.color_type;
  picture.interlaced = interlaced;
  if (kind.color_type == 3) picture.palette = TestPalette(1 << kind.bit_depth);
  picture.samples = testing::PackPngSamples(*values, width, height, channels, kind.bit_depth);
  return picture;
}

// What DecodeMask must give for `values` of a file of `kind`: the raw
// samples, alpha dropped, 16-bit RGB at its high byte.
Bytes ExpectedMask(const PngKind& kind, const std::vector<uint16_t>& values, int pixels) {
  const int channels = ChannelsOf(kind.color_type);
  Bytes out;
  for (int i = 0; i < pixels; ++i) {
    const uint16_t* pixel = &values[static_cast<size_t>(i) * channels];
    if (kind.color_type == 2 || kind.color_type == 6) {
      for (int c = 0; c < 3; ++c)
        out.push_back(static_cast<uint8_t>(kind.bit_depth == 16 ? pixel[c] >> 8 : pixel[c]));
    } else if (kind.bit_depth == 16) {
      uint8_t bytes[2];
      std::memcpy(bytes, &pixel[0], 2);
      out.insert(out.end(), bytes, bytes + 2);
    } else {
      out.push_back(static_cast<uint8_t>(pixel[0]));
    }
  }
  return out;
}

// What DecodeImage must give: 8-bit RGB, grey scaled to 0-255 and copied to
// all three channels, palette expanded, 16-bit at its high byte.
Bytes ExpectedImage(const PngKind& kind, const std::vector<uint16_t>& values, int pixels,
                    const std::vector<Rgb>& palette) {
  const int channels = ChannelsOf(kind.color_type);
  const auto to8 = [&](uint16_t v) {
    if (kind.bit_depth == 16) return static_cast<uint8_t>(v >> 8);
    return static_cast<uint8_t>(v * 255 / ((1 << kind.bit_depth) - 1));
  };
  Bytes out;
  for (int i = 0; i < pixels; ++i) {
    const uint16_t* pixel = &values[static_cast<size_t>(i) * channels];
    if (kind.color_type == 3) {
      out.insert(out.end(), palette[pixel[0]].begin(), palette[pixel[0]].end());
    } else if (kind.color_type == 2 || kind.color_type == 6) {
      for (int c = 0; c < 3; ++c) out.push_back(to8(pixel[c]));
    } else {
      out.insert(out.end(), 3, to8(pixel[0]));
    }
  }
  return out;
}

MaskSampleFormat ExpectedFormat(const PngKind& kind) {
  if (kind.color_type == 2 || kind.color_type == 6) return MaskSampleFormat::kRgb8;
  if (kind.color_type != 3 && kind.bit_depth == 16) return MaskSampleFormat::kGrey16;
  return MaskSampleFormat::kIndex8;
}

Error DecodeMaskError(const Bytes& png, const DecodeOptions& options = {}) {
  PngDecoder decoder(options);
  MaskSamples mask;
  Status status = decoder.DecodeMask(png, kMaskPath, &mask);
  EXPECT_FALSE(status.ok());
  return status.ok() ? Error{} : status.error();
}

Error DecodeImageError(const Bytes& png, const DecodeOptions& options = {}) {
  PngDecoder decoder(options);
  DecodedImage image;
  Status status = decoder.DecodeImage(png, kImagePath, &image);
  EXPECT_FALSE(status.ok());
  return status.ok() ? Error{} : status.error();
}

MaskSamples DecodeMaskOk(const Bytes& png) {
  PngDecoder decoder({});
  MaskSamples mask;
  Status status = decoder.DecodeMask(png, kMaskPath, &mask);
  EXPECT_TRUE(status.ok()) << status.error().Message();
  return mask;
}

DecodedImage DecodeImageOk(const Bytes& png) {
  PngDecoder decoder({});
  DecodedImage image;
  Status status = decoder.DecodeImage(png, kImagePath, &image);
  EXPECT_TRUE(status.ok()) << status.error().Message();
  return image;
}

// Sizes whose Adam7 passes are empty (1x1, 3x2), short (13x11) and full.
constexpr int kSizes[][2] = {{1, 1}, {3, 2}, {13, 11}, {37, 23}};

TEST(PngDecoderTest, DecodesEveryKindOfMaskToItsRawSamples) {
  PngDecoder decoder({});  // one decoder for all: each file on its own
  MaskSamples mask;
  for (const PngKind& kind : kEveryKind) {
    for (bool interlaced : {false, true}) {
      for (const auto& size : kSizes) {
        SCOPED_TRACE(KindName(kind, interlaced, size[0], size[1]));
        std::vector<uint16_t> values;
        const PngPicture picture = MakePicture(kind, interlaced, size[0], size[1], &values);
        const Bytes png = testing::EncodePngWithSpng(picture);
        Status status = decoder.DecodeMask(png, kMaskPath, &mask);
        ASSERT_TRUE(status.ok()) << status.error().Message();
        EXPECT_EQ(mask.width, size[0]);
        EXPECT_EQ(mask.height, size[1]);
        EXPECT_EQ(mask.bit_depth, kind.bit_depth);
        EXPECT_EQ(mask.format, ExpectedFormat(kind));
        EXPECT_EQ(mask.has_palette, kind.color_type == 3);
        EXPECT_EQ(mask.palette.size(), picture.palette.size());
        for (size_t i = 0; i < picture.palette.size() && i < mask.palette.size(); ++i)
          EXPECT_EQ(mask.palette[i], picture.palette[i]);
        EXPECT_TRUE(mask.bytes == ExpectedMask(kind, values, size[0] * size[1]));
      }
    }
  }
}

TEST(PngDecoderTest, DecodesEveryKindOfImageToRgb) {
  PngDecoder decoder({});
  DecodedImage image;
  for (const PngKind& kind : kEveryKind) {
    for (bool interlaced : {false, true}) {
      for (const auto& size : kSizes) {
        SCOPED_TRACE(KindName(kind, interlaced, size[0], size[1]));
        std::vector<uint16_t> values;
        const PngPicture picture = MakePicture(kind, interlaced, size[0], size[1], &values);
        Status status =
            decoder.DecodeImage(testing::EncodePngWithSpng(picture), kImagePath, &image);
        ASSERT_TRUE(status.ok()) << status.error().Message();
        EXPECT_EQ(image.width, size[0]);
        EXPECT_EQ(image.height, size[1]);
        EXPECT_TRUE(image.pixels ==
                    ExpectedImage(kind, values, size[0] * size[1], picture.palette));
      }
    }
  }
}

// Files as other tools write them: OpenCV's imwrite uses libpng, with its
// own filter choices and zlib settings.
TEST(PngDecoderTest, DecodesPngsWrittenByOpenCv) {
  struct Case {
    int channels, bit_depth;
    PngKind kind;  // what libpng writes for them
  };
  const Case cases[] = {{1, 8, {0, 8}},   {1, 16, {0, 16}}, {3, 8, {2, 8}},
                        {3, 16, {2, 16}}, {4, 8, {6, 8}},   {4, 16, {6, 16}}};
  constexpr int kWidth = 45, kHeight = 31;
  for (const Case& c : cases) {
    SCOPED_TRACE(KindName(c.kind, false, kWidth, kHeight));
    const std::vector<uint16_t> values =
        testing::TestSamples(kWidth, kHeight, c.channels, c.bit_depth);
    const Bytes png =
        testing::EncodePngWithOpenCv(values, kWidth, kHeight, c.channels, c.bit_depth);
    PngDecoder decoder({});
    Result<PngHeader> header = decoder.ReadHeader(png, kMaskPath, ErrorKind::kCorruptMask);
    ASSERT_TRUE(header.ok()) << header.error().Message();
    EXPECT_EQ(header.value().color_type, c.kind.color_type);
    EXPECT_EQ(header.value().bit_depth, c.kind.bit_depth);
    const MaskSamples mask = DecodeMaskOk(png);
    EXPECT_TRUE(mask.bytes == ExpectedMask(c.kind, values, kWidth * kHeight));
    const DecodedImage image = DecodeImageOk(png);
    EXPECT_TRUE(image.pixels == ExpectedImage(c.kind, values, kWidth * kHeight, {}));
  }
}

TEST(PngDecoderTest, OneBitMaskFromOpenCvGivesZeroAndOne) {
  constexpr int kWidth = 29, kHeight = 17;
  const std::vector<uint8_t> binary = testing::TestMask(kWidth, kHeight);
  std::vector<uint16_t> values(binary.begin(), binary.end());
  for (uint16_t& v : values) v *= 255;
  const Bytes png = testing::EncodePngWithOpenCv(values, kWidth, kHeight, 1, 8, true);
  PngDecoder decoder({});
  Result<PngHeader> header = decoder.ReadHeader(png, kMaskPath, ErrorKind::kCorruptMask);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header.value().bit_depth, 1);
  const MaskSamples mask = DecodeMaskOk(png);
  EXPECT_EQ(mask.format, MaskSampleFormat::kIndex8);
  EXPECT_TRUE(mask.bytes == binary);
  // As a photo the same file is black and white.
  const DecodedImage image = DecodeImageOk(png);
  for (size_t i = 0; i < binary.size(); ++i) ASSERT_EQ(image.pixels[3 * i], binary[i] * 255);
}

TEST(PngDecoderTest, InterlacedAndSequentialFilesDecodeIdentically) {
  for (const PngKind& kind : {PngKind{3, 2}, PngKind{0, 8}, PngKind{2, 8}, PngKind{6, 16}}) {
    std::vector<uint16_t> values;
    const Bytes sequential = testing::EncodePngWithSpng(MakePicture(kind, false, 70, 45, &values));
    const Bytes interlaced = testing::EncodePngWithSpng(MakePicture(kind, true, 70, 45, &values));
    ASSERT_NE(sequential, interlaced);
    EXPECT_TRUE(DecodeMaskOk(sequential).bytes == DecodeMaskOk(interlaced).bytes);
    EXPECT_TRUE(DecodeImageOk(sequential).pixels == DecodeImageOk(interlaced).pixels);
  }
}

// libspng wrote the Adam7 files above; libpng (through OpenCV) reads them
// as we do, so the encoder and decoder cannot share one mistake.
TEST(PngDecoderTest, InterlacedFilesDecodeAsLibpngDecodesThem) {
  for (const PngKind& kind : {PngKind{0, 8}, PngKind{2, 8}}) {
    std::vector<uint16_t> values;
    const Bytes png = testing::EncodePngWithSpng(MakePicture(kind, true, 37, 23, &values));
    int width = 0, height = 0, channels = 0;
    const Bytes reference = testing::DecodePngWithOpenCv(png, &width, &height, &channels);
    ASSERT_EQ(channels, ChannelsOf(kind.color_type));
    EXPECT_TRUE(DecodeMaskOk(png).bytes == reference);
    if (kind.color_type == 2) {
      EXPECT_TRUE(DecodeImageOk(png).pixels == reference);
    }
  }
}

TEST(PngDecoderTest, ReadHeaderReportsIhdr) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({3, 4}, true, 21, 9, &values));
  PngDecoder decoder({});
  Result<PngHeader> header = decoder.ReadHeader(png, kMaskPath, ErrorKind::kCorruptMask);
  ASSERT_TRUE(header.ok()) << header.error().Message();
  EXPECT_EQ(header.value().width, 21);
  EXPECT_EQ(header.value().height, 9);
  EXPECT_EQ(header.value().bit_depth, 4);
  EXPECT_EQ(header.value().color_type, 3);
  EXPECT_TRUE(header.value().interlaced);
  EXPECT_EQ(PngDecoder::ImageBytes(header.value()), 21 * 9 * 3);
  EXPECT_EQ(PngDecoder::MaskSampleBytes(header.value()), 21 * 9);
  EXPECT_EQ(PngDecoder::MaskSampleBytes({.width = 4, .height = 2, .bit_depth = 16}), 16);
  EXPECT_EQ(PngDecoder::MaskSampleBytes({.width = 4, .height = 2, .color_type = 6}), 24);
}

// An APNG is a PNG whose IDAT is the default image; the animation chunks
// (acTL, fcTL, fdAT) are ancillary and skipped.
TEST(PngDecoderTest, ApngDecodesItsDefaultImage) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({3, 8}, false, 16, 12, &values));
  Bytes actl(8, 0), fctl(26, 0), fdat(12, 0x55);
  actl[3] = 2;   // two frames
  fctl[7] = 16;  // frame 0: 16x12 at (0, 0)
  fctl[11] = 12;
  Bytes apng = testing::InsertPngChunk(png, "IDAT", testing::MakePngChunk("acTL", actl));
  apng = testing::InsertPngChunk(apng, "IDAT", testing::MakePngChunk("fcTL", fctl));
  fctl[3] = 1;  // sequence number
  apng = testing::InsertPngChunk(apng, "IEND", testing::MakePngChunk("fcTL", fctl));
  apng = testing::InsertPngChunk(apng, "IEND", testing::MakePngChunk("fdAT", fdat));
  EXPECT_TRUE(DecodeMaskOk(apng).bytes == DecodeMaskOk(png).bytes);
  EXPECT_TRUE(DecodeImageOk(apng).pixels == DecodeImageOk(png).pixels);
}

// Gamma and transparency are ignored: a photo's pixels are its samples and
// a mask's values are never blended.
TEST(PngDecoderTest, GammaAndTransparencyDoNotChangePixels) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({2, 8}, false, 10, 6, &values));
  Bytes gamma =
      testing::InsertPngChunk(png, "IDAT", testing::MakePngChunk("gAMA", {0, 0, 0x3A, 0x98}));
  gamma = testing::InsertPngChunk(gamma, "IDAT", testing::MakePngChunk("tRNS", {0, 1, 0, 2, 0, 3}));
  EXPECT_TRUE(DecodeImageOk(gamma).pixels == DecodeImageOk(png).pixels);
  EXPECT_TRUE(DecodeMaskOk(gamma).bytes == DecodeMaskOk(png).bytes);
}

TEST(PngDecoderTest, ReusesOutputBufferWithoutReallocating) {
  std::vector<uint16_t> values;
  // Both Adam7: the row scratch is libspng's path's (the whole-buffer path
  // holds nothing between files).
  const Bytes big = testing::EncodePngWithSpng(MakePicture({3, 2}, true, 40, 30, &values));
  const Bytes small = testing::EncodePngWithSpng(MakePicture({3, 2}, true, 20, 10, &values));
  PngDecoder decoder({});
  MaskSamples mask;
  ASSERT_TRUE(decoder.DecodeMask(big, kMaskPath, &mask).ok());
  const uint8_t* data = mask.bytes.data();
  const size_t scratch = decoder.scratch_bytes();
  ASSERT_TRUE(decoder.DecodeMask(small, kMaskPath, &mask).ok());
  ASSERT_TRUE(decoder.DecodeMask(big, kMaskPath, &mask).ok());
  EXPECT_EQ(mask.bytes.data(), data);
  EXPECT_EQ(decoder.scratch_bytes(), scratch);
  // The scratch is one stored row, not an image.
  EXPECT_LE(decoder.scratch_bytes(), 40u);
  decoder.ShrinkScratch(0);
  EXPECT_EQ(decoder.scratch_bytes(), 0u);
}

// The 8-bit grey, palette and RGB masks most tools write need no scratch
// but the whole-buffer path's inflated rows (a filter byte and a stored row
// each, and its padding), which scratch_bytes() counts.
TEST(PngDecoderTest, CommonMasksNeedOnlyTheInflatedRows) {
  for (const PngKind& kind : {PngKind{0, 8}, PngKind{3, 8}, PngKind{2, 8}, PngKind{0, 16}}) {
    std::vector<uint16_t> values;
    const Bytes png = testing::EncodePngWithSpng(MakePicture(kind, false, 50, 20, &values));
    PngDecoder decoder({});
    MaskSamples mask;
    ASSERT_TRUE(decoder.DecodeMask(png, kMaskPath, &mask).ok());
    const int stored_pixel_bytes = (kind.color_type == 2 ? 3 : 1) * kind.bit_depth / 8;
    EXPECT_EQ(decoder.scratch_bytes(),
              static_cast<size_t>(PngDecoder::WholeBufferRowsBytes(50, 20, stored_pixel_bytes)))
        << kind.color_type << "/" << kind.bit_depth;
    decoder.ShrinkScratch(0, 0);
    EXPECT_EQ(decoder.scratch_bytes(), 0u);
  }
}

TEST(PngDecoderTest, RefusesHugeHeaderBeforeAllocating) {
  std::vector<uint16_t> values;
  const Bytes png = testing::WithPngSize(
      testing::EncodePngWithSpng(MakePicture({0, 8}, false, 8, 8, &values)), 60000, 60000);
  ASSERT_LT(png.size(), 400u);
  PngDecoder decoder({});
  MaskSamples mask;
  DecodedImage image;
  std::optional<Error> mask_error, image_error;
  const int64_t growth = testing::PeakRssGrowthBytes([&] {
    Status status = decoder.DecodeMask(png, kMaskPath, &mask);
    if (!status.ok()) mask_error = status.error();
    status = decoder.DecodeImage(png, kImagePath, &image);
    if (!status.ok()) image_error = status.error();
  });
  ASSERT_TRUE(mask_error.has_value());
  ASSERT_TRUE(image_error.has_value());
  for (const Error& error : {*mask_error, *image_error}) {
    EXPECT_EQ(error.kind, ErrorKind::kTooLarge);
    EXPECT_NE(error.detail.find("60000x60000"), std::string::npos) << error.detail;
  }
  EXPECT_EQ(mask_error->path, kMaskPath);
  EXPECT_EQ(image_error->path, kImagePath);
  Result<PngHeader> header = decoder.ReadHeader(png, kMaskPath, ErrorKind::kCorruptMask);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().kind, ErrorKind::kTooLarge);
  EXPECT_EQ(mask.bytes.capacity(), 0u);
  EXPECT_EQ(image.pixels.capacity(), 0u);
  EXPECT_EQ(decoder.scratch_bytes(), 0u);
  if (growth >= 0) {
    EXPECT_LT(growth, 64 << 20);
  }
}

// A header within max_pixels and the budget over image data that cannot
// hold it (deflate inflates at most 1032:1): a 10000x10000 claim over the
// data of 8x8 pixels is a truncated file, refused before the 100-300 MB of
// its pixels are allocated, for every colour type, depth and interlace.
TEST(PngDecoderTest, ImageDataTooShortForTheClaimedSizeIsCorruptBeforeAllocating) {
  for (const PngKind& kind : std::vector<PngKind>{{0, 8}, {0, 16}, {2, 8}, {3, 4}, {6, 16}}) {
    for (bool interlaced : {false, true}) {
      std::vector<uint16_t> values;
      const Bytes png = testing::WithPngSize(
          testing::EncodePngWithSpng(MakePicture(kind, interlaced, 8, 8, &values)), 10000, 10000);
      PngDecoder decoder({});
      Result<PngHeader> header = decoder.ReadHeader(png, kMaskPath, ErrorKind::kCorruptMask);
      ASSERT_TRUE(header.ok()) << header.error().Message();  // 10^8 = max_pixels
      MaskSamples mask;
      const Status mask_status = decoder.DecodeMask(png, kMaskPath, &mask);
      ASSERT_FALSE(mask_status.ok());
      EXPECT_EQ(mask_status.error().kind, ErrorKind::kCorruptMask);
      EXPECT_NE(mask_status.error().detail.find("cannot hold the 10000x10000 pixels"),
                std::string::npos)
          << mask_status.error().detail;
      DecodedImage image;
      const Status image_status = decoder.DecodeImage(png, kImagePath, &image);
      ASSERT_FALSE(image_status.ok());
      EXPECT_EQ(image_status.error().kind, ErrorKind::kCorruptImage);
      EXPECT_EQ(image_status.error().path, kImagePath);
      EXPECT_EQ(mask.bytes.capacity(), 0u);
      EXPECT_EQ(image.pixels.capacity(), 0u);
      EXPECT_EQ(decoder.scratch_bytes(), 0u);
    }
  }
}

TEST(PngDecoderTest, HeaderOverMaxPixelsIsTooLarge) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({0, 8}, false, 30, 20, &values));
  DecodeOptions options;
  options.max_pixels = 599;  // one less than 30x20; each side alone is under it
  const Error error = DecodeMaskError(png, options);
  EXPECT_EQ(error.kind, ErrorKind::kTooLarge);
  EXPECT_NE(error.detail.find("30x20 = 600 pixels"), std::string::npos) << error.detail;
  options.max_pixels = 25;  // a side over the limit: libspng's own check
  const Error side = DecodeImageError(png, options);
  EXPECT_EQ(side.kind, ErrorKind::kTooLarge);
  EXPECT_NE(side.detail.find("30x20"), std::string::npos) << side.detail;
}

TEST(PngDecoderTest, RefusesFileOverBudgetBeforeAllocating) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({3, 4}, false, 64, 32, &values));
  PngDecoder decoder({});
  MaskSamples mask;
  Status status = decoder.DecodeMask(png, kMaskPath, &mask, 64 * 32);
  ASSERT_FALSE(status.ok());
  // In the words every decoder uses for its budget (OverDecodeBudget).
  const auto in_the_budget_words = [](const Error& error, const char* path, int64_t budget) {
    const std::string prefix = "PNG needs ";
    if (error.detail.rfind(prefix, 0) != 0) return false;
    const int64_t needed = std::stoll(error.detail.substr(prefix.size()));
    return needed > budget &&
           error.detail == OverDecodeBudget(path, "PNG", "64x32", needed, budget).detail &&
           error.kind == ErrorKind::kTooLarge && error.path == path;
  };
  EXPECT_TRUE(in_the_budget_words(status.error(), kMaskPath, 64 * 32)) << status.error().detail;
  EXPECT_EQ(mask.bytes.capacity(), 0u);
  EXPECT_EQ(decoder.scratch_bytes(), 0u);
  DecodedImage image;
  status = decoder.DecodeImage(png, kImagePath, &image, 64 * 32 * 3);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(in_the_budget_words(status.error(), kImagePath, 64 * 32 * 3))
      << status.error().detail;
  EXPECT_EQ(image.pixels.capacity(), 0u);
  // With room for the output, the scratch and libspng's rows, it decodes.
  EXPECT_TRUE(decoder.DecodeMask(png, kMaskPath, &mask, 64 * 32 + 4 * 32).ok());
}

// Every cut between the signature and the end of the image data.
TEST(PngDecoderTest, TruncatedFileIsCorrupt) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({0, 8}, false, 30, 20, &values));
  const std::vector<testing::PngChunk> chunks = testing::PngChunks(png);
  ASSERT_EQ(chunks.back().type, "IEND");
  for (size_t size = 8; size < chunks.back().offset; ++size) {
    const Bytes cut(png.begin(), png.begin() + static_cast<long>(size));
    const Error mask_error = DecodeMaskError(cut);
    EXPECT_EQ(mask_error.kind, ErrorKind::kCorruptMask) << "cut at " << size;
    EXPECT_EQ(mask_error.path, kMaskPath);
    const Error image_error = DecodeImageError(cut);
    EXPECT_EQ(image_error.kind, ErrorKind::kCorruptImage) << "cut at " << size;
    EXPECT_NE(image_error.detail.find("PNG"), std::string::npos) << image_error.detail;
  }
  const Error inside_data =
      DecodeMaskError(Bytes(png.begin(), png.begin() + static_cast<long>(chunks[1].offset + 30)));
  EXPECT_NE(inside_data.detail.find("truncated PNG"), std::string::npos) << inside_data.detail;
}

TEST(PngDecoderTest, CrcErrorsNameFileAndReason) {
  std::vector<uint16_t> values;
  const Bytes png = testing::EncodePngWithSpng(MakePicture({2, 8}, false, 12, 12, &values));
  for (const testing::DefectiveFile& defect :
       testing::DefectivePngs(png, ErrorKind::kCorruptImage)) {
    if (defect.name != "bad_ihdr_crc" && defect.name != "bad_idat_crc") continue;
    const Error error = DecodeImageError(defect.bytes);
    EXPECT_EQ(error.kind, ErrorKind::kCorruptImage);
    EXPECT_EQ(error.path, kImagePath);
    EXPECT_NE(error.detail.find("checksum"), std::string::npos) << error.detail;
  }
}

TEST(PngDecoderTest, UnknownCriticalChunkIsCorrupt) {
  std::vector<uint16_t> values;
  const Bytes png = testing::InsertPngChunk(
      testing::EncodePngWithSpng(MakePicture({0, 8}, false, 12, 12, &values)), "IDAT",
      testing::MakePngChunk("QUUX", {1}));
  const Error error = DecodeMaskError(png);
  EXPECT_EQ(error.kind, ErrorKind::kCorruptMask);
  EXPECT_NE(error.detail.find("critical"), std::string::npos) << error.detail;
}

TEST(PngDecoderTest, PaletteIndexBeyondPaletteIsCorrupt) {
  for (bool interlaced : {false, true}) {
    for (int bit_depth : {2, 8}) {
      SCOPED_TRACE(std::to_string(bit_depth) + (interlaced ? "-bit, Adam7" : "-bit"));
      std::vector<uint16_t> values;
      PngPicture picture = MakePicture({3, bit_depth}, interlaced, 11, 9, &values);
      for (uint16_t& v : values) v %= 3;
      values[5 * 11 + 7] = 3;
      picture.palette.resize(3);
      picture.samples = testing::PackPngSamples(values, 11, 9, 1, bit_depth);
      const Bytes png = testing::EncodePngWithSpng(picture);
      const Error mask_error = DecodeMaskError(png);
      EXPECT_EQ(mask_error.kind, ErrorKind::kCorruptMask);
      EXPECT_EQ(mask_error.path, kMaskPath);
      EXPECT_NE(mask_error.detail.find("palette index 3 outside the 3-colour palette (row 5)"),
                std::string::npos)
          << mask_error.detail;
      const Error image_error = DecodeImageError(png);
      EXPECT_EQ(image_error.kind, ErrorKind::kCorruptImage);
      EXPECT_NE(image_error.detail.find("palette index 3"), std::string::npos)
          << image_error.detail;
    }
  }
}

// Compressed data for 1500x1500 pixels under a 10x10 header: libspng stops
// at the header's size, so the output and scratch never outgrow it.
TEST(PngDecoderTest, MoreImageDataThanTheHeaderSaysCannotGrowTheOutput) {
  PngPicture big;
  big.width = big.height = 1500;
  big.samples.assign(1500 * 1500, 0);
  const Bytes donor = testing::EncodePngWithSpng(big);
  std::vector<uint16_t> values;
  const Bytes small = testing::EncodePngWithSpng(MakePicture({0, 8}, false, 10, 10, &values));
  const Bytes bomb = testing::WithIdatFrom(small, donor);
  PngDecoder decoder({});
  MaskSamples mask;
  Status status = decoder.DecodeMask(bomb, kMaskPath, &mask);
  if (status.ok()) {
    EXPECT_EQ(mask.bytes.size(), 100u);
  } else {
    EXPECT_EQ(status.error().kind, ErrorKind::kCorruptMask) << status.error().Message();
  }
  EXPECT_LE(mask.bytes.capacity(), 100u);
  DecodedImage image;
  status = decoder.DecodeImage(bomb, kImagePath, &image);
  if (!status.ok()) {
    EXPECT_EQ(status.error().kind, ErrorKind::kCorruptImage);
  }
  EXPECT_LE(image.pixels.capacity(), 300u);
  // A stored row for libspng, or the whole-buffer path's rows of 10x10.
  EXPECT_LE(decoder.scratch_bytes(),
            static_cast<size_t>(10 + PngDecoder::WholeBufferRowsBytes(10, 10, 1)));
}

TEST(PngDecoderTest, NotAPngIsUnsupportedFormat) {
  const Error error = DecodeMaskError(testing::RandomBytes(500, 3));
  EXPECT_EQ(error.kind, ErrorKind::kUnsupportedFormat);
  EXPECT_EQ(error.path, kMaskPath);
  EXPECT_NE(error.detail.find("not a PNG"), std::string::npos);
  const Error gif = DecodeImageError(testing::EncodeMaskGif({1}, 1, 1));
  EXPECT_EQ(gif.kind, ErrorKind::kUnsupportedFormat);
  EXPECT_NE(gif.detail.find("GIF data"), std::string::npos) << gif.detail;
  EXPECT_EQ(DecodeImageError({}).kind, ErrorKind::kUnsupportedFormat);
}

// Random damage after the signature: a clean success or a corrupt or
// too_large error, never a crash (ASan/UBSan check the rest).
TEST(PngDecoderTest, RandomlyDamagedFilesNeverCrash) {
  std::vector<uint16_t> values;
  const Bytes clean = testing::EncodePngWithSpng(MakePicture({3, 4}, true, 40, 30, &values));
  DecodeOptions options;
  options.max_pixels = 1 << 20;
  PngDecoder decoder(options);
  MaskSamples mask;
  DecodedImage image;
  for (uint32_t seed = 0; seed < 300; ++seed) {
    Bytes png = clean;
    const Bytes noise = testing::RandomBytes(8, seed);
    for (int i = 0; i < 4; ++i) {
      png[8 + (noise[2 * i] * 256 + noise[2 * i + 1]) % (png.size() - 8)] ^= noise[i] | 1;
    }
    for (Status status : {decoder.DecodeMask(png, kMaskPath, &mask),
                          decoder.DecodeImage(png, kImagePath, &image)}) {
      if (!status.ok()) {
        EXPECT_TRUE(status.error().kind == ErrorKind::kCorruptMask ||
                    status.error().kind == ErrorKind::kCorruptImage ||
                    status.error().kind == ErrorKind::kTooLarge)
            << status.error().Message();
      }
    }
  }
}

// A file inherits nothing from the one before it: on one decoder, a good
// file, a defective one and another good one (interlaced, other kind and
// size) give the defect's error and then exactly what a fresh decoder gives.
TEST(PngDecoderTest, NoMaskChangesHowTheNextIsDecoded) {
  std::vector<uint16_t> values;
  const Bytes before = testing::EncodePngWithSpng(MakePicture({0, 8}, false, 48, 40, &values));
  const Bytes after = testing::EncodePngWithSpng(MakePicture({3, 4}, true, 50, 30, &values));
  const MaskSamples reference = DecodeMaskOk(after);
  for (const testing::DefectiveFile& defect :
       testing::DefectivePngs(before, ErrorKind::kCorruptMask)) {
    SCOPED_TRACE(defect.name);
    PngDecoder decoder({});
    MaskSamples mask;
    ASSERT_TRUE(decoder.DecodeMask(before, kMaskPath, &mask).ok());
    Status bad = decoder.DecodeMask(defect.bytes, kMaskPath, &mask);
    ASSERT_FALSE(bad.ok()) << "the defective file decoded";
    EXPECT_EQ(bad.error().kind, defect.kind) << bad.error().Message();
    EXPECT_EQ(bad.error().path, kMaskPath);
    Status good = decoder.DecodeMask(after, kMaskPath, &mask);
    ASSERT_TRUE(good.ok()) << good.error().Message();
    EXPECT_EQ(mask.width, reference.width);
    EXPECT_EQ(mask.format, reference.format);
    EXPECT_TRUE(mask.palette == reference.palette);
    EXPECT_TRUE(mask.bytes == reference.bytes);
  }
}

TEST(PngDecoderTest, NoImageChangesHowTheNextIsDecoded) {
  std::vector<uint16_t> values;
  const Bytes before = testing::EncodePngWithSpng(MakePicture({2, 8}, false, 48, 40, &values));
  const Bytes after = testing::EncodePngWithSpng(MakePicture({6, 16}, true, 50, 30, &values));
  const DecodedImage reference = DecodeImageOk(after);
  for (const testing::DefectiveFile& defect :
       testing::DefectivePngs(before, ErrorKind::kCorruptImage)) {
    SCOPED_TRACE(defect.name);
    PngDecoder decoder({});
    DecodedImage image;
    ASSERT_TRUE(decoder.DecodeImage(before, kImagePath, &image).ok());
    Status bad = decoder.DecodeImage(defect.bytes, kImagePath, &image);
    ASSERT_FALSE(bad.ok()) << "the defective file decoded";
    EXPECT_EQ(bad.error().kind, defect.kind) << bad.error().Message();
    EXPECT_EQ(bad.error().path, kImagePath);
    Status good = decoder.DecodeImage(after, kImagePath, &image);
    ASSERT_TRUE(good.ok()) << good.error().Message();
    EXPECT_EQ(image.width, reference.width);
    EXPECT_TRUE(image.pixels == reference.pixels);
  }
}

}  // namespace
}  // namespace segfeed::decode
