// The whole-buffer PNG path against libspng: every kind of file, every
// filter type, through PngDecoder (whose Adam7 files still go through
// libspng) and against libspng's own whole-image decode; and the files the
// path must leave to libspng.
#include "decode/png_whole_buffer.h"

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <spng.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "decode/png_decoder.h"
#include "fixtures/fixtures.h"
#include "fixtures/png_fixtures.h"

namespace segfeed::decode {
namespace {

using testing::Bytes;
using testing::PngPicture;

constexpr const char* kPath = "labels/frankfurt_000000_000294.png";

struct Kind {
  int color_type;
  int bit_depth;
};
constexpr Kind kEveryKind[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1},
                               {3, 2}, {3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};
constexpr int kFilterChoices[] = {SPNG_FILTER_CHOICE_NONE,  SPNG_FILTER_CHOICE_SUB,
                                  SPNG_FILTER_CHOICE_UP,    SPNG_FILTER_CHOICE_AVG,
                                  SPNG_FILTER_CHOICE_PAETH, SPNG_FILTER_CHOICE_ALL};
// Odd widths: rows that end inside a byte below 8 bits, and SSE2 pixel
// loops that end one pixel after the last full 16 bytes.
constexpr int kSizes[][2] = {{1, 1}, {5, 3}, {17, 9}, {61, 14}};

int ChannelsOf(int color_type) {
  return color_type == 2 ? 3 : color_type == 4 ? 2 : color_type == 6 ? 4 : 1;
}

PngPicture Picture(const Kind& kind, int width, int height, bool interlaced, int filter_choice) {
  PngPicture picture;
  picture.width = width;
  picture.height = height;
  picture.bit_depth = kind.bit_depth;
  picture.color_type = kind.color_type;
  picture.interlaced = interlaced;
  picture.filter_choice = filter_choice;
  if (kind.color_type == 3) {
    for (int i = 0; i < (1 << kind.bit_depth); ++i)
      picture.palette.push_back({static_cast<uint8_t>(i * 37), static_cast<uint8_t>(255 - i),
                                 static_cast<uint8_t>(i * 11 + 5)});
  }
  // Noise on a ramp: every filter type predicts something different.
  std::vector<uint16_t> values =
      testing::TestSamples(width, height, ChannelsOf(kind.color_type), kind.bit_depth);
  uint32_t state = 12345;
  for (uint16_t& value : values) {
    state = state * 1664525 + 1013904223;
    if ((state >> 28) == 0) value = static_cast<uint16_t>((state >> 8) % (1u << kind.bit_depth));
  }
  picture.samples =
      testing::PackPngSamples(values, width, height, ChannelsOf(kind.color_type), kind.bit_depth);
  return picture;
}

// libspng's whole-image decode to `format`; empty when it refuses the file.
Bytes SpngDecode(const Bytes& png, int format) {
  std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(0), spng_ctx_free);
  size_t size = 0;
  if (spng_set_png_buffer(ctx.get(), png.data(), png.size()) ||
      spng_decoded_image_size(ctx.get(), format, &size))
    return {};
  Bytes out(size);
  if (spng_decode_image(ctx.get(), out.data(), size, format, 0)) return {};
  return out;
}

bool WholeBufferTakes(const Bytes& png) {
  PngDecoder reader({});
  auto header = reader.ReadHeader(png, kPath, ErrorKind::kCorruptMask);
  if (!header.ok()) return false;
  PngWholeBuffer whole;
  return PngWholeBuffer::Takes(header.value()) && whole.Inflate(png, header.value(), {}) &&
         UnfilterRows(
             header.value(), whole.rows(), [](int) -> uint8_t* { return nullptr; },
             [](int, const uint8_t*) { return true; });
}

// `png` with its image data replaced by one IDAT chunk of `data`.
Bytes WithImageData(const Bytes& png, const Bytes& data) {
  return testing::InsertPngChunk(testing::RemovePngChunks(png, "IDAT"), "IEND",
                                 testing::MakePngChunk("IDAT", data));
}

Bytes ZlibCompress(const Bytes& raw) {
  std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> compressor(
      libdeflate_alloc_compressor(6), libdeflate_free_compressor);
  Bytes out(libdeflate_zlib_compress_bound(compressor.get(), raw.size()));
  out.resize(
      libdeflate_zlib_compress(compressor.get(), raw.data(), raw.size(), out.data(), out.size()));
  return out;
}

// The image data of a 8-bit grey `width` x `height` file: each row filtered
// with None, its samples (x + y) & 255.
Bytes GreyRows(int width, int height) {
  Bytes raw;
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    for (int x = 0; x < width; ++x) raw.push_back(static_cast<uint8_t>(x + y));
  }
  return raw;
}

