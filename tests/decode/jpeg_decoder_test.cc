#include "decode/jpeg_decoder.h"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>

#include "demo/demo_scene.h"
#include "fixtures/defective_files.h"
#include "fixtures/fixtures.h"

namespace segfeed::decode {
namespace {

using testing::Bytes;
using testing::JpegVariant;
using testing::LibjpegVariant;

constexpr const char* kPath = "train/car_01.jpg";

// Decodes at full size with our decoder, expecting success.
DecodedImage DecodeFull(const Bytes& jpeg, const DecodeOptions& options = {}) {
  JpegDecoder decoder(options);
  DecodedImage image;
  auto header = decoder.ReadHeader(jpeg, kPath);
  EXPECT_TRUE(header.ok()) << header.error().Message();
  if (!header.ok()) return image;
  Status status = decoder.Decode(jpeg, header.value(), DctScale{}, kPath, &image);
  EXPECT_TRUE(status.ok()) << status.error().Message();
  return image;
}

void ExpectSameAsOpenCv(const Bytes& jpeg) {
  const DecodedImage ours = DecodeFull(jpeg);
  int width = 0, height = 0;
  const std::vector<uint8_t> reference = testing::DecodeJpegWithOpenCv(jpeg, &width, &height);
  ASSERT_EQ(ours.width, width);
  ASSERT_EQ(ours.height, height);
  EXPECT_TRUE(ours.pixels == reference);
}

TEST(JpegDecoderTest, BaselineMatchesOpenCvImdecode) {
  const auto rgb = testing::TestPicture(67, 45);
  ExpectSameAsOpenCv(testing::EncodeJpegWithOpenCv(rgb, 67, 45, JpegVariant::kBaseline));
}

TEST(JpegDecoderTest, ProgressiveMatchesOpenCvImdecode) {
  const auto rgb = testing::TestPicture(67, 45);
  const Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 67, 45, JpegVariant::kProgressive);
  JpegDecoder decoder({});
  auto header = decoder.ReadHeader(jpeg, kPath);
  ASSERT_TRUE(header.ok());
  EXPECT_TRUE(header.value().progressive);
  ExpectSameAsOpenCv(jpeg);
}

TEST(JpegDecoderTest, GrayscaleExpandsToRgb) {
  const auto rgb = testing::TestPicture(40, 30);
  const Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 40, 30, JpegVariant::kGrayscale);
  JpegDecoder decoder({});
  auto header = decoder.ReadHeader(jpeg, kPath);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header.value().colorspace, JpegColorspace::kGray);
  EXPECT_EQ(header.value().subsampling, JpegSubsampling::kGray);
  const DecodedImage image = DecodeFull(jpeg);
  for (size_t i = 0; i < image.pixels.size(); i += 3) {
    ASSERT_EQ(image.pixels[i], image.pixels[i + 1]);
    ASSERT_EQ(image.pixels[i], image.pixels[i + 2]);
  }
  ExpectSameAsOpenCv(jpeg);
}

TEST(JpegDecoderTest, ArithmeticCodedDecodes) {
  const auto rgb = testing::TestPicture(50, 34);
  const Bytes jpeg = testing::EncodeJpegWithLibjpeg(rgb, 50, 34, LibjpegVariant::kArithmetic);
  JpegDecoder decoder({});
  auto header = decoder.ReadHeader(jpeg, kPath);
  ASSERT_TRUE(header.ok()) << header.error().Message();
  EXPECT_TRUE(header.value().arithmetic);
  ExpectSameAsOpenCv(jpeg);
  // Arithmetic coding is lossless on top of the same DCT: the pixels are
  // close to the source picture.
  const DecodedImage image = DecodeFull(jpeg);
  double error = 0;
  for (size_t i = 0; i < rgb.size(); ++i) error += std::abs(rgb[i] - image.pixels[i]);
  EXPECT_LT(error / rgb.size(), 8.0);
}

TEST(JpegDecoderTest, RefusesCmykAndYcckAsUnsupportedFormat) {
  const auto rgb = testing::TestPicture(16, 16);
  for (LibjpegVariant variant : {LibjpegVariant::kCmyk, LibjpegVariant::kYcck}) {
    const Bytes jpeg = testing::EncodeJpegWithLibjpeg(rgb, 16, 16, variant);
    JpegDecoder decoder({});
    auto header = decoder.ReadHeader(jpeg, kPath);
    ASSERT_FALSE(header.ok());
    EXPECT_EQ(header.error().kind, ErrorKind::kUnsupportedFormat);
    EXPECT_EQ(header.error().path, kPath);
    EXPECT_NE(header.error().detail.find(variant == LibjpegVariant::kCmyk ? "CMYK" : "YCCK"),
              std::string::npos)
        << header.error().detail;
  }
}

