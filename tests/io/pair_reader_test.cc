#include "io/pair_reader.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "fixtures/fixtures.h"
#include "fixtures/mixed_dataset.h"
#include "fixtures/png_fixtures.h"
#include "io/read_pair.h"
#include "source/scratch_growth.h"
#include "temp_dir.h"

namespace segfeed::io {
namespace {

namespace fs = std::filesystem;
using testing::Bytes;
using testing::JpegVariant;
using testing::TempDir;

// One pair on disk: an image of `width` x `height` and a mask of
// `mask_width` x `mask_height`.
SamplePair WritePair(const TempDir& dir, int width, int height, int mask_width, int mask_height) {
  SamplePair pair{"car", dir / "car.jpg", dir / "car_mask.gif"};
  testing::WriteFile(pair.image_path,
                     testing::EncodeJpegWithOpenCv(testing::TestPicture(width, height), width,
                                                   height, JpegVariant::kBaseline));
  testing::WriteFile(
      pair.mask_path,
      testing::EncodeMaskGif(testing::TestMask(mask_width, mask_height), mask_width, mask_height));
  return pair;
}

Error ReadError(const SamplePair& pair, const DecodeOptions& options = {}) {
  PairReader reader(options);
  Status status = ReadPair(reader, pair, 0, 0);
  EXPECT_FALSE(status.ok());
  return status.ok() ? Error{} : status.error();
}

TEST(PairReaderTest, DecodesImageAtDctScaleAndMaskAtFullSize) {
  TempDir dir;
  const SamplePair pair = WritePair(dir, 400, 300, 400, 300);
  PairReader reader({});
  Status status = ReadPair(reader, pair, 100, 100);
  ASSERT_TRUE(status.ok()) << status.error().Message();
  // 1/4 gives 100x75, too small; 3/8 gives 150x113.
  EXPECT_EQ(reader.image_scale(), (decode::DctScale{3, 8}));
  EXPECT_EQ(reader.image().width, reader.image_scale().Apply(400));
  EXPECT_EQ(reader.mask().width, 400);
  EXPECT_EQ(reader.mask().height, 300);
  EXPECT_TRUE(reader.mask().pixels == testing::TestMask(400, 300));
  EXPECT_EQ(reader.mask().distinct_values, 2);
}

TEST(PairReaderTest, ScratchStopsGrowingAfterFirstSample) {
  TempDir dir;
  const SamplePair pair = WritePair(dir, 200, 120, 200, 120);
  PairReader reader({});
  ASSERT_TRUE(ReadPair(reader, pair, 64, 64).ok());
  const size_t scratch = reader.scratch_bytes();
  // 100x60 RGB at 1/2 + 200x120 mask, at least.
  EXPECT_GE(scratch, 100u * 60 * 3 + 200u * 120);
  const uint8_t* image = reader.image().pixels.data();
  const uint8_t* mask = reader.mask().pixels.data();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ReadPair(reader, pair, 64, 64).ok());
  EXPECT_EQ(reader.scratch_bytes(), scratch);
  EXPECT_EQ(reader.image().pixels.data(), image);
  EXPECT_EQ(reader.mask().pixels.data(), mask);
}

TEST(PairReaderTest, SizeMismatchNamesImageAndMask) {
  TempDir dir;
  const SamplePair pair = WritePair(dir, 64, 48, 64, 47);
  const Error error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kSizeMismatch);
  EXPECT_EQ(error.path, pair.image_path.string());
  EXPECT_NE(error.detail.find("64x48"), std::string::npos) << error.detail;
  EXPECT_NE(error.detail.find("64x47"), std::string::npos) << error.detail;
  EXPECT_NE(error.detail.find("car_mask.gif"), std::string::npos) << error.detail;
}

TEST(PairReaderTest, SizeMismatchUsesFullResolutionEvenWhenScaled) {
  TempDir dir;
  const SamplePair pair = WritePair(dir, 64, 48, 64, 48);
  PairReader reader({});
  EXPECT_TRUE(ReadPair(reader, pair, 8, 6).ok());
  EXPECT_EQ(reader.image().width, 8);
}

TEST(PairReaderTest, EmptyFilesAreEmptyFile) {
  TempDir dir;
  SamplePair pair = WritePair(dir, 16, 16, 16, 16);
  testing::WriteFile(pair.mask_path, {});
  Error error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kEmptyFile);
  EXPECT_EQ(error.path, pair.mask_path.string());
  testing::WriteFile(pair.image_path, {});
  error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kEmptyFile);
  EXPECT_EQ(error.path, pair.image_path.string());
}

