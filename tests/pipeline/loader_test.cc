#include "segfeed/loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/batch_bytes.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using testing::BatchBytes;

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

// 23 small Carvana-like pairs, written once for the whole suite.
class LoaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    demo::DemoOptions demo;
    demo.count = 23;
    demo.width = 160;
    demo.height = 106;
    ASSERT_NO_FATAL_FAILURE(segfeed::testing::WriteDemoPairs(dir_->path(), demo));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static DatasetSpec Spec() { return DatasetSpec::Carvana(dir_->path()); }

  static LoaderOptions SmallOptions() {
    LoaderOptions options;
    options.batch_size = 4;
    options.threads = 2;
    options.seed = 11;
    options.augment.output_width = 48;
    options.augment.output_height = 40;
    options.pinned = PinnedMode::kOff;
    return options;
  }

  static TempDir* dir_;
};
TempDir* LoaderTest::dir_ = nullptr;

std::vector<std::string> EpochBatches(Loader& loader, int64_t epoch, int64_t first_batch = 0) {
  std::vector<std::string> batches;
  loader.StartEpoch(epoch, first_batch);
  while (auto lease = loader.Next()) batches.push_back(BatchBytes(*lease));
  return batches;
}

std::vector<uint32_t> EpochIds(Loader& loader, int64_t epoch) {
  std::vector<uint32_t> ids;
  loader.StartEpoch(epoch);
  while (auto lease = loader.Next())
    ids.insert(ids.end(), lease->sample_ids().begin(), lease->sample_ids().end());
  return ids;
}

TEST_F(LoaderTest, SameSeedGivesIdenticalBytesForAnyThreadsAndPrefetch) {
  std::vector<std::string> reference;
  for (int threads : {1, 2, 4}) {
    for (int prefetch : {2, 3}) {
      LoaderOptions options = SmallOptions();
      options.threads = threads;
      options.prefetch_batches = prefetch;
      Loader loader(Spec(), options);
      std::vector<std::string> batches = EpochBatches(loader, 1);
      ASSERT_EQ(batches.size(), 6u);
      if (reference.empty()) {
        reference = batches;
      } else {
        EXPECT_TRUE(batches == reference) << threads << " threads, prefetch " << prefetch;
      }
    }
  }
}

TEST_F(LoaderTest, EveryEpochVisitsEverySampleOnceAndEpochsDiffer) {
  Loader loader(Spec(), SmallOptions());
  std::vector<uint32_t> expected(23);
  for (uint32_t i = 0; i < 23; ++i) expected[i] = i;
  std::set<std::vector<uint32_t>> orders;
  std::vector<std::string> first_batches;
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<uint32_t> ids = EpochIds(loader, epoch);
    orders.insert(ids);
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ids, expected) << "epoch " << epoch;
  }
  EXPECT_EQ(orders.size(), 3u);
}

TEST_F(LoaderTest, LastBatchIsShortUnlessDropLast) {
  {
    Loader loader(Spec(), SmallOptions());
    loader.StartEpoch(0);
    std::vector<int> sizes;
    while (auto lease = loader.Next()) {
      sizes.push_back(lease->size());
      EXPECT_EQ(lease->images().shape[0], lease->size());
    }
    EXPECT_EQ(sizes, (std::vector<int>{4, 4, 4, 4, 4, 3}));
  }
  LoaderOptions options = SmallOptions();
  options.drop_last = true;
  Loader loader(Spec(), options);
  EXPECT_EQ(loader.batches_per_epoch(), 5);
  loader.StartEpoch(0);
  int batches = 0;
  while (auto lease = loader.Next()) {
    EXPECT_FALSE(lease->is_short());
    ++batches;
  }
  EXPECT_EQ(batches, 5);
}

TEST_F(LoaderTest, ResumeYieldsExactlyTheTailOfTheEpoch) {
  Loader loader(Spec(), SmallOptions());
  const std::vector<std::string> whole = EpochBatches(loader, 2);
  const std::vector<std::string> tail = EpochBatches(loader, 2, 4);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_TRUE(tail[0] == whole[4]);
  EXPECT_TRUE(tail[1] == whole[5]);
  EXPECT_TRUE(EpochBatches(loader, 2, 6).empty());
  EXPECT_THROW(loader.StartEpoch(2, 7), ConfigError);
}

