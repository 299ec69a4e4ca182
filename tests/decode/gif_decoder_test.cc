#include "decode/gif_decoder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "demo/demo_scene.h"
#include "fixtures/defective_files.h"
#include "fixtures/fixtures.h"
#include "fuzz/giflib_reference.h"
#include "temp_dir.h"

namespace segfeed::decode {
namespace {

using testing::Bytes;
using testing::GifFrame;
using testing::GifPicture;
using testing::Rgb;

constexpr const char* kPath = "train_masks/car_01_mask.gif";

MaskImage DecodeOk(const Bytes& gif, const DecodeOptions& options = {}) {
  GifDecoder decoder(options);
  MaskImage mask;
  Status status = decoder.Decode(gif, kPath, &mask);
  EXPECT_TRUE(status.ok()) << status.error().Message();
  return mask;
}

Error DecodeError(const Bytes& gif, const DecodeOptions& options = {}) {
  GifDecoder decoder(options);
  MaskImage mask;
  Status status = decoder.Decode(gif, kPath, &mask);
  EXPECT_FALSE(status.ok());
  return status.ok() ? Error{} : status.error();
}

TEST(GifDecoderTest, RoundTripsKnownRaster) {
  const auto raster = testing::TestMask(61, 37);
  const MaskImage mask = DecodeOk(testing::EncodeMaskGif(raster, 61, 37));
  EXPECT_EQ(mask.width, 61);
  EXPECT_EQ(mask.height, 37);
  EXPECT_TRUE(mask.pixels == raster);
  EXPECT_EQ(mask.distinct_values, 2);
}

// Varied frames (interlace, offsets that clip, transparency, palettes of
// 2-256 random colours, noise and runs) decoded by giflib's own line decoder
// with the same semantics: the masks must be identical.
TEST(GifDecoderTest, MatchesGiflibLineDecoderOnVariedFrames) {
  GifDecoder decoder({});
  DecodeOptions luminance_options;
  luminance_options.mask_foreground = MaskForeground::kLuminance;
  GifDecoder luminance_decoder(luminance_options);
  MaskImage mask;
  for (uint32_t seed = 0; seed < 200; ++seed) {
    const Bytes r = testing::RandomBytes(16, seed);
    const int colours = 2 + r[0] % 255;
    GifPicture picture;
    picture.screen_width = 20 + r[1] % 90;
    picture.screen_height = 10 + r[2] % 60;
    picture.palette.clear();
    const Bytes palette = testing::RandomBytes(3 * colours, seed + 1000);
    for (int i = 0; i < colours; ++i) {
      picture.palette.push_back({palette[3 * i], palette[3 * i + 1], palette[3 * i + 2]});
    }
    GifFrame frame;
    frame.left = (r[3] % 3 == 0) ? r[4] % 30 : 0;
    frame.top = (r[3] % 3 == 0) ? r[5] % 20 : 0;
    frame.width = (r[3] % 3 == 0) ? 5 + r[6] % 100 : picture.screen_width;
    frame.height = (r[3] % 3 == 0) ? 3 + r[7] % 70 : picture.screen_height;
    frame.interlaced = r[8] % 2;
    frame.transparent_index = (r[9] % 3 == 0) ? r[10] % colours : -1;
    const int run = 1 + r[11] % 50;
    const Bytes noise = testing::RandomBytes(static_cast<size_t>(frame.width) * frame.height, seed);
    frame.indices.resize(noise.size());
    for (size_t i = 0; i < noise.size(); ++i) frame.indices[i] = noise[i / run * run] % colours;
    picture.frames = {frame};
    const Bytes gif = testing::EncodeGif(picture);
    if (frame.left >= picture.screen_width || frame.top >= picture.screen_height) {
      // Nothing to compare: refused (FrameWhollyOutsideTheScreenIsCorruptMask).
      EXPECT_FALSE(decoder.Decode(gif, kPath, &mask).ok()) << "seed " << seed;
      continue;
    }
    ASSERT_TRUE(decoder.Decode(gif, kPath, &mask).ok()) << "seed " << seed;
    const auto reference = testing::DecodeMaskWithGiflibLines(gif, std::nullopt, int64_t{1} << 30);
    ASSERT_TRUE(reference.has_value());
    EXPECT_EQ(mask.width, reference->width);
    EXPECT_EQ(mask.height, reference->height);
    EXPECT_TRUE(mask.pixels == reference->pixels) << "seed " << seed;
    ASSERT_TRUE(luminance_decoder.Decode(gif, kPath, &mask).ok()) << "seed " << seed;
    const auto luminance = testing::DecodeMaskWithGiflibLines(gif, 128, int64_t{1} << 30);
    ASSERT_TRUE(luminance.has_value());
    EXPECT_TRUE(mask.pixels == luminance->pixels) << "luminance, seed " << seed;
  }
}

// Regression (found by the fuzzer): with an LZW minimum code size of 1,
// giflib widens codes to 3 bits right after the first code, although that
// code defines no entry; the decoder used to widen one code later.
// Interlacing only reorders the stored rows: a make-demo mask at Carvana's
// size, written interlaced and in row order, decodes to the same bytes, on
// one decoder one after the other.
TEST(GifDecoderTest, InterlacedAndSequentialMasksDecodeIdentically) {
  demo::DemoOptions options;
  demo::DemoRaster raster;
  demo::RenderDemoSample(options, 3, &raster);
  const Bytes sequential = testing::EncodeMaskGif(raster.mask, raster.width, raster.height);
  const Bytes interlaced = testing::EncodeMaskGif(raster.mask, raster.width, raster.height, true);
  GifDecoder decoder({});
  MaskImage from_sequential, from_interlaced;
  ASSERT_TRUE(decoder.Decode(sequential, kPath, &from_sequential).ok());
  ASSERT_TRUE(decoder.Decode(interlaced, kPath, &from_interlaced).ok());
  EXPECT_TRUE(from_sequential.pixels == raster.mask);
  EXPECT_TRUE(from_interlaced.pixels == from_sequential.pixels);
}

// Pillow writes a 0/1 mask as indices 0 and 255 of a 256-grey palette,
// interlaced: decoded to exactly 0/1 in both row orders, and with two
// foreground indices (the table path) as well.
TEST(GifDecoderTest, PillowStyleGreyPaletteMasksDecodeToZeroAndOne) {
  const int width = 83, height = 29;
  const std::vector<uint8_t> mask = testing::TestMask(width, height);
  GifPicture picture;
  picture.screen_width = width;
  picture.screen_height = height;
  picture.palette.clear();
  for (int i = 0; i < 256; ++i) picture.palette.push_back({uint8_t(i), uint8_t(i), uint8_t(i)});
  GifFrame frame;
  frame.width = width;
  frame.height = height;
  for (uint8_t v : mask) frame.indices.push_back(v ? 255 : 0);
  for (bool interlaced : {false, true}) {
    frame.interlaced = interlaced;
    picture.frames = {frame};
    EXPECT_EQ(DecodeOk(testing::EncodeGif(picture)).pixels, mask) << "interlaced " << interlaced;
  }
  // Three indices, two of them foreground (200 and 255).
  for (size_t i = 0; i < frame.indices.size(); ++i) {
    if (frame.indices[i] == 255 && i % 2) frame.indices[i] = 200;
  }
  picture.frames = {frame};
  EXPECT_EQ(DecodeOk(testing::EncodeGif(picture)).pixels, mask);
}

TEST(GifDecoderTest, MinimumCodeSizeOneMatchesGiflib) {
  std::vector<uint8_t> raster(37 * 11);
  for (size_t i = 0; i < raster.size(); ++i) raster[i] = (i / 3 + i / 37) % 2;
  const Bytes gif =
      testing::GifWithLzwData(37, 11, 2, 1, testing::LzwLiteralStream(raster, 1, true));
  const auto reference = testing::DecodeMaskWithGiflibLines(gif, std::nullopt, 1 << 20);
  ASSERT_TRUE(reference.has_value());
  ASSERT_TRUE(reference->pixels == raster);  // the fixture is what giflib reads
  EXPECT_TRUE(DecodeOk(gif).pixels == raster);
}

// Tables that fill up (4096 entries) must continue at 12 bits until a clear
// code; giflib agrees as long as no code refers to the last entry.
TEST(GifDecoderTest, FullLzwTableWithoutClearDecodes) {
  std::vector<uint8_t> raster(150 * 40);
  for (size_t i = 0; i < raster.size(); ++i) raster[i] = (i * 7 + i / 13) % 4 == 0;
  const Bytes gif =
      testing::GifWithLzwData(150, 40, 2, 2, testing::LzwLiteralStream(raster, 2, true));
  EXPECT_TRUE(DecodeOk(gif).pixels == raster);
  const auto reference = testing::DecodeMaskWithGiflibLines(gif, std::nullopt, 1 << 20);
  ASSERT_TRUE(reference.has_value());
  EXPECT_TRUE(reference->pixels == raster);
}

TEST(GifDecoderTest, InterlacedRowsComeOutInDisplayOrder) {
  // Heights around the pass boundaries (rows 1, 2, 4, 8).
  for (int height : {1, 2, 3, 5, 9, 13, 37}) {
    const auto raster = testing::TestMask(23, height);
    const Bytes gif = testing::EncodeMaskGif(raster, 23, height, /*interlaced=*/true);
    const MaskImage mask = DecodeOk(gif);
    EXPECT_TRUE(mask.pixels == raster) << "height " << height;
    // giflib's DGifSlurp de-interlaces on its own: an independent reading.
    int width = 0, slurped_height = 0;
    EXPECT_TRUE(testing::SlurpFirstFrame(gif, &width, &slurped_height) == mask.pixels);
  }
}

TEST(GifDecoderTest, TransparentIndexIsBackground) {
  GifPicture picture;
  picture.screen_width = 4;
  picture.screen_height = 1;
  // Index 2 is white but transparent: background, whatever its colour. The
  // file's values are counted by colour, transparency aside: two.
  picture.palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}, Rgb{255, 255, 255}, Rgb{0, 0, 0}};
  picture.frames.push_back({0, 0, 4, 1, false, 2, {0, 1, 2, 1}});
  const MaskImage mask = DecodeOk(testing::EncodeGif(picture));
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{0, 1, 0, 1}));
  EXPECT_EQ(mask.distinct_values, 2);
  EXPECT_TRUE(mask.transparent_used);
  picture.frames[0].indices = {0, 1, 1, 1};
  EXPECT_FALSE(DecodeOk(testing::EncodeGif(picture)).transparent_used);
}

