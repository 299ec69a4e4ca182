// The epoch orders (LoaderOptions::shuffle) through the whole loader, on a
// shard dataset whose shards have unequal sizes: the global permutation and
// the shard-block order are each a pure function of (seed, epoch, rank,
// world size), give every rank as many samples, resume mid-epoch with the
// uninterrupted stream's bytes, and resume at another world size with
// exactly the samples not yet served.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "segfeed/loader.h"
#include "source/shard_packing.h"
#include "support/batch_bytes.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::Remaining;
using segfeed::testing::TempDir;

constexpr uint32_t kPairs = 17;
constexpr int kBatchSize = 2;

// 17 pairs in four shards of 5, 2, 7 and 3 samples (each slice packed on
// its own, so the sizes differ), read as a list of tars.
class LoaderShuffleTest : public ::testing::TestWithParam<Shuffle> {
 public:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    demo::DemoOptions demo;
    demo.count = kPairs;
    demo.width = 48;
    demo.height = 32;
    const fs::path folders = dir_->path() / "folders";
    ASSERT_NO_FATAL_FAILURE(segfeed::testing::WriteDemoPairs(folders, demo));
    const PairList pairs = ListDataset(DatasetSpec::Carvana(folders)).pairs;
    ASSERT_EQ(pairs.size(), kPairs);
    size_t first = 0;
    for (size_t size : {5, 2, 7, 3}) {
      PairList slice(folders);
      for (size_t id = first; id < first + size; ++id) {
        slice.AddPaths(fs::relative(pairs[id].image_path, folders).string(),
                       fs::relative(pairs[id].mask_path, folders).string());
      }
      const fs::path out = dir_->path() / ("slice" + std::to_string(first));
      for (const fs::path& tar : segfeed::testing::PackIntoShards(slice, out, size, false))
        tars_->push_back(tar);
      first += size;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
    tars_->clear();
  }

  static DatasetSpec Shards() { return DatasetSpec::Shards(*tars_); }

  LoaderOptions Options(int rank = 0, int world_size = 1) const {
    LoaderOptions options;
    options.batch_size = kBatchSize;
    options.threads = 2;
    options.seed = 23;
    options.shuffle = GetParam();
    if (GetParam() == Shuffle::kShards) options.shard_window = 2;
    options.rank = rank;
    options.world_size = world_size;
    options.augment.output_width = 40;
    options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    return options;
  }

  static TempDir* dir_;
  static std::vector<fs::path>* tars_;
};
TempDir* LoaderShuffleTest::dir_ = nullptr;
std::vector<fs::path>* LoaderShuffleTest::tars_ = new std::vector<fs::path>();

// The sample ids of the batches left in the loader's epoch, in order.
std::vector<uint32_t> RemainingIds(Loader& loader) {
  std::vector<uint32_t> ids;
  while (auto lease = loader.Next()) {
    ids.insert(ids.end(), lease->sample_ids().begin(), lease->sample_ids().end());
  }
  return ids;
}

std::vector<uint32_t> EpochIds(const DatasetSpec& spec, const LoaderOptions& options,
                               int64_t epoch) {
  Loader loader(spec, options);
  loader.StartEpoch(epoch);
  return RemainingIds(loader);
}

TEST_P(LoaderShuffleTest, TheOrderIsAPureFunctionAndEveryRankGetsAsManySamples) {
  const std::vector<uint32_t> whole = EpochIds(Shards(), Options(), 1);
  std::vector<uint32_t> sorted = whole;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted.size(), kPairs);
  for (uint32_t id = 0; id < kPairs; ++id) EXPECT_EQ(sorted[id], id);
  EXPECT_EQ(EpochIds(Shards(), Options(), 1), whole) << "the same options, the same order";
  EXPECT_NE(EpochIds(Shards(), Options(), 2), whole) << "a new order every epoch";

  // World size 2: 17 samples padded to 18 by repeating the order's first;
  // rank r takes every second sample of the one order from r.
  std::vector<uint32_t> covered;
  for (int rank : {0, 1}) {
    LoaderOptions options = Options(rank, 2);
    options.threads = 1 + rank;  // threads never change the stream
    Loader loader(Shards(), options);
    loader.StartEpoch(1);
    const std::vector<uint32_t> ids = RemainingIds(loader);
    EXPECT_EQ(loader.samples_per_epoch(), 9);
    ASSERT_EQ(ids.size(), 9u) << rank;
    for (size_t k = 0; k < ids.size(); ++k)
      EXPECT_EQ(ids[k], whole[(k * 2 + rank) % kPairs]) << rank << " " << k;
    covered.insert(covered.end(), ids.begin(), ids.end());
  }
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  EXPECT_EQ(covered.size(), kPairs);
}

TEST_P(LoaderShuffleTest, AStateResumesMidEpochWithTheRestOfTheStreamsBytes) {
  for (int rank : {0, 1}) {
    Loader uninterrupted(Shards(), Options(rank, 2));
    uninterrupted.StartEpoch(1);
    const std::vector<std::string> epoch = Remaining(uninterrupted);
    ASSERT_EQ(epoch.size(), 5u);
    std::string saved;
    {
      Loader loader(Shards(), Options(rank, 2));
      loader.StartEpoch(1);
      for (int batch = 0; batch < 2; ++batch) ASSERT_TRUE(loader.Next().has_value());
      saved = loader.State().Serialize();
    }
    LoaderOptions options = Options(rank, 2);
    options.threads = 1;
    Loader resumed(Shards(), options);
    resumed.Restore(LoaderState::Parse(saved));
    EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{1, 2}));
    const std::vector<std::string> rest = Remaining(resumed);
    EXPECT_TRUE(rest == std::vector<std::string>(epoch.begin() + 2, epoch.end())) << rank;
  }
}

