// CheckDataset() itself: every planted problem with its kind and path, the
// summary's statistics, and the same report for any thread count.
#include "check/dataset_checker.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "demo/demo_dataset.h"
#include "fixtures/fixtures.h"
#include "fixtures/mixed_dataset.h"
#include "output/image_writers.h"
#include "source/scratch_growth.h"
#include "support/planted_dataset.h"
#include "temp_dir.h"

namespace segfeed::check {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

CheckOptions Threads(int threads) {
  CheckOptions options;
  options.threads = threads;
  return options;
}

std::vector<std::pair<std::string, ErrorKind>> PathsAndKinds(const std::vector<Error>& problems) {
  std::vector<std::pair<std::string, ErrorKind>> out;
  for (const Error& e : problems) out.emplace_back(e.path, e.kind);
  return out;
}

TEST(DatasetCheckerTest, FindsEveryPlantedProblemWithItsKindAndPath) {
  TempDir dir;
  const auto planted = segfeed::testing::WritePlantedDataset(dir.path());
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(2));

  std::vector<std::pair<std::string, ErrorKind>> expected;
  for (const auto& p : planted.problems) expected.emplace_back(p.path, p.kind);
  EXPECT_EQ(PathsAndKinds(report.problems), expected);
  for (const Error& e : report.problems) {
    EXPECT_FALSE(e.detail.empty()) << e.Message();
  }
  EXPECT_EQ(report.pairs, planted.pairs);
  EXPECT_EQ(report.images_checked, 14);  // 13 pairs + the image without mask
  EXPECT_EQ(report.masks_checked, 14);   // 13 pairs + the orphan
  ASSERT_EQ(report.duplicates.size(), 1u);
  EXPECT_EQ(report.duplicates[0], planted.duplicates);
  // Each kind once, but unsupported_format twice (random bytes, PNG), and
  // none of the label-map kinds in binary masks that have foreground nor
  // of the list kinds (dataset_listing_test plants those).
  for (ErrorKind kind : kAllErrorKinds) {
    const bool label_kind = kind == ErrorKind::kLabelOutOfRange ||
                            kind == ErrorKind::kSuspiciousMask ||
                            kind == ErrorKind::kMissingImage || kind == ErrorKind::kDuplicateKey ||
                            kind == ErrorKind::kOutsideRoot;
    EXPECT_EQ(CountProblems(report, kind), label_kind                              ? 0
                                           : kind == ErrorKind::kUnsupportedFormat ? 2
                                                                                   : 1)
        << ErrorKindName(kind);
  }
}

// A checkpoint names the kinds of its bad pairs by name (LoaderState::known_bad).
TEST(DatasetCheckerTest, EveryKindIsReadBackFromItsName) {
  for (ErrorKind kind : kAllErrorKinds) {
    EXPECT_EQ(ErrorKindFromName(ErrorKindName(kind)), kind) << ErrorKindName(kind);
  }
  EXPECT_EQ(ErrorKindFromName("no_such_kind"), std::nullopt);
}

TEST(DatasetCheckerTest, DetailsSayWhatIsWrong) {
  TempDir dir;
  segfeed::testing::WritePlantedDataset(dir.path());
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(1));
  auto detail_of = [&](ErrorKind kind) {
    std::string all;
    for (const Error& e : report.problems) {
      if (e.kind == kind) all += e.detail + "\n";
    }
    return all;
  };
  EXPECT_NE(detail_of(ErrorKind::kUnsupportedFormat).find("BMP"), std::string::npos);
  EXPECT_NE(detail_of(ErrorKind::kTooLarge).find("60000x60000"), std::string::npos);
  EXPECT_NE(detail_of(ErrorKind::kSizeMismatch).find("64x48 but its mask"), std::string::npos);
  EXPECT_NE(detail_of(ErrorKind::kSizeMismatch).find("32x24"), std::string::npos);
}