// Label GIFs are saved with a transparent index (Pillow's transparency=0):
// in labels mode an index is a class, transparent or not, as the same map
// saved as PNG reads.
TEST(GifDecoderTest, TransparentIndexIsAClassInLabelsMode) {
  GifPicture picture;
  picture.screen_width = 4;
  picture.screen_height = 1;
  picture.palette = {Rgb{0, 0, 0}, Rgb{128, 0, 0}, Rgb{0, 128, 0}, Rgb{0, 0, 0}};
  DecodeOptions labels;
  labels.mask_mode = MaskMode::kLabels;
  labels.num_classes = 3;
  for (int transparent : {0, 1, 2}) {
    picture.frames = {{0, 0, 4, 1, false, transparent, {0, 1, 2, 0}}};
    EXPECT_EQ(DecodeOk(testing::EncodeGif(picture), labels).pixels,
              (std::vector<uint8_t>{0, 1, 2, 0}))
        << "transparent index " << transparent;
  }
}

TEST(GifDecoderTest, OnlyFirstFrameIsDecoded) {
  GifPicture picture;
  picture.screen_width = 3;
  picture.screen_height = 2;
  picture.frames.push_back({0, 0, 3, 2, false, -1, {1, 0, 1, 0, 1, 0}});
  picture.frames.push_back({0, 0, 3, 2, false, -1, {1, 1, 1, 1, 1, 1}});
  const MaskImage mask = DecodeOk(testing::EncodeGif(picture));
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{1, 0, 1, 0, 1, 0}));
}

