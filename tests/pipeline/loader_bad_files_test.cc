// The Loader over datasets a careless or hostile user brings: bad pairs of
// every kind interleaved with good ones, unpaired images and orphan masks,
// datasets mostly or wholly bad. Whole epochs, so that state surviving an
// error, lost samples and timing-dependent replacements show.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "fixtures/mixed_dataset.h"
#include "segfeed/loader.h"
#include "support/batch_bytes.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::BatchBytes;
using testing::MixedDataset;
using testing::TempDir;

constexpr int kGoodPairs = 40;

LoaderOptions SmallOptions(int threads) {
  LoaderOptions options;
  options.batch_size = 8;
  options.threads = threads;
  options.seed = 5;
  options.augment.output_width = 32;
  options.augment.output_height = 24;
  options.pinned = PinnedMode::kOff;
  options.on_bad_file = OnBadFile::kSkip;
  return options;
}

// Streams one epoch to its end and returns the samples it delivered.
int DrainEpoch(Loader& loader, int epoch) {
  loader.StartEpoch(epoch);
  int samples = 0;
  while (auto lease = loader.Next()) samples += lease->size();
  return samples;
}

class LoaderBadFilesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    mixed_ = new MixedDataset(testing::WriteMixedDataset(dir_->path() / "mixed", kGoodPairs));
    testing::WriteGoodPairsOfMixedDataset(dir_->path() / "good", kGoodPairs);
  }
  static void TearDownTestSuite() {
    delete mixed_;
    delete dir_;
  }
  static DatasetSpec Mixed() { return DatasetSpec::Carvana(dir_->path() / "mixed"); }

  static TempDir* dir_;
  static MixedDataset* mixed_;
};
TempDir* LoaderBadFilesTest::dir_ = nullptr;
MixedDataset* LoaderBadFilesTest::mixed_ = nullptr;

// Under skip every good pair is delivered in every epoch, no bad one ever,
// and the counts say exactly what happened: loaded + skipped = planned,
// loaded + replaced = delivered.
TEST_F(LoaderBadFilesTest, SkipDeliversEveryGoodPairEachEpochAndCountsHonestly) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    Loader loader(Mixed(), SmallOptions(threads));
    const PairList& pairs = loader.dataset().pairs;
    std::set<std::string> bad_paths;
    for (const auto& file : mixed_->bad_files) bad_paths.insert(file.path);
    constexpr int kEpochs = 2;
    for (int epoch = 0; epoch < kEpochs; ++epoch) {
      std::map<std::string, int> delivered;  // stem -> times
      int samples = 0;
      loader.StartEpoch(epoch);
      while (auto lease = loader.Next()) {
        if (lease->batch_index() + 1 < loader.batches_per_epoch()) {
          EXPECT_EQ(lease->size(), lease->batch_size()) << "batches stay full";
        }
        for (uint32_t id : lease->sample_ids()) ++delivered[pairs[id].stem];
        samples += lease->size();
      }
      EXPECT_EQ(samples, mixed_->complete_pairs());
      for (const SamplePair pair : pairs) {
        const bool bad =
            bad_paths.count(pair.image_path.string()) || bad_paths.count(pair.mask_path.string());
        if (bad) {
          EXPECT_EQ(delivered.count(pair.stem), 0u) << pair.stem;
        } else {
          EXPECT_GE(delivered[pair.stem], 1) << pair.stem;
        }
      }
    }
    const LoaderStats stats = loader.stats();
    const int64_t bad = static_cast<int64_t>(mixed_->bad_files.size());
    EXPECT_EQ(stats.samples_loaded, kEpochs * (mixed_->complete_pairs() - bad));
    EXPECT_EQ(stats.samples_skipped, kEpochs * bad);
    EXPECT_EQ(stats.samples_replaced, kEpochs * bad);
    // Each bad file listed once, with the kind the fixture planted.
    std::map<std::string, ErrorKind> skipped;
    for (const Error& e : stats.skipped_files) skipped[e.path] = e.kind;
    ASSERT_EQ(skipped.size(), mixed_->bad_files.size());
    for (const auto& file : mixed_->bad_files) {
      ASSERT_TRUE(skipped.count(file.path)) << file.path;
      EXPECT_EQ(skipped[file.path], file.kind) << file.path;
    }
    // The unpaired files are reported, not lost silently.
    std::set<std::string> unpaired;
    for (const Error& e : stats.unpaired_files)
      unpaired.insert(std::string(ErrorKindName(e.kind)) + " " + e.path);
    EXPECT_EQ(unpaired.size(), mixed_->unpaired_images.size() + mixed_->orphan_masks.size());
    for (const auto& file : mixed_->unpaired_images)
      EXPECT_TRUE(unpaired.count("missing_mask " + file.path));
    for (const auto& file : mixed_->orphan_masks)
      EXPECT_TRUE(unpaired.count("orphan_mask " + file.path));
  }
}