TEST(DatasetCheckerTest, CleanDatasetHasNoProblemsAndASensibleSummary) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 6);
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(2));
  EXPECT_TRUE(report.problems.empty()) << report.problems.front().Message();
  EXPECT_EQ(report.pairs, 6);
  ASSERT_EQ(report.image_sizes.size(), 1u);
  EXPECT_EQ(report.image_sizes[0].value, "64x48");
  EXPECT_EQ(report.image_sizes[0].files, 6);
  ASSERT_EQ(report.mask_sizes.size(), 1u);
  EXPECT_EQ(report.mask_sizes[0].value, "64x48");
  ASSERT_EQ(report.jpeg_process.size(), 1u);
  EXPECT_EQ(report.jpeg_process[0].value, "baseline");
  ASSERT_EQ(report.jpeg_subsampling.size(), 1u);
  EXPECT_EQ(report.jpeg_subsampling[0].value, "4:2:0");
  ASSERT_EQ(report.jpeg_colorspace.size(), 1u);
  EXPECT_EQ(report.jpeg_colorspace[0].value, "YCbCr");
  EXPECT_EQ(report.statistics, ChannelStatistics::kBlockMeans);  // the default
  EXPECT_EQ(report.statistics_images, 6);
  EXPECT_EQ(report.statistics_pixels, 6 * 64 * 48);
  for (int c = 0; c < 3; ++c) {
    EXPECT_GT(report.channel_mean[c], 0.0);
    EXPECT_LT(report.channel_mean[c], 255.0);
    EXPECT_EQ(report.channel_std[c], 0.0);  // block means say nothing of it
  }
  EXPECT_EQ(report.foreground_masks, 6);
  EXPECT_GT(report.foreground_min, 0.0);
  EXPECT_LE(report.foreground_min, report.foreground_mean);
  EXPECT_LE(report.foreground_mean, report.foreground_max);
  EXPECT_LT(report.foreground_max, 1.0);
  EXPECT_TRUE(report.duplicates.empty());
}

// Uniform grey photos decode exactly at quality 100 (DC only, quantiser 1),
// so the statistics over all pixels are known: values 100 and 200, equally
// many, give mean 150 and population std 50 in every channel.
// The listing a caller asks for is the one the check read (the HTML
// report's thumbnails read pairs from it): its pairs, in listing order.
TEST(DatasetCheckerTest, LeavesItsListingWhenAsked) {
  TempDir dir;
  const auto planted = segfeed::testing::WritePlantedDataset(dir.path());
  Dataset listing;
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(2), &listing);
  EXPECT_EQ(static_cast<int64_t>(listing.sample_count()), report.pairs);
  EXPECT_EQ(report.pairs, planted.pairs);
  EXPECT_EQ(ListDataset(DatasetSpec::Carvana(dir.path())).pairs.size(), listing.pairs.size());
  Dataset unlistable;
  const CheckReport missing =
      CheckDataset(DatasetSpec::Carvana(dir.path() / "missing"), Threads(1), &unlistable);
  EXPECT_EQ(missing.pairs, 0);
  EXPECT_EQ(unlistable.sample_count(), 0u);
}

TEST(DatasetCheckerTest, ChannelStatisticsAreOverAllPixelsAndExact) {
  TempDir dir;
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "train_masks");
  const int width = 40, height = 24;
  for (int value : {100, 200}) {
    const std::vector<uint8_t> rgb(width * height * 3, static_cast<uint8_t>(value));
    const std::string stem = "grey" + std::to_string(value);
    ASSERT_TRUE(
        output::WriteJpeg(dir.path() / "train" / (stem + ".jpg"), rgb.data(), width, height, 100)
            .ok());
    // A quarter of the mask is foreground for 100, half for 200.
    std::vector<uint8_t> mask(width * height, 0);
    std::fill(mask.begin(), mask.begin() + (value == 100 ? width * height / 4 : width * height / 2),
              1);
    ASSERT_TRUE(output::WriteMaskGif(dir.path() / "train_masks" / (stem + "_mask.gif"), mask.data(),
                                     width, height)
                    .ok());
  }
  CheckOptions options = Threads(2);
  options.statistics = ChannelStatistics::kExact;
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
  ASSERT_TRUE(report.problems.empty()) << report.problems.front().Message();
  EXPECT_EQ(report.statistics_pixels, 2 * width * height);
  for (int c = 0; c < 3; ++c) {
    EXPECT_DOUBLE_EQ(report.channel_mean[c], 150.0);
    EXPECT_DOUBLE_EQ(report.channel_std[c], 50.0);
  }
  EXPECT_DOUBLE_EQ(report.foreground_min, 0.25);
  EXPECT_DOUBLE_EQ(report.foreground_max, 0.5);
  EXPECT_DOUBLE_EQ(report.foreground_mean, 0.375);
  // The histogram's bins are tenths: 0.25 in [0.2, 0.3), 0.5 in [0.5, 0.6).
  std::array<int64_t, CheckReport::kForegroundBins> histogram{};
  histogram[2] = histogram[5] = 1;
  EXPECT_EQ(report.foreground_histogram, histogram);
}