TEST(GifDecoderTest, OffsetFrameIsPlacedOnBackgroundCanvas) {
  GifPicture picture;
  picture.screen_width = 5;
  picture.screen_height = 4;
  picture.frames.push_back({2, 1, 2, 2, false, -1, {1, 1, 1, 0}});
  const MaskImage mask = DecodeOk(testing::EncodeGif(picture));
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{0, 0, 0, 0, 0,  //
                                               0, 0, 1, 1, 0,  //
                                               0, 0, 1, 0, 0,  //
                                               0, 0, 0, 0, 0}));
}

TEST(GifDecoderTest, FramePartsOutsideScreenAreClipped) {
  GifPicture picture;
  picture.screen_width = 3;
  picture.screen_height = 2;
  picture.frames.push_back({1, 1, 3, 2, false, -1, {1, 0, 1, 1, 1, 1}});
  const MaskImage mask = DecodeOk(testing::EncodeGif(picture));
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{0, 0, 0, 0, 1, 0}));
}

// Nothing of such a frame is drawn: the all-background mask would look clean.
TEST(GifDecoderTest, FrameWhollyOutsideTheScreenIsCorruptMask) {
  for (const auto& [left, top] : {std::pair{3, 0}, std::pair{0, 2}, std::pair{100, 100}}) {
    GifPicture picture;
    picture.screen_width = 3;
    picture.screen_height = 2;
    picture.frames.push_back({left, top, 2, 1, false, -1, {1, 1}});
    const Error error = DecodeError(testing::EncodeGif(picture));
    EXPECT_EQ(error.kind, ErrorKind::kCorruptMask);
    EXPECT_EQ(error.detail, "GIF frame at (" + std::to_string(left) + "," + std::to_string(top) +
                                ") of 2x1 lies wholly outside the 3x2 screen");
  }
}