TEST_F(LoaderTest, ShardsAreDisjointAndCoverTheEpoch) {
  std::map<uint32_t, int> seen;
  for (int rank = 0; rank < 3; ++rank) {
    LoaderOptions options = SmallOptions();
    options.rank = rank;
    options.world_size = 3;
    Loader loader(Spec(), options);
    EXPECT_EQ(loader.samples_per_epoch(), 8);  // ceil(23 / 3)
    for (uint32_t id : EpochIds(loader, 5)) ++seen[id];
  }
  EXPECT_EQ(seen.size(), 23u);
  int repeats = 0;
  for (auto [id, count] : seen) repeats += count - 1;
  EXPECT_EQ(repeats, 1);  // 24 slots for 23 samples
}

TEST_F(LoaderTest, TrainAndValidationSubsetsSplitTheDataset) {
  LoaderOptions options = SmallOptions();
  options.validation_fraction = 0.25;
  options.subset = Subset::kTrain;
  Loader train(Spec(), options);
  options.subset = Subset::kValidation;
  Loader validation(Spec(), options);
  std::vector<uint32_t> all = EpochIds(train, 0);
  const std::vector<uint32_t> held_out = EpochIds(validation, 0);
  EXPECT_EQ(held_out.size(), 6u);  // round(0.25 x 23)
  all.insert(all.end(), held_out.begin(), held_out.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end());
  EXPECT_EQ(all.size(), 23u);
}

TEST_F(LoaderTest, PoolAndScratchMatchThePlanAndNeverGrow) {
  LoaderOptions options = SmallOptions();
  options.prefetch_batches = 3;
  Loader loader(Spec(), options);
  const MemoryPlan plan = PlanMemory(options, 160, 106);
  LoaderStats before = loader.stats();
  EXPECT_EQ(before.pool_buffers, 3);
  EXPECT_EQ(before.pool_bytes, plan.pool_bytes);
  EXPECT_EQ(before.scratch_bytes, plan.scratch_bytes);
  for (int epoch = 0; epoch < 3; ++epoch) EpochBatches(loader, epoch);
  const LoaderStats after = loader.stats();
  EXPECT_EQ(after.pool_buffers, before.pool_buffers);
  EXPECT_EQ(after.pool_bytes, before.pool_bytes);
  EXPECT_EQ(after.scratch_bytes, plan.scratch_bytes);
  EXPECT_EQ(after.samples_loaded, 3 * 23);
  EXPECT_EQ(after.batches_delivered, 3 * 6);
  EXPECT_LE(after.peak_in_flight, after.in_flight_bound);
  EXPECT_EQ(after.in_flight_bound, 12);
}

// Every stage that ran has time, and the jitter has none when colour jitter
// is off.
TEST_F(LoaderTest, StageSecondsCountEachStageThatRan) {
  for (bool jitter : {true, false}) {
    LoaderOptions options = SmallOptions();
    AugmentOptions& augment = options.augment;
    augment.contrast_enabled = augment.brightness_enabled = augment.saturation_enabled =
        augment.hue_enabled = jitter;
    Loader loader(Spec(), options);
    EpochBatches(loader, 0);
    const StageSeconds stage = loader.stats().stage_seconds;
    EXPECT_GT(stage.read, 0.0);
    // JPEG photos and GIF masks: no PNG was decoded.
    EXPECT_GT(stage.decode_photo_jpeg, 0.0);
    EXPECT_GT(stage.decode_mask_gif, 0.0);
    EXPECT_EQ(stage.decode_photo_png, 0.0);
    EXPECT_EQ(stage.decode_mask_png, 0.0);
    EXPECT_GT(stage.warp, 0.0);
    EXPECT_GT(stage.convert, 0.0);
    if (jitter) {
      EXPECT_GT(stage.jitter, 0.0);
    } else {
      EXPECT_EQ(stage.jitter, 0.0);
    }
  }
}