TEST(PairReaderTest, MissingFileIsIoError) {
  TempDir dir;
  SamplePair pair = WritePair(dir, 16, 16, 16, 16);
  fs::remove(pair.mask_path);
  fs::create_symlink(dir / "gone.gif", pair.mask_path);  // dangling
  const Error error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kIoError);
  EXPECT_EQ(error.path, pair.mask_path.string());
}

TEST(PairReaderTest, WrongFormatsAreUnsupportedFormat) {
  TempDir dir;
  SamplePair pair = WritePair(dir, 16, 16, 16, 16);
  // A GIF named .jpg.
  testing::WriteFile(pair.image_path, testing::EncodeMaskGif(testing::TestMask(16, 16), 16, 16));
  Error error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kUnsupportedFormat);
  EXPECT_NE(error.detail.find("GIF data"), std::string::npos) << error.detail;
  pair = WritePair(dir, 16, 16, 16, 16);
  testing::WriteFile(pair.mask_path, testing::RandomBytes(300, 5));
  error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kUnsupportedFormat);
  EXPECT_EQ(error.path, pair.mask_path.string());
}

TEST(PairReaderTest, CorruptFilesNameTheFileAtFault) {
  TempDir dir;
  SamplePair pair = WritePair(dir, 64, 64, 64, 64);
  Bytes mask = testing::EncodeMaskGif(testing::TestMask(64, 64), 64, 64);
  mask.resize(mask.size() / 2);
  testing::WriteFile(pair.mask_path, mask);
  Error error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kCorruptMask);
  EXPECT_EQ(error.path, pair.mask_path.string());

  pair = WritePair(dir, 64, 64, 64, 64);
  Bytes image =
      testing::EncodeJpegWithOpenCv(testing::TestPicture(64, 64), 64, 64, JpegVariant::kBaseline);
  image.resize(image.size() - 200);
  testing::WriteFile(pair.image_path, image);
  error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kCorruptImage);
  EXPECT_EQ(error.path, pair.image_path.string());
  EXPECT_NE(error.Message().find("car.jpg: "), std::string::npos);
  EXPECT_NE(error.Message().find("[corrupt_image]"), std::string::npos);
}

TEST(PairReaderTest, TooLargeImageIsRefused) {
  TempDir dir;
  SamplePair pair = WritePair(dir, 16, 16, 16, 16);
  testing::WriteFile(
      pair.image_path,
      testing::WithJpegFrameSize(
          testing::EncodeJpegWithOpenCv(testing::TestPicture(1, 1), 1, 1, JpegVariant::kBaseline),
          60000, 60000));
  const Error error = ReadError(pair);
  EXPECT_EQ(error.kind, ErrorKind::kTooLarge);
  EXPECT_EQ(error.path, pair.image_path.string());
}

TEST(PairReaderTest, NonBinaryMaskIsThresholdedAndFlagged) {
  TempDir dir;
  SamplePair pair = WritePair(dir, 4, 1, 4, 1);
  testing::GifPicture picture;
  picture.screen_width = 4;
  picture.screen_height = 1;
  picture.palette = {{0, 0, 0}, {255, 255, 255}, {200, 200, 200}};
  picture.frames.push_back({0, 0, 4, 1, false, -1, {0, 1, 2, 0}});
  testing::WriteFile(pair.mask_path, testing::EncodeGif(picture));
  PairReader reader({});
  ASSERT_TRUE(ReadPair(reader, pair, 0, 0).ok());
  EXPECT_EQ(reader.mask().pixels, (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(reader.mask().distinct_values, 3);
  // The next clean pair clears it.
  pair = WritePair(dir, 4, 1, 4, 1);
  ASSERT_TRUE(ReadPair(reader, pair, 0, 0).ok());
  EXPECT_LE(reader.mask().distinct_values, 2);
}

// The loader times each decode under the format of the member decoded:
// the timings say which decoder each member went to, and a member no
// decoder saw (missing, or refused on its first bytes) has none.
TEST(PairReaderTest, TimingsNameTheFormatEachMemberWasDecodedAs) {
  TempDir dir;
  const SamplePair jpeg_gif = WritePair(dir, 32, 24, 32, 24);
  SamplePair png_png{"png", dir / "png.png", dir / "png_mask.png"};
  testing::PngPicture photo{32, 24, 8, 2, false, {}, testing::TestPicture(32, 24)};
  testing::WriteFile(png_png.image_path, testing::EncodePngWithSpng(photo));
  testing::PngPicture mask{32, 24, 8, 0, false, {}, testing::TestMask(32, 24)};
  testing::WriteFile(png_png.mask_path, testing::EncodePngWithSpng(mask));
  SamplePair jpeg_noise{"noise", jpeg_gif.image_path, dir / "noise_mask.gif"};
  testing::WriteFile(jpeg_noise.mask_path, testing::RandomBytes(300, 5));
  const SamplePair missing{"missing", dir / "missing.jpg", jpeg_gif.mask_path};
  struct Case {
    const SamplePair& pair;
    decode::SniffedFormat image, mask;
  };
  const Case cases[] = {
      {jpeg_gif, decode::SniffedFormat::kJpeg, decode::SniffedFormat::kGif},
      {png_png, decode::SniffedFormat::kPng, decode::SniffedFormat::kPng},
      {jpeg_noise, decode::SniffedFormat::kJpeg, decode::SniffedFormat::kUnknown},
      {missing, decode::SniffedFormat::kUnknown, decode::SniffedFormat::kUnknown}};
  PairReader reader({});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pair.stem);
    const Status status = ReadPair(reader, c.pair, 0, 0);
    EXPECT_EQ(status.ok(), c.mask != decode::SniffedFormat::kUnknown);
    const PairReader::Timings& timings = reader.last_timings();
    EXPECT_EQ(timings.image_format, c.image);
    EXPECT_EQ(timings.mask_format, c.mask);
    if (status.ok()) {
      EXPECT_GT(timings.mask_decode_ns, 0);
    }
  }
  // One member on its own, as the checker reads it.
  ASSERT_TRUE(reader.ReadMask(png_png.mask_path).ok());
  EXPECT_EQ(reader.last_timings().mask_format, decode::SniffedFormat::kPng);
  ASSERT_TRUE(reader.ReadImage(png_png.image_path, 0, 0).ok());
  EXPECT_EQ(reader.last_timings().image_format, decode::SniffedFormat::kPng);
}