// giflib refuses these with "Failed to read from given file", which says
// nothing of the cause.
TEST(GifDecoderTest, LzwMinimumCodeSizeOverEightSaysSo) {
  for (int code_size : {9, 12, 255}) {
    const Bytes gif = testing::GifWithLzwData(4, 1, 2, code_size, Bytes{0x00, 0x01});
    const Error error = DecodeError(gif);
    EXPECT_EQ(error.kind, ErrorKind::kCorruptMask);
    EXPECT_EQ(error.detail, "corrupt GIF: LZW minimum code size " + std::to_string(code_size) +
                                " is outside 1-8");
  }
}

// The default rule: every index but 0 (and the transparent one) is
// foreground, whatever its colour, so VOC's dark red and pure red count.
TEST(GifDecoderTest, ForegroundIsEveryNonzeroIndexByDefault) {
  GifPicture picture;
  picture.screen_width = 5;
  picture.screen_height = 1;
  picture.palette = {Rgb{0, 0, 0}, Rgb{128, 0, 0}, Rgb{255, 0, 0}, Rgb{0, 0, 0}, Rgb{9, 9, 9}};
  picture.frames.push_back({0, 0, 5, 1, false, 4, {0, 1, 2, 3, 4}});
  const MaskImage mask = DecodeOk(testing::EncodeGif(picture));
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{0, 1, 1, 1, 0}));
  // Index 3 is black but foreground: the palette may be inverted.
  EXPECT_TRUE(mask.palette_disagrees);
  picture.frames[0].indices = {0, 1, 2, 1, 0};
  EXPECT_FALSE(DecodeOk(testing::EncodeGif(picture)).palette_disagrees);
}