TEST(JpegDecoderTest, ChooseScalePicksSmallestScaleNotBelowTarget) {
  JpegDecoder decoder({});
  EXPECT_EQ(decoder.ChooseScale(1918, 1280, 512, 512), (DctScale{1, 2}));
  EXPECT_EQ((DctScale{1, 2}).Apply(1918), 959);
  EXPECT_EQ((DctScale{1, 2}).Apply(1280), 640);
  EXPECT_EQ(decoder.ChooseScale(1918, 1280, 256, 256), (DctScale{1, 4}));
  EXPECT_EQ(decoder.ChooseScale(1918, 1280, 100, 100), (DctScale{1, 8}));
  EXPECT_EQ(decoder.ChooseScale(1918, 1280, 1918, 1280), (DctScale{1, 1}));
  // 3/8 of 1280 is 480 < 512: the next larger scale, 1/2, is chosen.
  EXPECT_EQ(decoder.ChooseScale(1918, 1280, 700, 512), (DctScale{1, 2}));
  // 5/8: 1199x800 covers 1100x700, 1/2 (959x640) does not.
  EXPECT_EQ(decoder.ChooseScale(1918, 1280, 1100, 700), (DctScale{5, 8}));
  // A target larger than the source decodes at full size, never upscaled.
  EXPECT_EQ(decoder.ChooseScale(640, 480, 1024, 1024), (DctScale{1, 1}));
  EXPECT_EQ(decoder.ChooseScale(640, 480, 0, 0), (DctScale{1, 1}));
}

TEST(JpegDecoderTest, ScaledDecodeMatchesTurboJpegScaledOutput) {
  demo::DemoRaster demo;
  demo::RenderDemoSample(demo::DemoOptions{}, 3, &demo);  // a 1918x1280 car photo
  ASSERT_EQ(demo.width, 1918);
  const auto& rgb = demo.rgb;
  const Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 1918, 1280, JpegVariant::kBaseline);
  JpegDecoder decoder({});
  auto header = decoder.ReadHeader(jpeg, kPath);
  ASSERT_TRUE(header.ok());
  const DctScale scale = decoder.ChooseScale(1918, 1280, 512, 512);
  DecodedImage image;
  ASSERT_TRUE(decoder.Decode(jpeg, header.value(), scale, kPath, &image).ok());
  ASSERT_EQ(image.width, 959);
  ASSERT_EQ(image.height, 640);

  // TurboJPEG's own scaled output, asked for by size.
  tjhandle handle = tjInitDecompress();
  std::vector<uint8_t> reference(959 * 640 * 3);
  ASSERT_EQ(
      tjDecompress2(handle, jpeg.data(), jpeg.size(), reference.data(), 959, 0, 640, TJPF_RGB, 0),
      0);
  tjDestroy(handle);
  EXPECT_TRUE(image.pixels == reference);

  // And independently: close to an area-averaged full-size decode.
  int width = 0, height = 0;
  auto full = testing::DecodeJpegWithOpenCv(jpeg, &width, &height);
  cv::Mat full_mat(height, width, CV_8UC3, full.data());
  cv::Mat halved;
  cv::resize(full_mat, halved, cv::Size(959, 640), 0, 0, cv::INTER_AREA);
  cv::Mat ours(640, 959, CV_8UC3, image.pixels.data());
  EXPECT_LT(cv::norm(ours, halved, cv::NORM_L1) / (959.0 * 640 * 3), 4.0);
}

TEST(JpegDecoderTest, ReusesOutputBufferWithoutReallocating) {
  const auto rgb = testing::TestPicture(64, 48);
  const Bytes big = testing::EncodeJpegWithOpenCv(rgb, 64, 48, JpegVariant::kBaseline);
  const auto small_rgb = testing::TestPicture(32, 24);
  const Bytes small = testing::EncodeJpegWithOpenCv(small_rgb, 32, 24, JpegVariant::kBaseline);
  JpegDecoder decoder({});
  DecodedImage image;
  auto big_header = decoder.ReadHeader(big, kPath);
  ASSERT_TRUE(decoder.Decode(big, big_header.value(), {}, kPath, &image).ok());
  const uint8_t* data = image.pixels.data();
  const size_t capacity = image.pixels.capacity();
  auto small_header = decoder.ReadHeader(small, kPath);
  ASSERT_TRUE(decoder.Decode(small, small_header.value(), {}, kPath, &image).ok());
  ASSERT_TRUE(decoder.Decode(big, big_header.value(), {}, kPath, &image).ok());
  EXPECT_EQ(image.pixels.data(), data);
  EXPECT_EQ(image.pixels.capacity(), capacity);
}