// Two ranks of world size 2 took 2 batches of 2 each: the order's first 8
// samples. A state of either resumes at world size 1 and 3 with the other 9,
// each once, in the order's own sequence.
TEST_P(LoaderShuffleTest, AStateResumesAtAnotherWorldSizeWithTheSamplesNotYetServed) {
  const std::vector<uint32_t> order = EpochIds(Shards(), Options(), 1);
  std::vector<uint32_t> served;
  std::string saved;
  for (int rank : {0, 1}) {
    Loader loader(Shards(), Options(rank, 2));
    loader.StartEpoch(1);
    for (int batch = 0; batch < 2; ++batch) {
      const std::optional<Lease> lease = loader.Next();
      ASSERT_TRUE(lease.has_value());
      served.insert(served.end(), lease->sample_ids().begin(), lease->sample_ids().end());
    }
    if (rank == 1) saved = loader.State().Serialize();
  }
  std::vector<uint32_t> not_served;
  for (uint32_t id = 0; id < kPairs; ++id) {
    if (std::find(served.begin(), served.end(), id) == served.end()) not_served.push_back(id);
  }
  ASSERT_EQ(not_served.size(), 9u);
  for (int world_size : {1, 3}) {
    std::vector<uint32_t> rest;
    for (int rank = 0; rank < world_size; ++rank) {
      Loader resumed(Shards(), Options(rank, world_size));
      resumed.Restore(LoaderState::Parse(saved));
      EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{1, 0, 8})) << "the rest re-sharded";
      const std::vector<uint32_t> ids = RemainingIds(resumed);
      ASSERT_EQ(ids.size(), 9u / world_size) << world_size;
      for (size_t k = 0; k < ids.size(); ++k)
        EXPECT_EQ(ids[k], order[8 + k * world_size + rank]) << world_size << " " << rank;
      rest.insert(rest.end(), ids.begin(), ids.end());
      // The epoch after continues at the new world size from batch 0.
      EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{2, 0}));
    }
    std::sort(rest.begin(), rest.end());
    EXPECT_EQ(rest, not_served) << "world size " << world_size;
  }
}

INSTANTIATE_TEST_SUITE_P(Orders, LoaderShuffleTest,
                         ::testing::Values(Shuffle::kGlobal, Shuffle::kShards),
                         [](const ::testing::TestParamInfo<Shuffle>& info) {
                           return info.param == Shuffle::kGlobal ? "Global" : "Shards";
                         });

// The block order's own properties through the loader: its window holds
// samples of at most K shards, its default window is kDefaultShardWindow,
// and a state of one order is refused by a loader of another.
class LoaderShardBlockTest : public LoaderShuffleTest {};

TEST_F(LoaderShardBlockTest, AWindowDrawsFromItsShardsAndDefaultsToFour) {
  // Shard of each id: 5, 2, 7, 3 samples.
  const auto shard_of = [](uint32_t id) { return id < 5 ? 0 : id < 7 ? 1 : id < 14 ? 2 : 3; };
  LoaderOptions options;
  options.batch_size = kBatchSize;
  options.seed = 23;
  options.augment.output_width = 40;
  options.augment.output_height = 32;
  options.pinned = PinnedMode::kOff;
  options.shuffle = Shuffle::kShards;
  options.shard_window = 1;
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    const std::vector<uint32_t> ids = EpochIds(Shards(), options, epoch);
    ASSERT_EQ(ids.size(), kPairs);
    int runs = 1;  // one shard at a time: each shard's samples are one run
    for (size_t k = 1; k < ids.size(); ++k) runs += shard_of(ids[k]) != shard_of(ids[k - 1]);
    EXPECT_EQ(runs, 4) << "epoch " << epoch;
  }
  options.shard_window = 0;
  const std::vector<uint32_t> default_window = EpochIds(Shards(), options, 1);
  options.shard_window = LoaderOptions::kDefaultShardWindow;
  EXPECT_EQ(EpochIds(Shards(), options, 1), default_window);
  options.shuffle = Shuffle::kGlobal;
  options.shard_window = 0;
  EXPECT_NE(EpochIds(Shards(), options, 1), default_window) << "all 4 shards: still another order";

  // A files dataset has no shards; a window is the block order's only.
  options.shuffle = Shuffle::kShards;
  EXPECT_THROW(Loader(DatasetSpec::Carvana(dir_->path() / "folders"), options), ConfigError);
  options.shuffle = Shuffle::kNone;
  options.shard_window = 2;
  EXPECT_THROW(Loader(Shards(), options), ConfigError);
}

TEST_F(LoaderShardBlockTest, AStateOfOneOrderIsRefusedByAnother) {
  std::string saved;
  {
    LoaderOptions options;
    options.batch_size = kBatchSize;
    options.augment.output_width = options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    options.shuffle = Shuffle::kShards;
    Loader loader(Shards(), options);
    loader.StartEpoch(0);
    ASSERT_TRUE(loader.Next().has_value());
    saved = loader.State().Serialize();
    EXPECT_NE(saved.find("shuffle=shards"), std::string::npos) << saved;
  }
  for (Shuffle other : {Shuffle::kGlobal, Shuffle::kNone}) {
    LoaderOptions options;
    options.batch_size = kBatchSize;
    options.augment.output_width = options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    options.shuffle = other;
    Loader loader(Shards(), options);
    try {
      loader.Restore(LoaderState::Parse(saved));
      FAIL() << "a state of the block order was taken by " << ShuffleName(other);
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("shuffle"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace segfeed