// The same seed gives the same bytes in every run and for every thread
// count, bad files and replacements included.
TEST_F(LoaderBadFilesTest, SkipStreamIsTheSameForAnyRunAndThreadCount) {
  std::vector<std::string> reference;
  for (int run = 0; run < 5; ++run) {
    const int threads = 1 + run % 3;
    SCOPED_TRACE("run " + std::to_string(run) + ", threads " + std::to_string(threads));
    Loader loader(Mixed(), SmallOptions(threads));
    std::vector<std::string> batches;
    for (int epoch = 0; epoch < 2; ++epoch) {
      loader.StartEpoch(epoch);
      while (auto lease = loader.Next()) batches.push_back(BatchBytes(*lease));
    }
    if (reference.empty()) {
      reference = batches;
    } else {
      EXPECT_TRUE(batches == reference);
    }
  }
}

// On one loader thread, each good pair comes out byte for byte as it does
// from a dataset without any bad file: nothing the bad files did before it
// changed how it was decoded.
TEST_F(LoaderBadFilesTest, GoodPairsComeOutAsFromADatasetWithoutBadFiles) {
  LoaderOptions options = SmallOptions(1);
  options.shuffle = Shuffle::kNone;
  options.batch_size = 1;
  AugmentOptions& augment = options.augment;  // resize only
  augment.contrast_enabled = augment.brightness_enabled = augment.saturation_enabled =
      augment.hue_enabled = false;
  augment.flip_lr_probability = augment.flip_ud_probability = augment.rotation_fraction = 0.0;
  auto samples_by_stem = [&](const DatasetSpec& spec) {
    Loader loader(spec, options);
    std::map<std::string, std::string> samples;
    loader.StartEpoch(0);
    while (auto lease = loader.Next()) {
      const std::string& stem = loader.dataset().pairs[lease->sample_ids()[0]].stem;
      std::string bytes = BatchBytes(*lease);
      bytes.resize(bytes.size() - sizeof(uint32_t));  // ids differ between the listings
      samples.emplace(stem, bytes);  // the first time: the pair itself, not a replacement
    }
    return samples;
  };
  const auto clean = samples_by_stem(DatasetSpec::Carvana(dir_->path() / "good"));
  const auto mixed = samples_by_stem(Mixed());
  ASSERT_EQ(clean.size(), static_cast<size_t>(kGoodPairs));
  for (const auto& [stem, bytes] : clean) {
    ASSERT_TRUE(mixed.count(stem)) << stem;
    EXPECT_TRUE(mixed.at(stem) == bytes) << stem;
  }
}