TEST(JpegDecoderTest, RefusesHugeHeaderBeforeAllocating) {
  const auto rgb = testing::TestPicture(1, 1);
  const Bytes jpeg = testing::WithJpegFrameSize(
      testing::EncodeJpegWithOpenCv(rgb, 1, 1, JpegVariant::kBaseline), 60000, 60000);
  JpegDecoder decoder({});
  DecodedImage image;
  std::optional<Error> error;
  const int64_t growth = testing::PeakRssGrowthBytes([&] {
    auto header = decoder.ReadHeader(jpeg, kPath);
    if (!header.ok()) error = header.error();
  });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, ErrorKind::kTooLarge);
  EXPECT_EQ(error->path, kPath);
  EXPECT_NE(error->detail.find("60000x60000"), std::string::npos) << error->detail;
  EXPECT_EQ(image.pixels.capacity(), 0u);
  if (growth >= 0) {
    EXPECT_LT(growth, 64 << 20);
  } else {
    GTEST_LOG_(INFO) << "peak RSS cannot be reset here; checked the buffer only";
  }
}

// A frame header within max_pixels over far too little data for its 8x8
// blocks (each costs a Huffman-coded file at least one bit): a truncated
// file, refused before its pixels are allocated, baseline or progressive.
// Arithmetic coding has no such floor and is left to libjpeg.
TEST(JpegDecoderTest, DataTooShortForTheClaimedBlocksIsCorruptBeforeAllocating) {
  const auto rgb = testing::TestPicture(16, 16);
  for (JpegVariant variant : {JpegVariant::kBaseline, JpegVariant::kProgressive}) {
    const Bytes jpeg = testing::WithJpegFrameSize(
        testing::EncodeJpegWithOpenCv(rgb, 16, 16, variant), 10000, 10000);
    JpegDecoder decoder({});
    auto header = decoder.ReadHeader(jpeg, kPath);
    ASSERT_TRUE(header.ok()) << header.error().Message();
    DecodedImage image;
    const Status status = decoder.Decode(jpeg, header.value(), {1, 8}, kPath, &image);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().kind, ErrorKind::kCorruptImage);
    EXPECT_EQ(status.error().path, kPath);
    EXPECT_NE(status.error().detail.find("cannot hold the 1562500 8x8 blocks"), std::string::npos)
        << status.error().detail;
    EXPECT_EQ(image.pixels.capacity(), 0u);
  }
}

TEST(JpegDecoderTest, MaxPixelsOptionIsTheLimit) {
  const auto rgb = testing::TestPicture(20, 10);
  const Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 20, 10, JpegVariant::kBaseline);
  DecodeOptions options;
  options.max_pixels = 200;
  EXPECT_TRUE(JpegDecoder(options).ReadHeader(jpeg, kPath).ok());
  options.max_pixels = 199;
  auto header = JpegDecoder(options).ReadHeader(jpeg, kPath);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().kind, ErrorKind::kTooLarge);
}

TEST(JpegDecoderTest, TruncatedDataIsCorruptImageWithLibjpegMessage) {
  const auto rgb = testing::TestPicture(64, 64);
  Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 64, 64, JpegVariant::kBaseline);
  jpeg.resize(jpeg.size() * 2 / 3);
  JpegDecoder decoder({});
  auto header = decoder.ReadHeader(jpeg, kPath);
  ASSERT_TRUE(header.ok());
  DecodedImage image;
  Status status = decoder.Decode(jpeg, header.value(), {}, kPath, &image);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kCorruptImage);
  EXPECT_EQ(status.error().path, kPath);
  EXPECT_NE(status.error().detail.find("Premature end of JPEG file"), std::string::npos)
      << status.error().detail;
}

TEST(JpegDecoderTest, WarningsCanBeIgnoredByOption) {
  const auto rgb = testing::TestPicture(64, 64);
  Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 64, 64, JpegVariant::kBaseline);
  jpeg.resize(jpeg.size() * 2 / 3);
  DecodeOptions options;
  options.jpeg_warnings = JpegWarnings::kAreIgnored;
  JpegDecoder decoder(options);
  auto header = decoder.ReadHeader(jpeg, kPath);
  ASSERT_TRUE(header.ok());
  DecodedImage image;
  EXPECT_TRUE(decoder.Decode(jpeg, header.value(), {}, kPath, &image).ok());
}

