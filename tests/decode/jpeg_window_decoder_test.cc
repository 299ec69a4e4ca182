#include "decode/jpeg_window_decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"

namespace segfeed::decode {
namespace {

using testing::Bytes;

constexpr const char* kPath = "train/photo.jpg";

using Encoding = testing::JpegLayout;

Bytes Encode(int width, int height, const Encoding& encoding) {
  return testing::EncodeJpegLayout(width, height, encoding);
}

JpegHeader Header(const Bytes& jpeg) {
  JpegDecoder decoder(DecodeOptions{});
  auto header = decoder.ReadHeader(jpeg, kPath);
  EXPECT_TRUE(header.ok()) << header.error().Message();
  return header.ok() ? header.value() : JpegHeader{};
}

DecodedImage DecodeWhole(const Bytes& jpeg, DctScale scale) {
  JpegDecoder decoder(DecodeOptions{});
  DecodedImage image;
  Status status = decoder.Decode(jpeg, Header(jpeg), scale, kPath, &image);
  EXPECT_TRUE(status.ok()) << status.error().Message();
  return image;
}

// How many bytes of `window` differ between the windowed and the whole
// decode (expects the windowed decode to cover the window).
int DifferingBytes(const DecodedImage& part, const DecodedImage& whole, const ImageWindow& window) {
  EXPECT_EQ(part.width, whole.width);
  EXPECT_EQ(part.height, whole.height);
  EXPECT_TRUE(part.windowed);
  EXPECT_LE(part.decoded.x, window.x);
  EXPECT_LE(part.decoded.y, window.y);
  EXPECT_GE(part.decoded.x + part.decoded.width, window.x + window.width);
  EXPECT_GE(part.decoded.y + part.decoded.height, window.y + window.height);
  int differing = 0;
  for (int y = window.y; y < window.y + window.height; ++y) {
    for (int x = window.x * 3; x < (window.x + window.width) * 3; ++x) {
      const size_t at = size_t(y) * whole.width * 3 + x;
      differing += part.pixels[at] != whole.pixels[at];
    }
  }
  return differing;
}

// Windows at every corner and edge, in the middle, one pixel, and whole.
std::vector<ImageWindow> WindowsOf(int width, int height) {
  const int w = std::max(1, width / 3), h = std::max(1, height / 3);
  std::vector<ImageWindow> windows;
  for (const int x : {0, (width - w) / 2, width - w}) {
    for (const int y : {0, (height - h) / 2, height - h}) windows.push_back({x, y, w, h});
  }
  windows.push_back({width / 2 + 1, height / 2 + 1, 1, 1});
  windows.push_back({0, 0, width, height});
  windows.push_back({0, height / 2 - 3, width, 7});   // a band of rows
  windows.push_back({width / 2 - 5, 0, 11, height});  // a band of columns
  // Within the image (a tiny image at 1/8 is a pixel or two).
  std::vector<ImageWindow> inside;
  for (ImageWindow window : windows) {
    const int right = std::min(width, window.x + window.width);
    const int bottom = std::min(height, window.y + window.height);
    window.x = std::max(0, window.x), window.y = std::max(0, window.y);
    window.width = right - window.x, window.height = bottom - window.y;
    if (window.width > 0 && window.height > 0) inside.push_back(window);
  }
  return inside;
}

struct Case {
  std::string name;
  Encoding encoding;
  int width;
  int height;
};

// Every pixel of the window is the whole decode's, bit for bit, over the
// chroma samplings, odd sizes, restart markers, progressive files and
// every DCT scale libjpeg-turbo offers below 1 (the pipeline may choose
// any of them).
TEST(JpegWindowDecoderTest, WindowEqualsTheWholeDecode) {
  const Case cases[] = {
      {"444", {1, 1}, 203, 141},
      {"422", {2, 1}, 203, 141},
      {"420", {2, 2}, 203, 141},
      {"411", {4, 1}, 203, 141},
      {"420 multiple of 16", {2, 2}, 192, 128},
      {"420 one MCU", {2, 2}, 13, 9},
      {"420 restarts", {2, 2, 1}, 157, 119},
      {"422 restarts", {2, 1, 2}, 157, 119},
      {"420 progressive", {2, 2, 0, true}, 203, 141},
      {"444 progressive", {1, 1, 0, true}, 97, 75},
      {"grey", {1, 1, 0, false, true}, 101, 77},
  };
  JpegWindowDecoder decoder(DecodeOptions{});
  DecodedImage part;  // one image for all: stale pixels must not matter
  for (const Case& c : cases) {
    const Bytes jpeg = Encode(c.width, c.height, c.encoding);
    for (int eighths = 1; eighths <= 8; ++eighths) {
      const DctScale scale{eighths, 8};
      const DecodedImage whole = DecodeWhole(jpeg, scale);
      for (const ImageWindow& window : WindowsOf(whole.width, whole.height)) {
        ASSERT_TRUE(decoder.Decode(jpeg, scale, window, kPath, &part).ok());
        EXPECT_EQ(DifferingBytes(part, whole, window), 0)
            << c.name << " at " << eighths << "/8, window " << window.x << "," << window.y << " "
            << window.width << "x" << window.height;
      }
    }
  }
}

// The rows below the window are not decoded and the columns beside it are
// not converted: a small window decodes a small rectangle.
TEST(JpegWindowDecoderTest, DecodesLittleMoreThanTheWindow) {
  const Bytes jpeg = Encode(320, 240, {2, 2});
  JpegWindowDecoder decoder(DecodeOptions{});
  DecodedImage part;
  ASSERT_TRUE(decoder.Decode(jpeg, DctScale{}, {100, 80, 64, 48}, kPath, &part).ok());
  // One 16x16 iMCU of guard on each side, aligned to iMCUs.
  EXPECT_GE(part.decoded.x, 100 - 32);
  EXPECT_LE(part.decoded.x + part.decoded.width, 100 + 64 + 32);
  EXPECT_EQ(part.decoded.y, 80 - 16);
  EXPECT_EQ(part.decoded.y + part.decoded.height, 80 + 48 + 16);
}

Bytes Truncated(Bytes jpeg, double fraction) {
  jpeg.resize(static_cast<size_t>(static_cast<double>(jpeg.size()) * fraction));
  return jpeg;
}

// A file cut inside the window fails as the whole decode does; one cut
// after the window's last row decodes its window (what the sample reads
// is intact), which the whole decode refuses. A good file decodes after
// either on the same decoder.
TEST(JpegWindowDecoderTest, TruncatedInsideTheWindowFailsAfterItSucceeds) {
  const Bytes good = Encode(256, 256, {2, 2});
  const Bytes cut = Truncated(good, 0.6);
  JpegWindowDecoder decoder(DecodeOptions{});
  DecodedImage part;
  const ImageWindow bottom{64, 200, 64, 56};
  Status inside = decoder.Decode(cut, DctScale{}, bottom, kPath, &part);
  ASSERT_FALSE(inside.ok());
  EXPECT_EQ(inside.error().kind, ErrorKind::kCorruptImage);
  EXPECT_NE(inside.error().Message().find(kPath), std::string::npos);
  EXPECT_NE(inside.error().Message().find("Premature end of JPEG file"), std::string::npos)
      << inside.error().Message();

  const ImageWindow top{64, 0, 64, 40};
  ASSERT_TRUE(decoder.Decode(cut, DctScale{}, top, kPath, &part).ok());
  const DecodedImage whole = DecodeWhole(good, DctScale{});
  EXPECT_EQ(DifferingBytes(part, whole, top), 0);
  JpegDecoder whole_decoder(DecodeOptions{});
  DecodedImage refused;
  EXPECT_FALSE(whole_decoder.Decode(cut, Header(cut), DctScale{}, kPath, &refused).ok());

  ASSERT_TRUE(decoder.Decode(good, DctScale{}, bottom, kPath, &part).ok());
  EXPECT_EQ(DifferingBytes(part, whole, bottom), 0);
}

// With warnings ignored, a file cut inside the window decodes (libjpeg
// fills the rest grey), as TurboJPEG's does.
TEST(JpegWindowDecoderTest, IgnoredWarningsDecodeACutFile) {
  const Bytes cut = Truncated(Encode(256, 256, {2, 2}), 0.6);
  DecodeOptions options;
  options.jpeg_warnings = JpegWarnings::kAreIgnored;
  JpegWindowDecoder decoder(options);
  DecodedImage part;
  EXPECT_TRUE(decoder.Decode(cut, DctScale{}, {0, 200, 256, 56}, kPath, &part).ok());
}

// Corrupt entropy data in the window is libjpeg's error, with its message,
// and the decoder decodes the next file as if nothing happened.
TEST(JpegWindowDecoderTest, CorruptDataFailsAndTheNextFileDecodes) {
  const Bytes good = Encode(160, 160, {2, 2});
  Bytes corrupt = good;
  // An SOI marker inside the scan data: libjpeg stops on it.
  const size_t middle = corrupt.size() / 2;
  corrupt[middle] = 0xFF;
  corrupt[middle + 1] = 0xD8;
  JpegWindowDecoder decoder(DecodeOptions{});
  DecodedImage part;
  Status status = decoder.Decode(corrupt, DctScale{}, {0, 0, 160, 160}, kPath, &part);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kCorruptImage);
  const ImageWindow window{40, 40, 80, 80};
  ASSERT_TRUE(decoder.Decode(good, DctScale{}, window, kPath, &part).ok());
  EXPECT_EQ(DifferingBytes(part, DecodeWhole(good, DctScale{}), window), 0);
}

TEST(JpegWindowDecoderTest, ChoosesSmallWindowsOfOneScanFiles) {
  JpegWindowDecoder decoder(DecodeOptions{});
  const Bytes baseline = Encode(400, 300, {2, 2});
  const Bytes progressive = Encode(400, 300, {2, 2, 0, true});
  const DctScale half{1, 2};  // 200x150
  if (std::getenv("SEGFEED_JPEG_WINDOW") != nullptr) GTEST_SKIP() << "the switch decides";
  EXPECT_TRUE(decoder.Chooses(Header(baseline), half, {0, 0, 100, 75}));
  EXPECT_FALSE(decoder.Chooses(Header(baseline), half, {0, 0, 200, 150}));
  EXPECT_FALSE(decoder.Chooses(Header(progressive), half, {0, 0, 100, 75}));
}

}  // namespace
}  // namespace segfeed::decode