// The block means weight each 8x8 block by the pixels it covers: a grey
// photo of 44x26 pixels, 100 but for a 4-pixel column band of 200 at the
// right edge (a block of its own, 4 pixels wide) and 2 rows at the bottom.
// At quality 100 a uniform block decodes exactly, so the mean of the block
// means is the exact mean only if the edge blocks count for 4 and 2 pixels,
// not 8 (unweighted, it would be 137.5, not 116.1).
TEST(DatasetCheckerTest, BlockMeansWeightTheEdgeBlocksByTheirPixels) {
  TempDir dir;
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "train_masks");
  const int width = 44, height = 26;
  std::vector<uint8_t> rgb(width * height * 3);
  int64_t sum = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t value = x >= 40 || y >= 24 ? 200 : 100;
      std::fill_n(&rgb[(y * width + x) * 3], 3, value);
      sum += value;
    }
  }
  ASSERT_TRUE(
      output::WriteJpeg(dir.path() / "train" / "edge.jpg", rgb.data(), width, height, 100).ok());
  const std::vector<uint8_t> mask(width * height, 1);
  ASSERT_TRUE(
      output::WriteMaskGif(dir.path() / "train_masks" / "edge_mask.gif", mask.data(), width, height)
          .ok());
  for (ChannelStatistics statistics : {ChannelStatistics::kBlockMeans, ChannelStatistics::kExact}) {
    CheckOptions options = Threads(1);
    options.statistics = statistics;
    const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
    ASSERT_TRUE(report.problems.empty()) << report.problems.front().Message();
    EXPECT_EQ(report.statistics, statistics);
    EXPECT_EQ(report.statistics_pixels, width * height);
    for (int c = 0; c < 3; ++c) {
      EXPECT_DOUBLE_EQ(report.channel_mean[c], static_cast<double>(sum) / (width * height));
    }
  }
}

// Block means decode the photos at DCT scale 1/8, and the entropy decoder
// still reads every bit: every defect of the mixed dataset (every kind of
// DefectiveJpegs() among them) and of the planted one is reported exactly
// as the full-resolution decode reports it, message for message.
TEST(DatasetCheckerTest, BlockMeansReportExactlyTheProblemsOfAFullDecode) {
  for (bool mixed : {true, false}) {
    SCOPED_TRACE(mixed ? "mixed dataset" : "planted dataset");
    TempDir dir;
    if (mixed) {
      segfeed::testing::WriteMixedDataset(dir.path(), 12);
    } else {
      segfeed::testing::WritePlantedDataset(dir.path());
    }
    CheckOptions block = Threads(2), exact = Threads(2);
    block.statistics = ChannelStatistics::kBlockMeans;
    exact.statistics = ChannelStatistics::kExact;
    const CheckReport fast = CheckDataset(DatasetSpec::Carvana(dir.path()), block);
    const CheckReport full = CheckDataset(DatasetSpec::Carvana(dir.path()), exact);
    ASSERT_GT(full.problems.size(), 10u);
    std::vector<std::string> fast_messages, full_messages;
    for (const Error& e : fast.problems) fast_messages.push_back(e.Message());
    for (const Error& e : full.problems) full_messages.push_back(e.Message());
    EXPECT_EQ(fast_messages, full_messages);
    EXPECT_EQ(fast.statistics_images, full.statistics_images);
    EXPECT_EQ(fast.statistics_pixels, full.statistics_pixels);
    EXPECT_EQ(fast.image_sizes.size(), full.image_sizes.size());
  }
}