TEST(PngWholeBufferTest, EveryKindAndFilterDecodesAsLibspngDecodesIt) {
  for (const Kind& kind : kEveryKind) {
    for (const auto& size : kSizes) {
      for (const int filter : kFilterChoices) {
        const std::string name = "colour type " + std::to_string(kind.color_type) + ", " +
                                 std::to_string(kind.bit_depth) + "-bit, " +
                                 std::to_string(size[0]) + "x" + std::to_string(size[1]) +
                                 ", filters " + std::to_string(filter);
        const Bytes png =
            testing::EncodePngWithSpng(Picture(kind, size[0], size[1], false, filter));
        // The same pixels in Adam7 take libspng's path through PngDecoder.
        const Bytes adam7 =
            testing::EncodePngWithSpng(Picture(kind, size[0], size[1], true, filter));
        ASSERT_TRUE(WholeBufferTakes(png)) << name;
        PngDecoder decoder({});
        MaskSamples whole_mask, spng_mask;
        ASSERT_TRUE(decoder.DecodeMask(png, kPath, &whole_mask).ok()) << name;
        ASSERT_TRUE(decoder.DecodeMask(adam7, kPath, &spng_mask).ok()) << name;
        EXPECT_EQ(whole_mask.bytes, spng_mask.bytes) << name;
        EXPECT_EQ(whole_mask.palette, spng_mask.palette) << name;
        DecodedImage whole_image;
        ASSERT_TRUE(decoder.DecodeImage(png, kPath, &whole_image).ok()) << name;
        EXPECT_EQ(whole_image.pixels, SpngDecode(png, SPNG_FMT_RGB8)) << name;
        if (kind.bit_depth == 8 && kind.color_type == 0) {
          // Raw samples too, where SPNG_FMT_PNG and the mask layout agree.
          EXPECT_EQ(whole_mask.bytes, SpngDecode(png, SPNG_FMT_PNG)) << name;
        }
      }
    }
  }
}

// A label map of `kind` (one-byte pixels: grey or palette, 1-8 bits):
// regions of a few classes with wavy borders, so most of each row above is
// flat (Paeth's and Sub's 16-byte prefix sums) and some of it is not (their
// byte-by-byte steps), with a few lone pixels.
PngPicture LabelPicture(const Kind& kind, int width, int height, int filter_choice) {
  PngPicture picture = Picture(kind, width, height, false, filter_choice);
  const int classes = 1 << std::min(kind.bit_depth, 3);
  std::vector<uint16_t> values(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int border = width / 3 + (y * 7 % 23) - (y / 5 % 9);
      int label = (x < border ? 0 : 1) + (y * 3 > height + x / 4 ? 2 : 0);
      if ((x * 131 + y * 71) % 997 == 0) label = classes - 1;  // a lone pixel
      values[static_cast<size_t>(y) * width + x] = static_cast<uint16_t>(label % classes);
    }
  }
  picture.samples = testing::PackPngSamples(values, width, height, 1, kind.bit_depth);
  return picture;
}