// Every pair of a dataset where good and bad pairs alternate, read in order
// on one reader: each bad pair gives its error, naming the file at fault,
// and each good pair exactly what a fresh reader gives.
TEST(PairReaderTest, NoPairChangesHowTheNextIsRead) {
  TempDir dir;
  const testing::MixedDataset mixed = testing::WriteMixedDataset(dir.path(), 40);
  std::map<std::string, ErrorKind> bad;
  for (const testing::MixedFile& file : mixed.bad_files) bad[file.path] = file.kind;
  const Dataset dataset = ListDataset(DatasetSpec::Carvana(dir.path()));
  ASSERT_EQ(static_cast<int>(dataset.pairs.size()), mixed.complete_pairs());

  // Scaled as the loader does for a 32x24 output, and at full size.
  for (const int target : {32, 0}) {
    PairReader reader({});
    int good = 0, failed = 0;
    for (const SamplePair& pair : dataset.pairs) {
      SCOPED_TRACE(pair.stem);
      Status status = ReadPair(reader, pair, target, target * 3 / 4);
      if (!status.ok()) {
        ++failed;
        ASSERT_TRUE(bad.count(status.error().path)) << status.error().Message();
        EXPECT_EQ(status.error().kind, bad[status.error().path]) << status.error().Message();
        continue;
      }
      ++good;
      PairReader fresh({});
      ASSERT_TRUE(ReadPair(fresh, pair, target, target * 3 / 4).ok());
      EXPECT_TRUE(reader.image().pixels == fresh.image().pixels);
      EXPECT_TRUE(reader.mask().pixels == fresh.mask().pixels);
    }
    EXPECT_EQ(failed, static_cast<int>(mixed.bad_files.size()));
    EXPECT_EQ(good, static_cast<int>(mixed.good_stems.size() + mixed.non_binary_masks.size()));
  }
}

