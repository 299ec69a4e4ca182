#include "decode/gif_lzw.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "fixtures/fixtures.h"

namespace segfeed::decode {
namespace {

using Outcome = GifLzwDecoder::Outcome;

TEST(GifLzwTest, DecodesLiteralOnlyStreamPastFullTable) {
  std::vector<uint8_t> pixels(9000);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = (i * 7 + i / 13) % 4;
  const auto stream = testing::LzwLiteralStream(pixels, 2, true);
  GifLzwDecoder decoder;
  std::vector<uint8_t> out(pixels.size());
  std::array<bool, 256> used{};
  const auto result = decoder.Decode(stream, 2, out, &used);
  EXPECT_EQ(result.outcome, Outcome::kComplete);
  EXPECT_EQ(result.pixels_written, pixels.size());
  EXPECT_TRUE(out == pixels);
  EXPECT_TRUE(used[0] && used[1] && used[2] && used[3] && !used[4]);
}

TEST(GifLzwTest, MatchesGiflibOnNoisyAndRunLengthRasters) {
  // GIF files written by giflib and checked by giflib's DGifSlurp:
  // noise fills the table and forces clear codes; runs exercise long
  // strings and the KwKwK case; 256 colours use 8-bit literals.
  testing::GifPicture picture;
  picture.palette.clear();
  for (int i = 0; i < 256; ++i) picture.palette.push_back({uint8_t(i), uint8_t(i), uint8_t(i)});
  for (int colours : {2, 3, 16, 256}) {
    for (int run : {1, 3, 200}) {
      const int width = 301, height = 97;
      const auto noise = testing::RandomBytes(static_cast<size_t>(width) * height, colours * run);
      std::vector<uint8_t> raster(noise.size());
      for (size_t i = 0; i < raster.size(); ++i) raster[i] = noise[i / run * run] % colours;
      picture.screen_width = width;
      picture.screen_height = height;
      picture.frames = {{0, 0, width, height, false, -1, raster}};
      const auto gif = testing::EncodeGif(picture);
      int w = 0, h = 0;
      ASSERT_TRUE(testing::SlurpFirstFrame(gif, &w, &h) == raster);
      // Our LZW decoder on the sub-blocks giflib wrote.
      size_t pos = 6 + 7 + 3 * 256 + 10;  // header, screen, palette, descriptor
      ASSERT_EQ(gif[pos - 10], 0x2C);
      const int min_code_size = gif[pos++];
      std::vector<uint8_t> compressed;
      while (gif[pos] != 0) {
        compressed.insert(compressed.end(), gif.begin() + pos + 1,
                          gif.begin() + pos + 1 + gif[pos]);
        pos += 1 + gif[pos];
      }
      GifLzwDecoder decoder;
      std::vector<uint8_t> out(raster.size());
      std::array<bool, 256> used{};
      const auto result = decoder.Decode(compressed, min_code_size, out, &used);
      EXPECT_EQ(result.outcome, Outcome::kComplete) << colours << " colours, run " << run;
      EXPECT_TRUE(out == raster) << colours << " colours, run " << run;
    }
  }
}

TEST(GifLzwTest, ReportsDamage) {
  const std::vector<uint8_t> pixels(500, 1);
  const auto stream = testing::LzwLiteralStream(pixels, 2, true);
  GifLzwDecoder decoder;
  std::vector<uint8_t> out(pixels.size());
  std::array<bool, 256> used{};
  // Cut short.
  auto result = decoder.Decode(std::span(stream).first(stream.size() / 2), 2, out, &used);
  EXPECT_EQ(result.outcome, Outcome::kTruncated);
  EXPECT_GT(result.pixels_written, 0u);
  // Asked for more pixels than the stream holds: the end code comes first.
  std::vector<uint8_t> bigger(pixels.size() + 10);
  EXPECT_EQ(decoder.Decode(stream, 2, bigger, &used).outcome, Outcome::kEndCodeTooEarly);
  // Fewer pixels: the rest of the data is ignored.
  std::vector<uint8_t> smaller(pixels.size() - 10);
  EXPECT_EQ(decoder.Decode(stream, 2, smaller, &used).outcome, Outcome::kComplete);
  // A first code that refers to an undefined entry (clear, then code 7).
  const std::vector<uint8_t> invalid = {0x04 | (0x07 << 3), 0x00};
  EXPECT_EQ(decoder.Decode(invalid, 2, out, &used).outcome, Outcome::kInvalidCode);
  EXPECT_EQ(decoder.Decode(stream, 0, out, &used).outcome, Outcome::kBadCodeSize);
  EXPECT_EQ(decoder.Decode(stream, 9, out, &used).outcome, Outcome::kBadCodeSize);
}

// Decoding into rows placed anywhere gives each stored row exactly the
// bytes of a linear decode, for strings that cross rows and overlap their
// source (runs make the KwKwK case), and for rows shorter than a string.
TEST(GifLzwTest, DecodeRowsMatchesLinearDecodeRowByRow) {
  testing::GifPicture picture;
  picture.palette = {{0, 0, 0}, {255, 255, 255}, {1, 1, 1}, {2, 2, 2}};
  for (int width : {1, 7, 301}) {
    for (int run : {1, 40, 5000}) {
      const int height = 53;
      const auto noise = testing::RandomBytes(static_cast<size_t>(width) * height, width + run);
      std::vector<uint8_t> raster(noise.size());
      for (size_t i = 0; i < raster.size(); ++i) raster[i] = noise[i / run * run] % 4;
      testing::GifFrame frame;
      frame.width = width;
      frame.height = height;
      frame.indices = raster;
      picture.screen_width = width;
      picture.screen_height = height;
      picture.frames = {frame};
      const auto gif = testing::EncodeGif(picture);
      // The LZW data of the only frame, as the GIF decoder gathers it.
      const auto lzw = testing::FirstFrameLzwData(gif);
      GifLzwDecoder decoder;
      std::array<bool, 256> used{};
      std::vector<uint8_t> linear(raster.size());
      ASSERT_EQ(decoder.Decode(lzw.data, lzw.min_code_size, linear, &used).outcome,
                Outcome::kComplete);
      ASSERT_TRUE(linear == raster);
      // Stored row k at display row (k * 17) % height, in a wider canvas.
      const size_t stride = static_cast<size_t>(width) + 5;
      std::vector<uint8_t> canvas(stride * height, 0xEE);
      std::vector<uint8_t*> rows;
      for (int k = 0; k < height; ++k)
        rows.push_back(canvas.data() + (k * 17 % height) * stride + 2);
      const auto result = decoder.DecodeRows(lzw.data, lzw.min_code_size, rows, width, &used);
      ASSERT_EQ(result.outcome, Outcome::kComplete) << width << " " << run;
      for (int k = 0; k < height; ++k) {
        ASSERT_TRUE(
            std::equal(rows[k], rows[k] + width, linear.begin() + static_cast<long>(k) * width))
            << "width " << width << ", run " << run << ", row " << k;
        EXPECT_EQ(rows[k][-1], 0xEE);  // nothing written beside the row
        EXPECT_EQ(rows[k][width], 0xEE);
      }
    }
  }
}

}  // namespace
}  // namespace segfeed::decode