TEST(JpegDecoderTest, TruncatedHeaderIsCorruptImage) {
  const auto rgb = testing::TestPicture(64, 64);
  Bytes jpeg = testing::EncodeJpegWithOpenCv(rgb, 64, 64, JpegVariant::kBaseline);
  // Cut inside the quantisation tables (libjpeg then sees a tables-only
  // stream and reports success with a 0x0 image) and inside the frame.
  for (size_t size : {30, 100, 160}) {
    jpeg.resize(size);
    auto header = JpegDecoder({}).ReadHeader(jpeg, kPath);
    ASSERT_FALSE(header.ok()) << "cut at " << size;
    EXPECT_EQ(header.error().kind, ErrorKind::kCorruptImage);
  }
}

// SOI and EOI alone, or tables without a frame: libjpeg accepts these as a
// tables-only stream, with nothing in its error message.
TEST(JpegDecoderTest, FileWithoutFrameHeaderSaysWhatItHolds) {
  const Bytes jpeg =
      testing::EncodeJpegWithOpenCv(testing::TestPicture(16, 16), 16, 16, JpegVariant::kBaseline);
  Bytes tables_only;
  for (size_t i = 0; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {  // SOF0: keep what comes before, then EOI
      tables_only.assign(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  ASSERT_FALSE(tables_only.empty());
  tables_only.insert(tables_only.end(), {0xFF, 0xD9});
  for (const Bytes& bytes : {Bytes{0xFF, 0xD8, 0xFF, 0xD9}, tables_only}) {
    auto header = JpegDecoder({}).ReadHeader(bytes, kPath);
    ASSERT_FALSE(header.ok()) << bytes.size() << " bytes";
    EXPECT_EQ(header.error().kind, ErrorKind::kCorruptImage);
    EXPECT_EQ(header.error().detail,
              "JPEG has no frame header (SOF): the file holds only tables or markers");
  }
}

TEST(JpegDecoderTest, PngAndRandomBytesAreUnsupportedFormat) {
  cv::Mat picture(8, 8, CV_8UC3, cv::Scalar(1, 2, 3));
  std::vector<uint8_t> png;
  ASSERT_TRUE(cv::imencode(".png", picture, png));
  auto header = JpegDecoder({}).ReadHeader(png, kPath);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().kind, ErrorKind::kUnsupportedFormat);
  EXPECT_NE(header.error().detail.find("PNG"), std::string::npos) << header.error().detail;

  header = JpegDecoder({}).ReadHeader(testing::RandomBytes(1000, 7), kPath);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().kind, ErrorKind::kUnsupportedFormat);
}

// Random damage anywhere after the SOI marker: every outcome must be a clean
// success or a corrupt_image/too_large error (ASan/UBSan check the rest).
TEST(JpegDecoderTest, RandomlyDamagedFilesNeverCrash) {
  const auto rgb = testing::TestPicture(48, 40);
  for (JpegVariant variant : {JpegVariant::kBaseline, JpegVariant::kProgressive}) {
    const Bytes clean = testing::EncodeJpegWithOpenCv(rgb, 48, 40, variant);
    // A damaged header may claim a large size; keep the test's memory small.
    DecodeOptions options;
    options.max_pixels = 1 << 20;
    JpegDecoder decoder(options);
    DecodedImage image;
    for (uint32_t seed = 0; seed < 150; ++seed) {
      Bytes jpeg = clean;
      const Bytes noise = testing::RandomBytes(8, seed);
      for (int i = 0; i < 4; ++i) {
        jpeg[3 + (noise[2 * i] * 256 + noise[2 * i + 1]) % (jpeg.size() - 3)] ^= noise[i] | 1;
      }
      auto header = decoder.ReadHeader(jpeg, kPath);
      if (!header.ok()) {
        EXPECT_NE(header.error().kind, ErrorKind::kIoError);
        continue;
      }
      Status status = decoder.Decode(jpeg, header.value(), {}, kPath, &image);
      if (!status.ok()) {
        EXPECT_EQ(status.error().kind, ErrorKind::kCorruptImage);
      }
    }
  }
}

// What a decoder gives for `jpeg` at `scale`: the pixels, or the error.
struct DecodeOutcome {
  std::optional<Error> error;
  DecodedImage image;
};
DecodeOutcome DecodeWith(JpegDecoder* decoder, const Bytes& jpeg, DctScale scale) {
  DecodeOutcome outcome;
  auto header = decoder->ReadHeader(jpeg, kPath);
  if (!header.ok()) {
    outcome.error = header.error();
    return outcome;
  }
  Status status = decoder->Decode(jpeg, header.value(), scale, kPath, &outcome.image);
  if (!status.ok()) outcome.error = status.error();
  return outcome;
}

// What `segfeed check` relies on to validate photos at DCT scale 1/8: the
// entropy decoder reads every coefficient whatever the scale (the 1/8
// inverse DCT keeps only the DC term, but the AC codes must still be
// decoded to find the next block), so damage anywhere in the file gives the
// same outcome and the same message at 1/8 as at full size. Damage of 1 to
// 8 bytes anywhere after SOI, in every coding the decoder supports.
TEST(JpegDecoderTest, DamageIsFoundTheSameAtOneEighthAsAtFullSize) {
  const int width = 96, height = 72;
  const auto rgb = testing::TestPicture(width, height);
  const std::vector<Bytes> cleans = {
      testing::EncodeJpegWithOpenCv(rgb, width, height, JpegVariant::kBaseline),
      testing::EncodeJpegWithOpenCv(rgb, width, height, JpegVariant::kProgressive),
      testing::EncodeJpegWithOpenCv(rgb, width, height, JpegVariant::kGrayscale),
      testing::EncodeJpegWithLibjpeg(rgb, width, height, LibjpegVariant::kArithmetic)};
  DecodeOptions options;
  options.max_pixels = 1 << 20;
  JpegDecoder decoder(options);
  int failures = 0, compared = 0;
  for (const Bytes& clean : cleans) {
    for (uint32_t seed = 0; seed < 400; ++seed) {
      Bytes jpeg = clean;
      const Bytes noise = testing::RandomBytes(32, seed + 1000);
      const int damaged = 1 + noise[0] % 8;
      for (int i = 0; i < damaged; ++i) {
        const size_t at = 2 + (noise[1 + 3 * i] * 256 + noise[2 + 3 * i]) % (jpeg.size() - 2);
        jpeg[at] ^= noise[3 + 3 * i] | 1;
      }
      const DecodeOutcome full = DecodeWith(&decoder, jpeg, DctScale{});
      const DecodeOutcome eighth = DecodeWith(&decoder, jpeg, DctScale{1, 8});
      ++compared;
      if (full.error) ++failures;
      ASSERT_EQ(full.error.has_value(), eighth.error.has_value())
          << "seed " << seed << ": " << (full.error ? full.error->Message() : "full size decodes")
          << " / " << (eighth.error ? eighth.error->Message() : "1/8 decodes");
      if (full.error) {
        EXPECT_EQ(full.error->Message(), eighth.error->Message()) << "seed " << seed;
      }
    }
  }
  // Most damage must be found at all, or the comparison proves little.
  EXPECT_GT(failures, compared / 2);
}

// A file inherits nothing from the one before it (tables, Huffman state,
// markers, an error): on one decoder, a good file, a defective one and
// another good file with different tables give the defect's error and then
// exactly what a fresh decoder gives.
TEST(JpegDecoderTest, NoFileChangesHowTheNextIsDecoded) {
  const auto rgb = testing::TestPicture(48, 40);
  const Bytes before = testing::EncodeJpegWithOpenCv(rgb, 48, 40, JpegVariant::kBaseline, 95);
  const Bytes after = testing::EncodeJpegWithOpenCv(testing::TestPicture(64, 32), 64, 32,
                                                    JpegVariant::kProgressive, 40);
  for (const DctScale scale : {DctScale{1, 1}, DctScale{1, 2}}) {
    JpegDecoder fresh({});
    const DecodeOutcome reference = DecodeWith(&fresh, after, scale);
    ASSERT_FALSE(reference.error) << reference.error->Message();
    for (const testing::DefectiveFile& defect : testing::DefectiveJpegs(before, 48, 40)) {
      SCOPED_TRACE(defect.name + " at scale 1/" + std::to_string(scale.denom));
      JpegDecoder decoder({});
      ASSERT_FALSE(DecodeWith(&decoder, before, scale).error);
      const DecodeOutcome bad = DecodeWith(&decoder, defect.bytes, scale);
      ASSERT_TRUE(bad.error) << "the defective file decoded";
      EXPECT_EQ(bad.error->kind, defect.kind) << bad.error->Message();
      EXPECT_EQ(bad.error->path, kPath);
      const DecodeOutcome good = DecodeWith(&decoder, after, scale);
      ASSERT_FALSE(good.error) << good.error->Message();
      EXPECT_EQ(good.image.width, reference.image.width);
      EXPECT_TRUE(good.image.pixels == reference.image.pixels);
    }
  }
}

}  // namespace
}  // namespace segfeed::decode