TEST_F(LoaderBadFilesTest, FailRefusesUnpairedImagesAtConstructionNamingThem) {
  LoaderOptions options = SmallOptions(2);
  options.on_bad_file = OnBadFile::kFail;
  try {
    Loader loader(Mixed(), options);
    FAIL() << "expected FileError";
  } catch (const FileError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.error().kind, ErrorKind::kMissingMask);
    EXPECT_EQ(e.error().path, mixed_->unpaired_images[0].path);
    EXPECT_NE(message.find(mixed_->unpaired_images[1].path), std::string::npos) << message;
    EXPECT_NE(message.find("1 more unpaired file"), std::string::npos) << message;
  }
}

// Without unpaired images, fail stops at the first bad pair of the epoch
// order, naming its file, after the batches before it.
TEST(LoaderFailTest, FailStopsNamingTheFirstBadFileInEpochOrder) {
  TempDir dir;
  const MixedDataset mixed = testing::WriteMixedDataset(dir.path(), kGoodPairs);
  for (const auto& file : mixed.unpaired_images) fs::remove(file.path);
  std::map<std::string, ErrorKind> bad;
  for (const auto& file : mixed.bad_files) bad[file.path] = file.kind;
  LoaderOptions options = SmallOptions(2);
  options.on_bad_file = OnBadFile::kFail;
  options.shuffle = Shuffle::kNone;  // pair 1 (a bad one) is in batch 0
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  loader.StartEpoch(0);
  try {
    loader.Next();
    FAIL() << "expected FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error().path, mixed.bad_files[0].path) << e.what();
    EXPECT_EQ(e.error().kind, mixed.bad_files[0].kind);
  }
  EXPECT_FALSE(loader.Next().has_value());
}

// Nine of ten pairs bad: replacements keep coming from the one good pair,
// deterministically, instead of giving up after a few bad draws.
TEST(LoaderFailTest, SkipKeepsGoingWhileAGoodPairRemains) {
  TempDir dir;
  testing::WriteGoodPairsOfMixedDataset(dir.path(), 1);
  for (int i = 0; i < 9; ++i) {
    testing::WriteFile(dir.path() / "train" / ("bad_" + std::to_string(i) + ".jpg"),
                       testing::RandomBytes(100, i));
    fs::copy_file(dir.path() / "train_masks" / "000_good_mask.gif",
                  dir.path() / "train_masks" / ("bad_" + std::to_string(i) + "_mask.gif"));
  }
  LoaderOptions options = SmallOptions(2);
  options.batch_size = 5;
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  for (int epoch = 0; epoch < 3; ++epoch) {
    loader.StartEpoch(epoch);
    int samples = 0;
    while (auto lease = loader.Next()) {
      for (uint32_t id : lease->sample_ids())
        EXPECT_EQ(loader.dataset().pairs[id].stem, "000_good");
      samples += lease->size();
    }
    EXPECT_EQ(samples, 10);
  }
  const LoaderStats stats = loader.stats();
  EXPECT_EQ(stats.samples_loaded, 3);
  EXPECT_EQ(stats.samples_skipped, 27);
  EXPECT_EQ(stats.samples_replaced, 27);
}

TEST(LoaderFailTest, SkipStopsWithCountsWhenNoPairIsGood) {
  TempDir dir;
  testing::WriteGoodPairsOfMixedDataset(dir.path(), 3);
  for (const auto& entry : fs::directory_iterator(dir.path() / "train")) {
    testing::WriteFile(entry.path(), testing::RandomBytes(100, 1));
  }
  Loader loader(DatasetSpec::Carvana(dir.path()), SmallOptions(2));
  loader.StartEpoch(0);
  try {
    loader.Next();
    FAIL() << "expected FileError";
  } catch (const FileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("3 of 3 pairs are bad"), std::string::npos) << message;
    EXPECT_NE(message.find("segfeed check"), std::string::npos) << message;
  }
}