TEST_F(LoaderTest, StalledConsumerHoldsTheBoundAndShutsDownPromptly) {
  LoaderOptions options = SmallOptions();
  options.prefetch_batches = 3;
  auto loader = std::make_unique<Loader>(Spec(), options);
  loader->StartEpoch(0);
  std::optional<Lease> kept = loader->Next();  // held: the pool has 2 left
  ASSERT_TRUE(kept.has_value());
  const std::string kept_bytes = BatchBytes(*kept);
  // Let the pipeline fill every remaining buffer, then stop consuming.
  std::optional<Lease> second = loader->Next();
  std::optional<Lease> third = loader->Next();
  ASSERT_TRUE(second && third);
  EXPECT_LE(loader->stats().peak_in_flight, 12);
  second.reset();  // one buffer back: the graph fills it and stalls again
  const auto start = std::chrono::steady_clock::now();
  loader.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  // Leases outlive the loader and keep their bytes.
  EXPECT_EQ(BatchBytes(*kept), kept_bytes);
  kept.reset();
  third.reset();
}

TEST_F(LoaderTest, InvalidOptionsNameTheFieldAndValue) {
  LoaderOptions options = SmallOptions();
  options.batch_size = 0;
  try {
    Loader loader(Spec(), options);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "batch_size must be >= 1 (got 0)");
  }
  options = SmallOptions();
  options.rank = 2;
  options.world_size = 2;
  EXPECT_THROW(Loader(Spec(), options), ConfigError);
  EXPECT_THROW(Loader(DatasetSpec::Carvana(dir_->path() / "nowhere"), SmallOptions()), FileError);
}

TEST_F(LoaderTest, ShardFromEnvironmentReadsRankAndWorldSize) {
  LoaderOptions options = SmallOptions();
  options.shard_from_environment = true;
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "4", 1);
  Loader loader(Spec(), options);
  EXPECT_EQ(loader.samples_per_epoch(), 6);  // ceil(23 / 4)
  setenv("WORLD_SIZE", "x", 1);
  EXPECT_THROW(Loader(Spec(), options), ConfigError);
  unsetenv("RANK");
  unsetenv("WORLD_SIZE");
  EXPECT_THROW(Loader(Spec(), options), ConfigError);
}

// A copy of the dataset with some files broken.
// With one pool buffer, `batch = loader.Next()` calls Next() while the old
// lease is alive: it must say so, not wait forever, and the loader stays
// usable once the lease is gone.
TEST_F(LoaderTest, NextRaisesPoolExhaustedWhenTheConsumerHoldsEveryBuffer) {
  LoaderOptions options = SmallOptions();
  options.prefetch_batches = 1;
  Loader loader(Spec(), options);
  loader.StartEpoch(0);
  std::optional<Lease> batch = loader.Next();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(loader.stats().outstanding_leases, 1);
  try {
    batch = loader.Next();
    FAIL() << "expected PoolExhausted";
  } catch (const PoolExhausted& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("prefetch_batches = 1"), std::string::npos) << message;
    EXPECT_NE(message.find("1 leases alive"), std::string::npos) << message;
  }
  batch.reset();
  EXPECT_EQ(loader.stats().outstanding_leases, 0);
  int batches = 1;
  while (auto lease = loader.Next()) ++batches;
  EXPECT_EQ(batches, loader.batches_per_epoch());
}

TEST_F(LoaderTest, NextRaisesPoolExhaustedWhenAllLeasesAreHeld) {
  LoaderOptions options = SmallOptions();
  options.prefetch_batches = 3;
  Loader loader(Spec(), options);
  loader.StartEpoch(0);
  std::vector<Lease> held;
  for (int i = 0; i < 3; ++i) held.push_back(*loader.Next());
  EXPECT_EQ(loader.stats().outstanding_leases, 3);
  EXPECT_THROW(loader.Next(), PoolExhausted);
  EXPECT_THROW(loader.Next(std::chrono::milliseconds(50)), PoolExhausted);
  held.erase(held.begin());
  EXPECT_EQ(loader.Next()->batch_index(), 3);
}