TEST(DatasetCheckerTest, ReportIsTheSameForAnyThreadCount) {
  TempDir dir;
  segfeed::testing::WritePlantedDataset(dir.path());
  const CheckReport one = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(1));
  const CheckReport three = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(3));
  ASSERT_EQ(one.problems.size(), three.problems.size());
  for (size_t i = 0; i < one.problems.size(); ++i) {
    EXPECT_EQ(one.problems[i].Message(), three.problems[i].Message());
  }
  EXPECT_EQ(one.channel_mean, three.channel_mean);
  EXPECT_EQ(one.channel_std, three.channel_std);
  EXPECT_EQ(one.foreground_mean, three.foreground_mean);
  EXPECT_EQ(one.duplicates, three.duplicates);
}

TEST(DatasetCheckerTest, FileOverTheByteLimitIsTooLargeWithoutBeingRead) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  CheckOptions options;
  options.decode.max_file_bytes = 100;  // every demo photo and mask is larger
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
  EXPECT_EQ(CountProblems(report, ErrorKind::kTooLarge), 4);
  ASSERT_FALSE(report.problems.empty());
  EXPECT_NE(report.problems[0].detail.find("max_file_bytes = 100"), std::string::npos);
  EXPECT_EQ(report.statistics_images, 0);
}

// open(2) on a FIFO waits for a writer; the checker must not.
TEST(DatasetCheckerTest, FifoNamedLikeAnImageIsAnIoErrorNotAHang) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  const fs::path fifo = dir.path() / "train" / "fifo.jpg";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(1));
  ASSERT_EQ(report.problems.size(), 2u);  // the missing mask, then the io_error (kind order)
  EXPECT_EQ(report.problems[0].kind, ErrorKind::kMissingMask);
  EXPECT_EQ(report.problems[1].path, fifo.string());
  EXPECT_EQ(report.problems[1].kind, ErrorKind::kIoError);
  EXPECT_EQ(report.problems[1].detail, "not a regular file");
}

TEST(DatasetCheckerTest, UnlistableFolderIsOneIoError) {
  TempDir dir;
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir / "absent"), Threads(1));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].kind, ErrorKind::kIoError);
  EXPECT_NE(report.problems[0].path.find("absent"), std::string::npos);
  EXPECT_EQ(report.pairs, 0);
}

TEST(DatasetCheckerTest, InvalidOptionsThrowNamingTheField) {
  TempDir dir;
  CheckOptions options;
  options.decode.max_file_bytes = 0;
  EXPECT_THROW(CheckDataset(DatasetSpec::Carvana(dir.path()), options), ConfigError);
  options = {};
  options.threads = -1;
  try {
    CheckDataset(DatasetSpec::Carvana(dir.path()), options);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos) << e.what();
  }
}

// Good pairs interleaved with one bad file of every defect: the checker
// reports exactly the defective files (and the unpaired ones), never a good
// file, whatever the thread count and so whichever files each thread
// decoded before.
TEST(DatasetCheckerTest, ReportsExactlyTheDefectiveFilesOfAMixedDataset) {
  TempDir dir;
  const auto mixed = segfeed::testing::WriteMixedDataset(dir.path(), 40);
  std::vector<std::pair<std::string, ErrorKind>> expected;
  for (const auto* files :
       {&mixed.bad_files, &mixed.non_binary_masks, &mixed.unpaired_images, &mixed.orphan_masks}) {
    for (const auto& file : *files) expected.emplace_back(file.path, file.kind);
  }
  std::sort(expected.begin(), expected.end());
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(threads));
    auto found = PathsAndKinds(report.problems);
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found, expected);
    EXPECT_EQ(report.pairs, mixed.complete_pairs());
  }
}

CheckOptions Labels(int num_classes, int threads) {
  CheckOptions options = Threads(threads);
  options.decode.mask_mode = MaskMode::kLabels;
  options.decode.num_classes = num_classes;
  return options;
}

// A small make-demo label-map set: `count` 64x48 palette PNGs, VOC style.
demo::DemoOptions LabelDemo(int classes, int count) {
  demo::DemoOptions demo;
  demo.count = count;
  demo.width = 64;
  demo.height = 48;
  demo.classes = classes;
  demo.threads = 1;
  return demo;
}

