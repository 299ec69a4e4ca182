#include "io/gif_lzw.h"

#include <gtest/gtest.h>

#include <vector>

#include "io/fixtures.h"

namespace segfeed::internal {
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
        compressed.insert(compressed.end(), gif.begin() + pos + 1, gif.begin() + pos + 1 + gif[pos]);
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

}  // namespace
}  // namespace segfeed::internal