// One file at a time, as the dataset checker reads: a photo larger than the
// plan leaves nothing grown for the next file, and a photo that fails to
// decode still gives its bytes and its header.
TEST(PairReaderTest, SingleFilesShrinkBackToThePlanAfterALargerOne) {
  TempDir dir;
  const SamplePair small = WritePair(dir, 64, 48, 64, 48);
  const SamplePair large{"large", dir / "large.jpg", dir / "large_mask.gif"};
  testing::WriteFile(large.image_path,
                     testing::EncodeJpegWithOpenCv(testing::TestPicture(640, 480), 640, 480,
                                                   JpegVariant::kBaseline));
  testing::WriteFile(large.mask_path,
                     testing::EncodeMaskGif(testing::TestMask(640, 480), 640, 480));
  PairReader reader({});
  reader.Reserve(64, 48, 0, 0);
  const size_t planned = reader.scratch_bytes();
  EXPECT_EQ(planned, decode::PairDecoder::PlannedScratchBytes({}, 64, 48));

  ASSERT_TRUE(reader.ReadImage(large.image_path, 0, 0).ok());
  EXPECT_EQ(reader.image().width, 640);
  EXPECT_EQ(reader.file_bytes().size(), fs::file_size(large.image_path));
  ASSERT_TRUE(reader.ReadMask(large.mask_path).ok());
  EXPECT_EQ(reader.mask().width, 640);
  EXPECT_GT(reader.peak_scratch_bytes(), planned);

  ASSERT_TRUE(reader.ReadImage(small.image_path, 0, 0).ok());
  ASSERT_TRUE(reader.ReadMask(small.mask_path).ok());
  EXPECT_EQ(reader.scratch_bytes(), planned);
  EXPECT_EQ(reader.image().width, 64);
  EXPECT_EQ(reader.mask().width, 64);
  EXPECT_EQ(reader.file_bytes().size(), fs::file_size(small.mask_path));
}

// A PNG's scanlines are as wide as the file stores a row: 8 bytes a pixel
// for 16-bit RGBA, where the RGB output has 3. libspng holds three of them
// and they count in the budget: a wide, one-row photo whose output fits
// but whose rows do not is too_large, photo or mask.
TEST(PairReaderTest, PngScanlinesCountInTheDecodeBudget) {
  TempDir dir;
  constexpr int kWidth = 4096;
  testing::PngPicture picture{kWidth, 1, 16, 6, false, {}, {}};
  picture.samples =
      testing::PackPngSamples(testing::TestSamples(kWidth, 1, 4, 16), kWidth, 1, 4, 16);
  const fs::path png = dir / "wide.png";
  testing::WriteFile(png, testing::EncodePngWithSpng(picture));
  PairReader reader({});
  // Room for the 12 KiB of RGB output and a mask's values, not for three
  // 32 KiB rows: past the decoders' fixed allowance, the plan's 4 bytes.
  reader.Reserve(1, 1, 0, 0, decode::PairDecoder::kDecoderFixedBytes + 32 * 1024);
  const Status image = reader.ReadImage(png, 0, 0);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.error().kind, ErrorKind::kTooLarge);
  EXPECT_NE(image.error().detail.find("PNG needs " + std::to_string(kWidth * 3 + 3 * kWidth * 8) +
                                      " bytes to decode"),
            std::string::npos)
      << image.error().detail;
  const Status mask = reader.ReadMask(png);
  ASSERT_FALSE(mask.ok());
  EXPECT_EQ(mask.error().kind, ErrorKind::kTooLarge);
  // The reader's own check on the mask's values, in the decoders' words.
  EXPECT_EQ(mask.error().detail.find("PNG needs "), 0u) << mask.error().detail;
  EXPECT_NE(mask.error().detail.find(" bytes to decode (4096x1), more than the "),
            std::string::npos)
      << mask.error().detail;
  // With room for them, both decode.
  reader.Reserve(1, 1, 0, 0, decode::PairDecoder::kDecoderFixedBytes + 256 * 1024);
  EXPECT_TRUE(reader.ReadImage(png, 0, 0).ok());
  EXPECT_TRUE(reader.ReadMask(png).ok());
}

// Counts the bytes of every buffer growth: what decoding made a thread
// allocate, counted before the allocation.
class GrowthBytes final : public source::ScratchGrowthObserverForTesting {
 public:
  void BeforeGrowth(size_t bytes) override { total_ += bytes; }
  size_t total() const { return total_.load(); }

 private:
  std::atomic<size_t> total_{0};
};