// The class table, worked out from the rendered label maps themselves
// (the files hold exactly these indices) by the definitions in
// dataset_checker.h.
TEST(DatasetCheckerTest, ClassTableOfALabelMapDemoIsExactAndAsDefined) {
  TempDir dir;
  const demo::DemoOptions demo = LabelDemo(5, 6);
  ASSERT_TRUE(demo::WriteDemoDataset(dir.path(), demo, {}).ok());
  std::array<int64_t, 256> pixels{}, masks{}, containing{};
  demo::DemoRaster raster;
  for (int i = 0; i < demo.count; ++i) {
    demo::RenderDemoSample(demo, i, &raster);
    std::array<int64_t, 256> histogram{};
    for (uint8_t v : raster.mask) ++histogram[v];
    for (int v = 0; v < 256; ++v) {
      if (histogram[v] == 0) continue;
      pixels[v] += histogram[v];
      ++masks[v];
      containing[v] += static_cast<int64_t>(raster.mask.size());
    }
  }
  int64_t labelled = 0;
  std::vector<double> frequencies;
  for (int c = 0; c < 5; ++c) {
    labelled += pixels[c];
    if (pixels[c] > 0) frequencies.push_back(static_cast<double>(pixels[c]) / containing[c]);
  }
  std::sort(frequencies.begin(), frequencies.end());
  const size_t n = frequencies.size();
  ASSERT_GT(n, 0u);
  const double median =
      n % 2 == 1 ? frequencies[n / 2] : (frequencies[n / 2 - 1] + frequencies[n / 2]) / 2;

  const CheckReport one = CheckDataset(DatasetSpec::Carvana(dir.path()), Labels(5, 1));
  const CheckReport two = CheckDataset(DatasetSpec::Carvana(dir.path()), Labels(5, 2));
  EXPECT_TRUE(one.problems.empty()) << one.problems.front().Message();
  ASSERT_EQ(one.classes.size(), 5u);
  EXPECT_EQ(one.ignore_pixels, pixels[demo::kDemoIgnoreLabel]);
  EXPECT_GT(one.ignore_pixels, 0);  // the VOC-style boundary band
  int64_t sum = 0;
  for (int c = 0; c < 5; ++c) {
    SCOPED_TRACE("class " + std::to_string(c));
    const ClassCount& entry = one.classes[c];
    EXPECT_EQ(entry.id, c);
    EXPECT_EQ(entry.pixels, pixels[c]);
    EXPECT_EQ(entry.masks, masks[c]);
    sum += entry.pixels;
    if (pixels[c] == 0) {
      EXPECT_EQ(entry.inverse_frequency_weight, 0.0);
      EXPECT_EQ(entry.median_frequency_weight, 0.0);
      continue;
    }
    EXPECT_DOUBLE_EQ(entry.fraction, static_cast<double>(pixels[c]) / labelled);
    EXPECT_DOUBLE_EQ(entry.inverse_frequency_weight,
                     static_cast<double>(labelled) / (5.0 * pixels[c]));
    EXPECT_DOUBLE_EQ(entry.median_frequency_weight,
                     median / (static_cast<double>(pixels[c]) / containing[c]));
  }
  EXPECT_EQ(sum, demo.count * 64 * 48 - one.ignore_pixels);
  ASSERT_EQ(two.classes.size(), one.classes.size());
  for (size_t c = 0; c < one.classes.size(); ++c) {
    EXPECT_EQ(two.classes[c].pixels, one.classes[c].pixels);
    EXPECT_EQ(two.classes[c].masks, one.classes[c].masks);
    EXPECT_EQ(two.classes[c].median_frequency_weight, one.classes[c].median_frequency_weight);
  }
  EXPECT_EQ(two.ignore_pixels, one.ignore_pixels);
  ASSERT_EQ(one.mask_bit_depths.size(), 1u);
  EXPECT_EQ(one.mask_bit_depths[0].value, "8");
  EXPECT_EQ(one.mask_bit_depths[0].files, 6);
  EXPECT_EQ(one.other_palette_masks, 0);
}

TEST(DatasetCheckerTest, ClassTableIsEmptyInBinaryMode) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(1));
  EXPECT_TRUE(report.problems.empty()) << report.problems.front().Message();
  EXPECT_TRUE(report.classes.empty());
  EXPECT_EQ(report.ignore_pixels, 0);
}

// Writes `stem`'s photo into dir/train, for a mask the test writes itself.
void WritePhoto(const fs::path& dir, const std::string& stem) {
  const std::vector<uint8_t> rgb = segfeed::testing::TestPicture(64, 48);
  ASSERT_TRUE(output::WriteJpeg(dir / "train" / (stem + ".jpg"), rgb.data(), 64, 48, 90).ok());
}