// The one-byte pixel kernels (Sub as a prefix sum, Paeth as one where the
// row above is flat), on rows long enough for their 16-byte blocks and
// widths that end inside one, against libspng.
TEST(PngWholeBufferTest, LabelMapsDecodeAsLibspngDecodesThem) {
  for (const Kind& kind : {Kind{0, 8}, Kind{3, 8}, Kind{0, 4}, Kind{3, 2}, Kind{0, 1}}) {
    for (const int width : {1, 16, 17, 33, 200, 2048}) {
      for (const int filter :
           {SPNG_FILTER_CHOICE_SUB, SPNG_FILTER_CHOICE_PAETH, SPNG_FILTER_CHOICE_ALL}) {
        const std::string name = "colour type " + std::to_string(kind.color_type) + ", " +
                                 std::to_string(kind.bit_depth) + "-bit, width " +
                                 std::to_string(width) + ", filters " + std::to_string(filter);
        const Bytes png = testing::EncodePngWithSpng(LabelPicture(kind, width, 40, filter));
        ASSERT_TRUE(WholeBufferTakes(png)) << name;
        PngDecoder decoder({});
        MaskSamples mask;
        ASSERT_TRUE(decoder.DecodeMask(png, kPath, &mask).ok()) << name;
        if (kind.bit_depth == 8) {
          EXPECT_EQ(mask.bytes, SpngDecode(png, SPNG_FMT_PNG)) << name;
        }
        DecodedImage image;
        ASSERT_TRUE(decoder.DecodeImage(png, kPath, &image).ok()) << name;
        EXPECT_EQ(image.pixels, SpngDecode(png, SPNG_FMT_RGB8)) << name;
      }
    }
  }
}

TEST(PngWholeBufferTest, TransparencyChunksChangeNoPixel) {
  for (const Kind& kind : {Kind{3, 8}, Kind{3, 2}, Kind{0, 8}, Kind{2, 16}}) {
    const Bytes plain = testing::EncodePngWithSpng(Picture(kind, 23, 7, false, 0));
    const Bytes trns_data = kind.color_type == 3   ? Bytes{0, 128}
                            : kind.color_type == 0 ? Bytes{0, 7}
                                                   : Bytes{0, 1, 0, 2, 0, 3};
    const Bytes png =
        testing::InsertPngChunk(plain, "IDAT", testing::MakePngChunk("tRNS", trns_data));
    ASSERT_TRUE(WholeBufferTakes(png));
    PngDecoder decoder({});
    MaskSamples mask, plain_mask;
    ASSERT_TRUE(decoder.DecodeMask(png, kPath, &mask).ok());
    ASSERT_TRUE(decoder.DecodeMask(plain, kPath, &plain_mask).ok());
    EXPECT_EQ(mask.bytes, plain_mask.bytes);
    DecodedImage image;
    ASSERT_TRUE(decoder.DecodeImage(png, kPath, &image).ok());
    EXPECT_EQ(image.pixels, SpngDecode(png, SPNG_FMT_RGB8));
  }
}

TEST(PngWholeBufferTest, OpenCvFilesDecodeAsLibspngDecodesThem) {
  // libpng's adaptive filtering, 8 KiB IDAT chunks joined.
  for (const Kind& kind : {Kind{0, 8}, Kind{2, 8}, Kind{6, 8}, Kind{0, 16}, Kind{2, 16}}) {
    const int channels = ChannelsOf(kind.color_type);
    const std::vector<uint16_t> values = testing::TestSamples(301, 97, channels, kind.bit_depth);
    const Bytes png = testing::EncodePngWithOpenCv(values, 301, 97, channels, kind.bit_depth);
    ASSERT_TRUE(WholeBufferTakes(png));
    PngDecoder decoder({});
    DecodedImage image;
    ASSERT_TRUE(decoder.DecodeImage(png, kPath, &image).ok());
    EXPECT_EQ(image.pixels, SpngDecode(png, SPNG_FMT_RGB8)) << kind.color_type;
  }
}

TEST(PngWholeBufferTest, DamagedImageDataIsLeftToLibspng) {
  const Bytes good = testing::EncodePngWithSpng(Picture({0, 8}, 40, 30, false, 0));
  const Bytes raw = GreyRows(40, 30);
  const Bytes stream = ZlibCompress(raw);
  ASSERT_TRUE(WholeBufferTakes(WithImageData(good, stream)));

  Bytes bad_adler = stream;
  bad_adler.back() ^= 1;
  const Bytes short_rows(raw.begin(), raw.end() - 1);
  Bytes bad_filter = raw;
  bad_filter[41 * 3] = 5;
  Bytes bad_crc = WithImageData(good, stream);
  bad_crc[testing::PngChunks(bad_crc)[1].offset + 9] ^= 1;  // an IDAT data byte
  const Bytes truncated = Bytes(stream.begin(), stream.end() - 9);
  struct Damaged {
    const char* name;
    Bytes png;
  };
  const Damaged corrupt[] = {
      {"bad Adler-32", WithImageData(good, bad_adler)},
      {"stream one byte short", WithImageData(good, ZlibCompress(short_rows))},
      {"filter type 5", WithImageData(good, ZlibCompress(bad_filter))},
      {"bad IDAT CRC", bad_crc},
      {"truncated stream", WithImageData(good, truncated)},
      {"cut inside the IDAT", Bytes(good.begin(), good.end() - 20)},
  };
  for (const Damaged& damaged : corrupt) {
    EXPECT_FALSE(WholeBufferTakes(damaged.png)) << damaged.name;
    PngDecoder decoder({});
    MaskSamples mask;
    const Status status = decoder.DecodeMask(damaged.png, kPath, &mask);
    ASSERT_FALSE(status.ok()) << damaged.name;
    EXPECT_EQ(status.error().kind, ErrorKind::kCorruptMask) << damaged.name;
    EXPECT_EQ(status.error().path, kPath) << damaged.name;
  }
}