TEST(GifDecoderTest, ForegroundIsLuminanceAtLeastThresholdUnderThatRule) {
  GifPicture picture;
  picture.screen_width = 4;
  picture.screen_height = 1;
  // Luma 127, 128, pure green (149.685) and pure blue (29.07).
  picture.palette = {Rgb{127, 127, 127}, Rgb{128, 128, 128}, Rgb{0, 255, 0}, Rgb{0, 0, 255}};
  picture.frames.push_back({0, 0, 4, 1, false, -1, {0, 1, 2, 3}});
  const Bytes gif = testing::EncodeGif(picture);
  DecodeOptions options;
  options.mask_foreground = MaskForeground::kLuminance;
  MaskImage mask = DecodeOk(gif, options);
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(mask.distinct_values, 3);
  options.mask_threshold = 150;
  mask = DecodeOk(gif, options);
  EXPECT_EQ(mask.pixels, (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(GifDecoderTest, CountsDistinctColoursNotIndices) {
  GifPicture picture;
  picture.screen_width = 4;
  picture.screen_height = 1;
  // Four indices, two colours: still a binary mask.
  picture.palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}, Rgb{0, 0, 0}, Rgb{255, 255, 255}};
  picture.frames.push_back({0, 0, 4, 1, false, -1, {0, 1, 2, 3}});
  EXPECT_EQ(DecodeOk(testing::EncodeGif(picture)).distinct_values, 2);
  // A third colour present in the palette but not in the pixels is fine too.
  picture.palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}, Rgb{9, 9, 9}};
  picture.frames[0].indices = {0, 1, 1, 0};
  EXPECT_EQ(DecodeOk(testing::EncodeGif(picture)).distinct_values, 2);
  picture.frames[0].indices = {0, 1, 2, 0};
  EXPECT_EQ(DecodeOk(testing::EncodeGif(picture)).distinct_values, 3);
}

TEST(GifDecoderTest, ReusesOutputBufferWithoutReallocating) {
  const Bytes big = testing::EncodeMaskGif(testing::TestMask(40, 30), 40, 30);
  const Bytes small = testing::EncodeMaskGif(testing::TestMask(20, 10), 20, 10);
  GifDecoder decoder({});
  MaskImage mask;
  ASSERT_TRUE(decoder.Decode(big, kPath, &mask).ok());
  const uint8_t* data = mask.pixels.data();
  ASSERT_TRUE(decoder.Decode(small, kPath, &mask).ok());
  ASSERT_TRUE(decoder.Decode(big, kPath, &mask).ok());
  EXPECT_EQ(mask.pixels.data(), data);
}

TEST(GifDecoderTest, RefusesHugeScreenBeforeAllocating) {
  Bytes gif = testing::EncodeMaskGif({1}, 1, 1);
  // Logical screen width and height, little-endian, after "GIF89a".
  gif[6] = gif[7] = gif[8] = gif[9] = 0xFF;
  GifDecoder decoder({});
  MaskImage mask;
  std::optional<Error> error;
  const int64_t growth = testing::PeakRssGrowthBytes([&] {
    Status status = decoder.Decode(gif, kPath, &mask);
    if (!status.ok()) error = status.error();
  });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, ErrorKind::kTooLarge);
  EXPECT_EQ(error->path, kPath);
  EXPECT_NE(error->detail.find("65535x65535"), std::string::npos) << error->detail;
  EXPECT_EQ(mask.pixels.capacity(), 0u);
  if (growth >= 0) {
    EXPECT_LT(growth, 64 << 20);
  }
}

TEST(GifDecoderTest, RefusesHugeFrameBeforeAllocating) {
  Bytes gif = testing::EncodeMaskGif({1}, 1, 1);
  // "GIF89a", screen descriptor (7 bytes), 256-colour table (EncodeGif asks
  // for 8 bits per colour; giflib writes the map's real size: 2 colours).
  const size_t descriptor = 6 + 7 + 3 * 2;
  ASSERT_EQ(gif[descriptor], 0x2C);
  for (size_t i = descriptor + 5; i < descriptor + 9; ++i) gif[i] = 0xFF;  // width, height
  const Error error = DecodeError(gif);
  EXPECT_EQ(error.kind, ErrorKind::kTooLarge);
  EXPECT_NE(error.detail.find("frame"), std::string::npos) << error.detail;
}