TEST(DatasetCheckerTest, LabelOutsideTheClassesIsLabelOutOfRangeNamingTheMask) {
  TempDir dir;
  ASSERT_TRUE(demo::WriteDemoDataset(dir.path(), LabelDemo(5, 2), {}).ok());
  WritePhoto(dir.path(), "label9");
  std::vector<uint8_t> labels(64 * 48, 1);
  std::fill(labels.begin(), labels.begin() + 10, uint8_t{9});
  const fs::path mask = dir.path() / "train_masks" / "label9_mask.png";
  ASSERT_TRUE(output::WriteGreyPng(mask, labels.data(), 64, 48).ok());
  // Classes 0-4 are in range, the demo's 255 is ignore_index; 9 is not.
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Labels(5, 2));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].kind, ErrorKind::kLabelOutOfRange);
  EXPECT_EQ(report.problems[0].path, mask.string());
  EXPECT_NE(report.problems[0].detail.find('9'), std::string::npos) << report.problems[0].detail;
}

TEST(DatasetCheckerTest, BinaryMasksWithoutAnyForegroundAreOneSuspiciousMaskOnTheFolder) {
  TempDir dir;
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "train_masks");
  const std::vector<uint8_t> black(64 * 48, 0);
  for (const std::string stem : {"a", "b"}) {
    WritePhoto(dir.path(), stem);
    ASSERT_TRUE(output::WriteMaskGif(dir.path() / "train_masks" / (stem + "_mask.gif"),
                                     black.data(), 64, 48)
                    .ok());
  }
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(2));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].kind, ErrorKind::kSuspiciousMask);
  EXPECT_EQ(report.problems[0].path, (dir.path() / "train_masks").string());
  EXPECT_NE(report.problems[0].detail.find("no mask has any foreground pixel"), std::string::npos)
      << report.problems[0].detail;
  EXPECT_NE(report.problems[0].detail.find("mask_foreground"), std::string::npos);
}

// Foreground drawn black on white: index 0 (background) white, index 1
// (foreground) black, as an image editor's inverted palette writes it.
TEST(DatasetCheckerTest, InvertedPaletteIsSuspiciousMaskNamingTheFile) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  WritePhoto(dir.path(), "inverted");
  std::vector<uint8_t> indices(64 * 48, 0);
  std::fill(indices.begin(), indices.begin() + 64 * 10, uint8_t{1});
  const std::array<std::array<uint8_t, 3>, 2> palette = {{{255, 255, 255}, {0, 0, 0}}};
  const fs::path mask = dir.path() / "train_masks" / "inverted_mask.png";
  ASSERT_TRUE(output::WritePalettePng(mask, indices.data(), 64, 48, palette).ok());
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(2));
  ASSERT_EQ(report.problems.size(), 1u) << report.problems.front().Message();
  EXPECT_EQ(report.problems[0].kind, ErrorKind::kSuspiciousMask);
  EXPECT_EQ(report.problems[0].path, mask.string());
  EXPECT_NE(report.problems[0].detail.find("may be inverted"), std::string::npos)
      << report.problems[0].detail;
}