// A consumer polling with a zero timeout (as a runtime that checks for
// signals between waits does) gets exactly the batches of a plain Next()
// loop: a timeout loses or skips nothing.
TEST_F(LoaderTest, NextWithTimeoutLosesNothing) {
  Loader plain(Spec(), SmallOptions());
  const std::vector<std::string> reference = EpochBatches(plain, 0);
  Loader polled(Spec(), SmallOptions());
  polled.StartEpoch(0);
  std::vector<std::string> batches;
  for (;;) {
    std::optional<Lease> lease;
    try {
      lease = polled.Next(std::chrono::milliseconds(0));
    } catch (const NextTimeout& e) {
      EXPECT_NE(std::string(e.what()).find("call Next() again"), std::string::npos) << e.what();
      continue;
    }
    if (!lease) break;
    batches.push_back(BatchBytes(*lease));
  }
  EXPECT_TRUE(batches == reference);
}

class BadFileTest : public LoaderTest {
 protected:
  void SetUp() override {
    for (const char* sub : {"train", "train_masks"}) {
      fs::create_directories(broken_ / sub);
      for (const auto& entry : fs::directory_iterator(dir_->path() / sub)) {
        fs::copy_file(entry.path(), broken_ / sub / entry.path().filename());
      }
    }
    const std::string stem = demo::DemoStem(0, 5);
    bad_image_ = broken_ / "train" / (stem + ".jpg");
    fs::resize_file(bad_image_, fs::file_size(bad_image_) / 3);  // truncated
    bad_mask_ = broken_ / "train_masks" / (demo::DemoStem(0, 17) + "_mask.gif");
    std::ofstream(bad_mask_, std::ios::trunc) << "not a gif at all";
  }

  TempDir temp_;
  fs::path broken_ = temp_.path();
  fs::path bad_image_, bad_mask_;
};

TEST_F(BadFileTest, FailPolicyStopsAtTheFirstBadFileNamingIt) {
  LoaderOptions options = SmallOptions();
  options.shuffle = Shuffle::kNone;  // pair 5 is in batch 1
  Loader loader(DatasetSpec::Carvana(broken_), options);
  loader.StartEpoch(0);
  ASSERT_TRUE(loader.Next().has_value());  // batch 0 is fine
  try {
    loader.Next();
    FAIL() << "expected FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::kCorruptImage);
    EXPECT_EQ(e.error().path, bad_image_.string());
    EXPECT_NE(std::string(e.what()).find(bad_image_.string()), std::string::npos);
  }
  EXPECT_FALSE(loader.Next().has_value());  // closed cleanly
}

TEST_F(BadFileTest, SkipPolicyKeepsBatchesFullReproduciblyAndListsTheFiles) {
  LoaderOptions options = SmallOptions();
  options.on_bad_file = OnBadFile::kSkip;
  std::vector<std::string> reference;
  for (int threads : {1, 3}) {
    options.threads = threads;
    Loader loader(DatasetSpec::Carvana(broken_), options);
    std::vector<std::string> batches;
    loader.StartEpoch(0);
    int samples = 0;
    while (auto lease = loader.Next()) {
      samples += lease->size();
      batches.push_back(BatchBytes(*lease));
    }
    EXPECT_EQ(samples, 23);
    const LoaderStats stats = loader.stats();
    EXPECT_EQ(stats.samples_skipped, 2);
    ASSERT_EQ(stats.skipped_files.size(), 2u);
    std::set<std::string> kinds;
    for (const Error& e : stats.skipped_files) {
      kinds.insert(std::string(ErrorKindName(e.kind)) + " " + e.path);
    }
    EXPECT_TRUE(kinds.count("corrupt_image " + bad_image_.string())) << *kinds.begin();
    EXPECT_TRUE(kinds.count("unsupported_format " + bad_mask_.string())) << *kinds.rbegin();
    if (reference.empty()) {
      reference = batches;
    } else {
      EXPECT_TRUE(batches == reference);
    }
  }
}

}  // namespace
}  // namespace segfeed