TEST(PngWholeBufferTest, WhatLibspngAcceptsDecodesTheSame) {
  const Bytes good = testing::EncodePngWithSpng(Picture({0, 8}, 40, 30, false, 0));
  Bytes long_rows = GreyRows(40, 31);  // one row more than the header says
  // A stream longer than the image: libspng reads what the rows need and
  // stops, so the file decodes (through libspng: this path refuses it).
  const Bytes longer = WithImageData(good, ZlibCompress(long_rows));
  EXPECT_FALSE(WholeBufferTakes(longer));
  Bytes trailing = WithImageData(good, ZlibCompress(GreyRows(40, 30)));
  const Bytes garbage = {1, 2, 3, 4, 5};
  trailing.insert(trailing.end(), garbage.begin(), garbage.end());
  EXPECT_TRUE(WholeBufferTakes(trailing));
  for (const Bytes& png : {longer, trailing}) {
    PngDecoder decoder({});
    MaskSamples mask;
    ASSERT_TRUE(decoder.DecodeMask(png, kPath, &mask).ok());
    Bytes expected;
    for (int y = 0; y < 30; ++y)
      for (int x = 0; x < 40; ++x) expected.push_back(static_cast<uint8_t>(x + y));
    EXPECT_EQ(mask.bytes, expected);
  }
}

TEST(PngWholeBufferTest, ImageDataSplitOverChunksIsJoined) {
  const Bytes good = testing::EncodePngWithSpng(Picture({2, 8}, 64, 48, false, 0));
  const Bytes stream = SpngDecode(good, SPNG_FMT_RGB8);
  const std::vector<testing::PngChunk> chunks = testing::PngChunks(good);
  Bytes data;
  for (const auto& chunk : chunks) {
    if (chunk.type == "IDAT")
      data.insert(data.end(), good.begin() + chunk.offset + 8,
                  good.begin() + chunk.offset + 8 + chunk.length);
  }
  // Split into chunks of 1, 0 and 7 bytes and the rest.
  Bytes split = testing::RemovePngChunks(good, "IDAT");
  const size_t cuts[] = {0, 1, 1, 8, data.size()};
  for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
    split = testing::InsertPngChunk(
        split, "IEND",
        testing::MakePngChunk("IDAT", Bytes(data.begin() + cuts[i], data.begin() + cuts[i + 1])));
  }
  ASSERT_TRUE(WholeBufferTakes(split));
  PngDecoder decoder({});
  DecodedImage image;
  ASSERT_TRUE(decoder.DecodeImage(split, kPath, &image).ok());
  EXPECT_EQ(image.pixels, stream);
}

TEST(PngWholeBufferTest, OverTheBudgetItIsLeftToLibspng) {
  const Bytes png = testing::EncodePngWithSpng(Picture({0, 8}, 64, 64, false, 0));
  PngDecoder decoder({});
  MaskSamples mask;
  // Room for libspng's path (the samples and its three scanlines), not for
  // the inflated rows: the file still decodes, through libspng.
  ASSERT_TRUE(decoder.DecodeMask(png, kPath, &mask, 64 * 64 + 3 * 64).ok());
  EXPECT_EQ(mask.bytes, SpngDecode(png, SPNG_FMT_PNG));
}

}  // namespace
}  // namespace segfeed::decode