// One binary rule for every mask format: a 16-bit grey mask of three
// levels is non_binary_mask like an 8-bit one, and a mask whose two levels
// both read as background under the rule in force is suspicious_mask; both
// messages state the rule.
TEST(DatasetCheckerTest, BinaryMaskRulesHoldForEveryFormatAndNameTheRule) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  WritePhoto(dir.path(), "deep");
  std::vector<uint16_t> deep(64 * 48, 0);
  std::fill(deep.begin(), deep.begin() + 64 * 10, uint16_t{65535});
  std::fill(deep.begin() + 64 * 10, deep.begin() + 64 * 12, uint16_t{30000});
  const fs::path deep_mask = dir.path() / "train_masks" / "deep_mask.png";
  const auto deep_file = output::OutputFile::Prepare(deep_mask);
  ASSERT_TRUE(deep_file.ok());
  ASSERT_TRUE(output::WriteGreyPng(deep_file.value(), deep.data(), 64, 48).ok());
  WritePhoto(dir.path(), "dark");
  std::vector<uint8_t> dark(64 * 48, 0);
  std::fill(dark.begin(), dark.begin() + 64 * 10, uint8_t{1});
  const fs::path dark_mask = dir.path() / "train_masks" / "dark_mask.png";
  ASSERT_TRUE(output::WriteGreyPng(dark_mask, dark.data(), 64, 48).ok());

  CheckOptions options = Threads(2);
  CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].Message(),
            deep_mask.string() +
                ": mask has more than two distinct values; read as binary with foreground = "
                "every value other than 0 (mask_foreground nonzero) [non_binary_mask]");

  options.decode.mask_foreground = MaskForeground::kLuminance;
  report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
  EXPECT_EQ(PathsAndKinds(report.problems), (std::vector<std::pair<std::string, ErrorKind>>{
                                                {dark_mask.string(), ErrorKind::kSuspiciousMask},
                                                {deep_mask.string(), ErrorKind::kNonBinaryMask}}));
  ASSERT_FALSE(report.problems.empty());
  EXPECT_EQ(report.problems[0].detail,
            "mask holds two distinct values but every pixel reads as background: foreground = "
            "luminance of at least 128 (mask_foreground luminance, mask_threshold 128)");
}

TEST(DatasetCheckerTest, OtherPalettesAndBitDepthsAreCountedAsInformation) {
  TempDir dir;
  ASSERT_TRUE(demo::WriteDemoDataset(dir.path(), LabelDemo(5, 3), {}).ok());
  // A label map with a two-colour palette of its own, and a 16-bit one.
  WritePhoto(dir.path(), "other");
  const std::vector<uint8_t> indices(64 * 48, 1);
  const std::array<std::array<uint8_t, 3>, 2> palette = {{{0, 0, 0}, {10, 20, 30}}};
  const fs::path other = dir.path() / "train_masks" / "other_mask.png";
  ASSERT_TRUE(output::WritePalettePng(other, indices.data(), 64, 48, palette).ok());
  WritePhoto(dir.path(), "deep");
  const std::vector<uint16_t> deep(64 * 48, 2);
  const auto deep_file = output::OutputFile::Prepare(dir.path() / "train_masks" / "deep_mask.png");
  ASSERT_TRUE(deep_file.ok());
  ASSERT_TRUE(output::WriteGreyPng(deep_file.value(), deep.data(), 64, 48).ok());
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Labels(5, threads));
    EXPECT_TRUE(report.problems.empty()) << report.problems.front().Message();
    EXPECT_EQ(report.other_palette_masks, 1);
    EXPECT_EQ(report.other_palette_paths, std::vector<std::string>{other.string()});
    ASSERT_EQ(report.mask_bit_depths.size(), 2u);
    EXPECT_EQ(report.mask_bit_depths[0].value, "8");
    EXPECT_EQ(report.mask_bit_depths[0].files, 4);
    EXPECT_EQ(report.mask_bit_depths[1].value, "16");
    EXPECT_EQ(report.mask_bit_depths[1].files, 1);
  }
}

// Records the largest buffer growth any decode thread asks for: the bytes
// a file made the checker allocate, counted before the allocation.
class LargestGrowth final : public source::ScratchGrowthObserverForTesting {
 public:
  void BeforeGrowth(size_t bytes) override {
    size_t seen = largest_.load();
    while (bytes > seen && !largest_.compare_exchange_weak(seen, bytes)) {
    }
  }
  size_t bytes() const { return largest_.load(); }

 private:
  std::atomic<size_t> largest_{0};
};