TEST(LoaderFailTest, DatasetWithoutPairsSaysWhatWasFoundAndExpected) {
  TempDir dir;
  const MixedDataset mixed = testing::WriteMixedDataset(dir.path(), 1);
  // Images and masks swapped: nothing pairs.
  DatasetSpec spec = DatasetSpec::Carvana(dir.path());
  std::swap(spec.image_dir, spec.mask_dir);
  try {
    Loader loader(spec, SmallOptions(1));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("dataset has no image with a mask: found 0 images without a mask, 0 "
                           "masks without an image and "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("; the rule: carvana: " + (spec.image_dir / "<key>").string() +
                           "{.jpg|.jpeg|.png} with " + (spec.mask_dir / "<key>").string() +
                           "_mask{.gif|.png}"),
              std::string::npos)
        << message;
  }
}

TEST(LoaderFailTest, DropLastWithoutAFullBatchIsAConfigError) {
  TempDir dir;
  testing::WriteGoodPairsOfMixedDataset(dir.path(), 3);
  LoaderOptions options = SmallOptions(1);
  options.drop_last = true;
  try {
    Loader loader(DatasetSpec::Carvana(dir.path()), options);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("drop_last leaves no batch: an epoch of this shard has 3 "
                                         "samples, fewer than batch_size 8"),
              std::string::npos)
        << e.what();
  }
}

// Pairs whose headers claim far more memory than the planned photo are
// too_large, named with the bytes they would need, before anything is
// allocated for them; scratch and read buffers never pass the plan's
// ceiling and are back to the planned size afterwards.
TEST(LoaderMemoryTest, OutliersAreTooLargeAndNothingGrowsPastThePlan) {
  TempDir dir;
  testing::WriteGoodPairsOfMixedDataset(dir.path(), 20);
  LoaderOptions options = SmallOptions(2);
  options.decode.max_file_bytes = 8 << 20;
  const std::vector<testing::MixedFile> outliers =
      testing::WriteOutlierPairs(dir.path(), options.decode.max_file_bytes);
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  for (int epoch = 0; epoch < 2; ++epoch) DrainEpoch(loader, epoch);
  const LoaderStats stats = loader.stats();
  const MemoryPlan& plan = loader.plan();
  std::map<std::string, Error> skipped;
  for (const Error& e : stats.skipped_files) skipped[e.path] = e;
  ASSERT_EQ(skipped.size(), outliers.size());
  for (const auto& outlier : outliers) {
    ASSERT_TRUE(skipped.count(outlier.path)) << outlier.path;
    const Error& e = skipped[outlier.path];
    EXPECT_EQ(e.kind, outlier.kind) << e.Message();
    if (e.kind == ErrorKind::kTooLarge) {
      EXPECT_NE(e.detail.find(" bytes"), std::string::npos) << e.Message();
    }
  }
  EXPECT_LE(stats.peak_scratch_bytes, plan.scratch_ceiling_bytes);
  EXPECT_LE(stats.peak_read_buffer_bytes, plan.read_buffer_bytes);
  EXPECT_EQ(stats.scratch_bytes, plan.scratch_bytes);
  // The 8 MiB junk file was read whole, once: buffers that large do not stay.
  EXPECT_GE(stats.peak_read_buffer_bytes, size_t{8} << 20);
  EXPECT_LT(stats.read_buffer_bytes, size_t{1} << 20);
}