// The plan is the promise: a Cityscapes-sized pair of PNGs (a 2048x1024
// RGB photo whose image data is split over libpng's 8 KiB IDAT chunks, a
// grey label map) decodes through the whole-buffer path within the planned
// scratch, its inflated rows and joined image data included: after the
// first pair (the read buffers), nothing grows, and the peak scratch the
// reader reports is the plan's, which counts the rows.
TEST(PairReaderTest, PngWholeBufferScratchIsInThePlan) {
  TempDir dir;
  constexpr int kWidth = 2048;
  constexpr int kHeight = 1024;
  const fs::path photo = dir / "photo.png";
  const fs::path labels = dir / "labels.png";
  const Bytes photo_png = testing::EncodePngWithOpenCv(testing::TestSamples(kWidth, kHeight, 3, 8),
                                                       kWidth, kHeight, 3, 8);
  ASSERT_GT(testing::PngChunks(photo_png).size(), 4u);  // several IDAT chunks
  testing::WriteFile(photo, photo_png);
  testing::PngPicture mask{kWidth, kHeight, 8, 0, false, {}, testing::TestMask(kWidth, kHeight)};
  testing::WriteFile(labels, testing::EncodePngWithSpng(mask));
  const SourceFormats formats{true, 1};
  const size_t pixels = size_t{kWidth} * kHeight;
  const size_t rows = size_t{kHeight} * (1 + kWidth * 3) + 16;
  const size_t planned = decode::PairDecoder::PlannedScratchBytes({}, kWidth, kHeight, formats);
  EXPECT_EQ(planned, pixels * 3 + pixels * 2 + rows);
  EXPECT_EQ(decode::PairDecoder::PlannedPngRowsBytes(kWidth, kHeight, formats), rows);
  PairReader reader({});
  reader.Reserve(kWidth, kHeight, 512, 512,
                 static_cast<int64_t>(decode::PairDecoder::DecodeBudgetBytes(
                     {}, kWidth, kHeight, formats, DecodeOptions{}.scratch_headroom)),
                 formats);
  EXPECT_EQ(reader.scratch_bytes(), planned);
  const SamplePair pair{"photo", photo, labels};
  ASSERT_TRUE(ReadPair(reader, pair, 512, 512).ok());
  GrowthBytes growth;
  ASSERT_TRUE(ReadPair(reader, pair, 512, 512).ok());
  EXPECT_EQ(growth.total(), 0u);
  EXPECT_EQ(reader.peak_scratch_bytes(), planned);
  EXPECT_EQ(reader.scratch_bytes(), planned);
  EXPECT_EQ(reader.last_timings().image_format, decode::SniffedFormat::kPng);
}

TEST(PairReaderTest, SingleImageThatFailsToDecodeKeepsItsBytesAndHeader) {
  TempDir dir;
  const SamplePair pair = WritePair(dir, 64, 48, 64, 48);
  Bytes jpeg =
      testing::EncodeJpegWithOpenCv(testing::TestPicture(64, 48), 64, 48, JpegVariant::kBaseline);
  jpeg.resize(jpeg.size() * 7 / 10);
  testing::WriteFile(pair.image_path, jpeg);
  PairReader reader({});
  const Status status = reader.ReadImage(pair.image_path, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kCorruptImage);
  EXPECT_EQ(status.error().path, pair.image_path.string());
  EXPECT_EQ(reader.file_bytes().size(), jpeg.size());
  ASSERT_NE(reader.image_header(), nullptr);
  EXPECT_EQ(reader.image_header()->width, 64);

  // A missing file has neither.
  EXPECT_FALSE(reader.ReadImage(dir / "missing.jpg", 0, 0).ok());
  EXPECT_TRUE(reader.file_bytes().empty());
  EXPECT_EQ(reader.image_header(), nullptr);
}

// Bytes of address space this process has mapped now (VmSize).
size_t MappedBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

// A junk file too large for the memory left is that file's too_large
// error, not an internal error of the stream, and the next pair reads. In
// a child process, whose address space is limited.
TEST(PairReaderTest, RunningOutOfMemoryIsTheFilesError) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes reserve address space that an RLIMIT_AS would break";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const SamplePair good = WritePair(dir, 64, 48, 64, 48);
  const SamplePair junk{"junk", dir / "junk.jpg", good.mask_path};
  { std::ofstream out(junk.image_path); }
  fs::resize_file(junk.image_path, size_t{200} << 20);  // sparse: costs no disk
  auto in_child = [&] {
    const size_t limit = MappedBytes() + (size_t{64} << 20);
    const rlimit rl{limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) std::_Exit(10);
    PairReader reader({});
    Status status = ReadPair(reader, junk, 0, 0);
    if (status.ok()) std::_Exit(11);
    if (status.error().kind != ErrorKind::kTooLarge ||
        status.error().path != junk.image_path.string()) {
      std::_Exit(12);
    }
    if (!ReadPair(reader, good, 0, 0).ok()) std::_Exit(13);
    std::_Exit(0);
  };
  EXPECT_EXIT(in_child(), ::testing::ExitedWithCode(0), "");
}

TEST(DecodeOptionsTest, ValidationNamesFieldAndValue) {
  DecodeOptions options;
  EXPECT_NO_THROW(ValidateDecodeOptions(options));
  options.max_pixels = 0;
  try {
    ValidateDecodeOptions(options);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "max_pixels must be >= 1 (got 0)");
  }
  options = {};
  options.mask_threshold = 256;
  EXPECT_THROW(ValidateDecodeOptions(options), ConfigError);
}

}  // namespace
}  // namespace segfeed::io