// The checker reads under the loader's memory policy: a file whose header
// claims far more pixels than the dataset's photos is too_large, refused
// before anything is allocated for it (a 69-byte PNG claiming 10000x10000
// used to cost 300 MB of zeroed pixels before its missing data was found),
// and no file makes a thread allocate more than its decode budget.
TEST(DatasetCheckerTest, HugeHeadersAreTooLargeBeforeAnythingIsAllocated) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 6);
  const std::vector<std::string> huge = segfeed::testing::WriteHugeHeaderPairs(dir.path()).claiming;
  for (ChannelStatistics statistics : {ChannelStatistics::kBlockMeans, ChannelStatistics::kExact}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE("threads " + std::to_string(threads) +
                   (statistics == ChannelStatistics::kExact ? ", exact" : ", block"));
      CheckOptions options = Threads(threads);
      options.statistics = statistics;
      LargestGrowth growth;
      const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
      std::vector<std::string> too_large;
      for (const Error& problem : report.problems) {
        EXPECT_EQ(problem.kind, ErrorKind::kTooLarge) << problem.Message();
        if (problem.kind == ErrorKind::kTooLarge) too_large.push_back(problem.path);
      }
      EXPECT_EQ(too_large, huge);
      // The good photos: the clean ones, and those of pairs whose mask lies.
      const auto photos_claiming = std::count_if(
          huge.begin(), huge.end(),
          [](const std::string& path) { return path.find("/train/") != std::string::npos; });
      EXPECT_EQ(report.statistics_images, report.images_checked - photos_claiming);
      EXPECT_EQ(report.images_checked, 6 + 9);  // the clean pairs and the lying ones
      // The demo photos are 64x48: a few hundred kilobytes would do; the
      // claimed sizes would need 100 MB and more. The bound the report
      // states is the one every growth keeps to.
      EXPECT_LT(growth.bytes(), size_t{4} << 20);
      EXPECT_GT(report.decode_budget_bytes_per_thread, 0);
      EXPECT_LE(static_cast<int64_t>(growth.bytes()), report.decode_budget_bytes_per_thread);
      EXPECT_EQ(report.read_buffer_bytes_per_thread, 2 * options.decode.max_file_bytes);
    }
  }
}

// Copies of the pairs whose photo's header lies, `copies` more of each, so
// that they are the majority of any sample of the dataset's photos.
void CopyLyingPhotoPairs(const fs::path& root, int copies) {
  for (const auto& entry : fs::directory_iterator(root / "train")) {
    const std::string stem = entry.path().stem().string();
    if (stem.rfind("huge_png", 0) != 0 && stem.rfind("huge_jpeg", 0) != 0) continue;
    for (const auto& mask : fs::directory_iterator(root / "train_masks")) {
      if (mask.path().stem().string() != stem + "_mask") continue;
      for (int i = 0; i < copies; ++i) {
        const std::string copy = stem + "_copy" + std::to_string(i);
        fs::copy_file(entry.path(), root / "train" / (copy + entry.path().extension().string()));
        fs::copy_file(mask.path(),
                      root / "train_masks" / (copy + "_mask" + mask.path().extension().string()));
      }
    }
  }
}

// Lying headers cannot set the budget by outnumbering the honest photos:
// the plan skips a header whose file is too short to hold its pixels (as
// the decoders refuse it before allocating), so the median is an honest
// photo's and every lying file is still too_large.
TEST(DatasetCheckerTest, AMajorityOfLyingHeadersDoesNotRaiseTheBudget) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  segfeed::testing::WriteHugeHeaderPairs(dir.path());
  CopyLyingPhotoPairs(dir.path(), 3);
  LargestGrowth growth;
  const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), Threads(2));
  EXPECT_GT(report.decode_budget_bytes_per_thread, 0);
  EXPECT_LT(report.decode_budget_bytes_per_thread, 1 << 20);  // 64x48 photos
  EXPECT_LT(growth.bytes(), size_t{4} << 20);
  EXPECT_EQ(CountProblems(report, ErrorKind::kTooLarge),
            static_cast<int64_t>(report.problems.size()));
  EXPECT_EQ(report.statistics_images, 2 + 4);  // the clean photos, the good ones of lying masks
}

// A tiny image is not too large, whatever its coding: libjpeg's fixed needs
// per decode (the coefficients of a progressive 1x1 photo are 768 bytes)
// are part of the budget the checker shares with the loader.
TEST(DatasetCheckerTest, TinyJpegsOfEveryCodingAreClean) {
  TempDir dir;
  const int pairs = segfeed::testing::WriteTinyJpegPairs(dir.path());
  for (ChannelStatistics statistics : {ChannelStatistics::kBlockMeans, ChannelStatistics::kExact}) {
    CheckOptions options = Threads(2);
    options.statistics = statistics;
    const CheckReport report = CheckDataset(DatasetSpec::Carvana(dir.path()), options);
    for (const Error& problem : report.problems) ADD_FAILURE() << problem.Message();
    EXPECT_EQ(report.statistics_images, pairs);
  }
}

}  // namespace
}  // namespace segfeed::check