// A pair a little larger than planned, within the headroom, decodes; the
// buffers it grew shrink back before the next pair.
TEST(LoaderMemoryTest, PairsWithinTheHeadroomDecodeAndBuffersShrinkBack) {
  TempDir dir;
  // Photos large enough that the headroom, not the decoders' fixed
  // allowance (PairDecoder::kDecoderFixedBytes), decides.
  auto write_pair = [&](const std::string& stem, int width, int height) {
    testing::WriteFile(dir.path() / "train" / (stem + ".jpg"),
                       testing::EncodeJpegWithOpenCv(testing::TestPicture(width, height), width,
                                                     height, testing::JpegVariant::kBaseline));
    testing::WriteFile(dir.path() / "train_masks" / (stem + "_mask.gif"),
                       testing::EncodeMaskGif(testing::TestMask(width, height), width, height));
  };
  fs::create_directories(dir.path() / "train");
  fs::create_directories(dir.path() / "train_masks");
  for (int i = 0; i < 9; ++i) write_pair("00" + std::to_string(i) + "_good", 256, 192);
  // One pair at twice the planned width and height: its mask alone needs
  // four times the planned mask, within the default headroom of 4.
  write_pair("999_larger", 512, 384);
  LoaderOptions options = SmallOptions(1);
  options.on_bad_file = OnBadFile::kFail;
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  EXPECT_EQ(DrainEpoch(loader, 0), 10);
  const LoaderStats stats = loader.stats();
  EXPECT_GT(stats.peak_scratch_bytes, loader.plan().scratch_bytes);
  EXPECT_LE(stats.peak_scratch_bytes, loader.plan().scratch_ceiling_bytes);
  // With a headroom of 2 the same pair is too large.
  options.decode.scratch_headroom = 2.0;
  Loader strict(DatasetSpec::Carvana(dir.path()), options);
  strict.StartEpoch(0);
  try {
    while (auto lease = strict.Next()) {
    }
    FAIL() << "expected FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::kTooLarge);
    // The photo fits at its DCT scale; the full-size mask does not.
    EXPECT_EQ(e.error().path, (dir.path() / "train_masks" / "999_larger_mask.gif").string());
    EXPECT_NE(std::string(e.what()).find("GIF needs 196608 bytes to decode"), std::string::npos)
        << e.what();
  }
}

// A tiny image is not too large: libjpeg's coefficient buffers for a
// progressive 1x1 photo (768 bytes: whole MCUs) and its fixed needs per
// decode are part of every decode budget, so such photos load at every DCT
// scale under either policy, with nothing skipped, as baseline ones do.
TEST(LoaderMemoryTest, TinyJpegsOfEveryCodingLoadAtEveryScaleUnderBothPolicies) {
  TempDir dir;
  const int pairs = testing::WriteTinyJpegPairs(dir.path());
  for (OnBadFile policy : {OnBadFile::kFail, OnBadFile::kSkip}) {
    for (int output_side : {2, 8, 32}) {  // 1/8, 1/2 and full size for 16x16
      SCOPED_TRACE(std::string(policy == OnBadFile::kFail ? "fail" : "skip") + ", output " +
                   std::to_string(output_side));
      LoaderOptions options = SmallOptions(2);
      options.on_bad_file = policy;
      options.augment.output_width = options.augment.output_height = output_side;
      Loader loader(DatasetSpec::Carvana(dir.path()), options);
      int samples = 0;
      try {
        samples = DrainEpoch(loader, 0);
      } catch (const FileError& e) {
        ADD_FAILURE() << e.what();
      }
      EXPECT_EQ(samples, pairs);
      const LoaderStats stats = loader.stats();
      EXPECT_EQ(stats.samples_skipped, 0);
      for (const Error& e : stats.skipped_files) ADD_FAILURE() << e.Message();
    }
  }
}