TEST(GifDecoderTest, TruncatedFileIsCorruptMask) {
  const Bytes gif = testing::EncodeMaskGif(testing::TestMask(50, 40), 50, 40, true);
  // Every cut from inside the header to just before the trailer.
  for (size_t size = 7; size < gif.size() - 1; size += 3) {
    const Error error = DecodeError(Bytes(gif.begin(), gif.begin() + size));
    EXPECT_EQ(error.kind, ErrorKind::kCorruptMask) << "cut at " << size;
    EXPECT_EQ(error.path, kPath);
    EXPECT_NE(error.detail.find("truncated GIF"), std::string::npos) << error.detail;
  }
}

TEST(GifDecoderTest, NotAGifIsUnsupportedFormat) {
  const Error error = DecodeError(testing::RandomBytes(500, 3));
  EXPECT_EQ(error.kind, ErrorKind::kUnsupportedFormat);
  EXPECT_NE(error.detail.find("not a GIF"), std::string::npos);
}

TEST(GifDecoderTest, GifWithoutImageIsCorruptMask) {
  GifPicture picture;
  picture.screen_width = 4;
  picture.screen_height = 4;
  const Error error = DecodeError(testing::EncodeGif(picture));
  EXPECT_EQ(error.kind, ErrorKind::kCorruptMask);
  EXPECT_NE(error.detail.find("no image"), std::string::npos) << error.detail;
}

// Random damage after the signature: a clean success or a corrupt_mask or
// too_large error, never a crash (ASan/UBSan check the rest).
TEST(GifDecoderTest, RandomlyDamagedFilesNeverCrash) {
  const Bytes clean = testing::EncodeMaskGif(testing::TestMask(40, 30), 40, 30, true);
  DecodeOptions options;
  options.max_pixels = 1 << 20;
  GifDecoder decoder(options);
  MaskImage mask;
  for (uint32_t seed = 0; seed < 300; ++seed) {
    Bytes gif = clean;
    const Bytes noise = testing::RandomBytes(8, seed);
    for (int i = 0; i < 4; ++i) {
      gif[6 + (noise[2 * i] * 256 + noise[2 * i + 1]) % (gif.size() - 6)] ^= noise[i] | 1;
    }
    Status status = decoder.Decode(gif, kPath, &mask);
    if (!status.ok()) {
      EXPECT_TRUE(status.error().kind == ErrorKind::kCorruptMask ||
                  status.error().kind == ErrorKind::kTooLarge)
          << status.error().Message();
    }
  }
}

// A mask inherits nothing from the one before it: on one decoder, a good
// mask, a defective one and another good mask (interlaced, other size) give
// the defect's error and then exactly what a fresh decoder gives.
TEST(GifDecoderTest, NoFileChangesHowTheNextIsDecoded) {
  const Bytes before = testing::EncodeMaskGif(testing::TestMask(48, 40), 48, 40);
  const Bytes after = testing::EncodeMaskGif(testing::TestMask(50, 30), 50, 30, true);
  const MaskImage reference = DecodeOk(after);
  for (const testing::DefectiveFile& defect : testing::DefectiveGifs(before)) {
    SCOPED_TRACE(defect.name);
    DecodeOptions options;
    options.max_pixels = 1 << 20;
    GifDecoder decoder(options);
    MaskImage mask;
    ASSERT_TRUE(decoder.Decode(before, kPath, &mask).ok());
    Status bad = decoder.Decode(defect.bytes, kPath, &mask);
    ASSERT_FALSE(bad.ok()) << "the defective file decoded";
    EXPECT_EQ(bad.error().kind, defect.kind) << bad.error().Message();
    EXPECT_EQ(bad.error().path, kPath);
    Status good = decoder.Decode(after, kPath, &mask);
    ASSERT_TRUE(good.ok()) << good.error().Message();
    EXPECT_EQ(mask.width, reference.width);
    EXPECT_TRUE(mask.pixels == reference.pixels);
  }
}

}  // namespace
}  // namespace segfeed::decode