// A dataset of progressive photos is planned with their coefficients,
// which libjpeg holds for the whole image whatever the DCT scale: 4:4:4
// at 256x192 needs 288 KiB of them, more than four times the rest of what
// decoding one at 1/8 for a 32x24 output holds. Every photo loads.
TEST(LoaderMemoryTest, ProgressivePhotosArePlannedWithTheirCoefficients) {
  TempDir dir;
  fs::create_directories(dir.path() / "train");
  fs::create_directories(dir.path() / "train_masks");
  constexpr int kWidth = 256, kHeight = 192;
  for (int i = 0; i < 9; ++i) {
    const std::string stem = "progressive_" + std::to_string(i);
    testing::WriteFile(
        dir.path() / "train" / (stem + ".jpg"),
        testing::EncodeJpegWithLibjpeg(testing::TestPicture(kWidth, kHeight), kWidth, kHeight,
                                       testing::LibjpegVariant::kProgressive444));
    testing::WriteFile(dir.path() / "train_masks" / (stem + "_mask.gif"),
                       testing::EncodeMaskGif(testing::TestMask(kWidth, kHeight), kWidth, kHeight));
  }
  LoaderOptions options = SmallOptions(1);
  options.on_bad_file = OnBadFile::kFail;
  options.batch_size = 3;
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  constexpr size_t kCoefficientBytes = size_t{kWidth / 8} * (kHeight / 8) * 3 * 64 * 2;
  EXPECT_GE(loader.plan().decode_budget_bytes_per_thread, 4 * kCoefficientBytes);
  int samples = 0;
  try {
    samples = DrainEpoch(loader, 0);
  } catch (const FileError& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_EQ(samples, 9);
}

// The loader's side of the checker's HugeHeadersAreTooLargeBeforeAnythingIsAllocated:
// photos and masks of every format whose headers claim 10000x10000 pixels
// are too_large, named, refused before their pixels take any memory.
TEST(LoaderMemoryTest, HugeHeadersOfEveryFormatAreTooLarge) {
  TempDir dir;
  testing::WriteGoodPairsOfMixedDataset(dir.path(), 12);
  const testing::HugeHeaderFiles huge = testing::WriteHugeHeaderPairs(dir.path());
  Loader loader(DatasetSpec::Carvana(dir.path()), SmallOptions(2));
  DrainEpoch(loader, 0);
  const LoaderStats stats = loader.stats();
  std::vector<std::string> skipped;
  for (const Error& e : stats.skipped_files) {
    EXPECT_EQ(e.kind, ErrorKind::kTooLarge) << e.Message();
    skipped.push_back(e.path);
  }
  std::sort(skipped.begin(), skipped.end());
  EXPECT_EQ(skipped, huge.first_of_pair);
  EXPECT_LE(stats.peak_scratch_bytes, loader.plan().scratch_ceiling_bytes);
}

// Lying headers that outnumber the honest photos do not become the plan:
// a header whose file is too short for its pixels is skipped when
// planning, so the budget stays the honest photos' and every lying pair is
// too_large (it used to plan for 10000x10000, 1.9 GB per thread, and
// decode each lying file into 300 MB before finding it short).
TEST(LoaderMemoryTest, AMajorityOfLyingHeadersDoesNotRaiseThePlan) {
  TempDir dir;
  testing::WriteGoodPairsOfMixedDataset(dir.path(), 3);
  for (int copy = 0; copy < 3; ++copy)
    testing::WriteHugeHeaderPairs(dir.path() / ("copy" + std::to_string(copy)));
  for (int copy = 0; copy < 3; ++copy) {
    const fs::path from = dir.path() / ("copy" + std::to_string(copy));
    for (const char* folder : {"train", "train_masks"}) {
      for (const auto& entry : fs::directory_iterator(from / folder)) {
        if (entry.path().filename().string().rfind("huge_mask", 0) == 0) continue;
        fs::rename(entry.path(),
                   dir.path() / folder / (std::to_string(copy) + entry.path().filename().string()));
      }
    }
    fs::remove_all(from);
  }
  Loader loader(DatasetSpec::Carvana(dir.path()), SmallOptions(2));
  EXPECT_LT(loader.plan().decode_budget_bytes_per_thread, size_t{1} << 20);  // 64x48 photos
  DrainEpoch(loader, 0);
  const LoaderStats stats = loader.stats();
  EXPECT_EQ(stats.skipped_files.size(), 15u);  // 5 lying photos, 3 copies each
  for (const Error& e : stats.skipped_files) EXPECT_EQ(e.kind, ErrorKind::kTooLarge) << e.Message();
  EXPECT_LE(stats.peak_scratch_bytes, loader.plan().scratch_ceiling_bytes);
}

}  // namespace
}  // namespace segfeed
