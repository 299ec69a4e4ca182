#include "pipeline/epoch_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace segfeed::pipeline {
namespace {

std::vector<uint32_t> Iota(uint32_t n) {
  std::vector<uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);
  return ids;
}

TEST(EpochPlanTest, EveryEpochVisitsEverySampleOnceInADifferentOrder) {
  EpochPlanSpec spec;
  spec.sample_ids = Iota(103);
  spec.batch_size = 8;
  std::set<std::vector<uint32_t>> orders;
  for (int epoch = 0; epoch < 5; ++epoch) {
    spec.epoch = epoch;
    const EpochPlan plan = MakeEpochPlan(spec);
    std::vector<uint32_t> sorted = plan.order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, spec.sample_ids) << "epoch " << epoch;
    EXPECT_EQ(plan.batch_count, 13);
    EXPECT_EQ(plan.BatchSamples(12), 103 - 12 * 8);  // short last batch
    orders.insert(plan.order);
  }
  EXPECT_EQ(orders.size(), 5u);
}

TEST(EpochPlanTest, SameKeySameOrderAndNoShuffleKeepsIdOrder) {
  EpochPlanSpec spec;
  spec.sample_ids = Iota(50);
  spec.seed = 9;
  spec.epoch = 3;
  EXPECT_EQ(MakeEpochPlan(spec).order, MakeEpochPlan(spec).order);
  spec.shuffle = Shuffle::kNone;
  EXPECT_EQ(MakeEpochPlan(spec).order, spec.sample_ids);
}

TEST(EpochPlanTest, DropLastDropsOnlyTheShortBatch) {
  EpochPlanSpec spec;
  spec.sample_ids = Iota(20);
  spec.batch_size = 8;
  spec.drop_last = true;
  const EpochPlan plan = MakeEpochPlan(spec);
  EXPECT_EQ(plan.batch_count, 2);
  EXPECT_EQ(plan.order.size(), 16u);
  EXPECT_EQ(plan.BatchSamples(1), 8);
}

// DistributedSampler semantics: shards are disjoint apart from the padding,
// equal in length, and together cover the epoch.
TEST(EpochPlanTest, ShardsAreDisjointAndCoverTheEpoch) {
  for (uint32_t samples : {1u, 7u, 10u, 64u}) {
    for (int world = 1; world <= 4; ++world) {
      EpochPlanSpec spec;
      spec.sample_ids = Iota(samples);
      spec.seed = 5;
      spec.epoch = 2;
      spec.world_size = world;
      std::map<uint32_t, int> seen;
      size_t length = 0;
      for (int rank = 0; rank < world; ++rank) {
        spec.rank = rank;
        const EpochPlan plan = MakeEpochPlan(spec);
        if (rank == 0) length = plan.order.size();
        EXPECT_EQ(plan.order.size(), length);
        for (uint32_t id : plan.order) ++seen[id];
      }
      const size_t padded = length * world;
      EXPECT_EQ(padded, (samples + world - 1) / world * world);
      EXPECT_EQ(seen.size(), samples) << samples << " samples, world " << world;
      int repeats = 0;
      for (auto [id, count] : seen) repeats += count - 1;
      EXPECT_EQ(static_cast<size_t>(repeats), padded - samples);
    }
  }
}

// After a resume on another world size: the plan shards what is left of
// the permutation, and its shape is the plan's without drawing the order.
TEST(EpochPlanTest, TheRestAfterShardStartIsShardedAmongTheNewRanks) {
  EpochPlanSpec spec;
  spec.sample_ids = Iota(23);
  spec.seed = 4;
  spec.batch_size = 3;
  const std::vector<uint32_t> whole = MakeEpochPlan(spec).order;
  for (int64_t shard_start : {0, 5, 22}) {
    for (int world = 1; world <= 3; ++world) {
      for (bool drop_last : {false, true}) {
        spec.shard_start = shard_start;
        spec.world_size = world;
        spec.drop_last = drop_last;
        std::multiset<uint32_t> delivered;
        for (int rank = 0; rank < world; ++rank) {
          spec.rank = rank;
          const EpochPlan plan = MakeEpochPlan(spec);
          const EpochPlan shape = MakeEpochShape(spec);
          EXPECT_EQ(shape.batch_count, plan.batch_count);
          EXPECT_TRUE(shape.order.empty());
          EXPECT_EQ(plan.GlobalPosition(0), shard_start);
          EXPECT_EQ(
              plan.GlobalPosition(plan.batch_count),
              drop_last ? std::min<int64_t>(23, shard_start + plan.batch_count * 3 * world) : 23);
          delivered.insert(plan.order.begin(), plan.order.end());
        }
        const std::set<uint32_t> rest(whole.begin() + shard_start, whole.end());
        const std::set<uint32_t> distinct(delivered.begin(), delivered.end());
        if (!drop_last) {
          EXPECT_EQ(distinct, rest) << shard_start << " " << world;
        }
        for (uint32_t id : distinct) EXPECT_TRUE(rest.count(id)) << id;
      }
    }
  }
}

// 9 shards of uneven sizes (1 to 30 samples) and the shard of each id.
struct UnevenShards {
  std::vector<uint32_t> starts = {0, 12, 13, 40, 70, 71, 90, 100, 117};
  uint32_t count = 130;
  size_t ShardOf(uint32_t id) const {
    return std::upper_bound(starts.begin(), starts.end(), id) - starts.begin() - 1;
  }
};

// The most shards any point of `order` has started and not finished.
size_t MostShardsOpen(const std::vector<uint32_t>& order, const UnevenShards& shards) {
  std::map<size_t, size_t> last;
  for (size_t i = 0; i < order.size(); ++i) last[shards.ShardOf(order[i])] = i;
  std::set<size_t> open;
  size_t most = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t shard = shards.ShardOf(order[i]);
    open.insert(shard);
    most = std::max(most, open.size());
    if (last[shard] == i) open.erase(shard);
  }
  return most;
}

TEST(EpochPlanTest, TheShardBlockOrderReadsAWindowOfShardsAtATime) {
  const UnevenShards shards;
  EpochPlanSpec spec;
  spec.sample_ids = Iota(shards.count);
  spec.shuffle = Shuffle::kShards;
  spec.shard_starts = shards.starts;
  spec.seed = 4;
  std::set<std::vector<uint32_t>> orders;
  for (int window : {1, 3}) {
    spec.shard_window = window;
    for (int epoch = 0; epoch < 3; ++epoch) {
      spec.epoch = epoch;
      const EpochPlan plan = MakeEpochPlan(spec);
      std::vector<uint32_t> sorted = plan.order;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, spec.sample_ids);
      EXPECT_LE(MostShardsOpen(plan.order, shards), static_cast<size_t>(window));
      EXPECT_EQ(MakeEpochPlan(spec).order, plan.order) << "a pure function";
      orders.insert(plan.order);
    }
  }
  EXPECT_EQ(orders.size(), 6u);
  // Within a window the samples are drawn at random, not shard by shard.
  spec.shard_window = 9;
  EXPECT_GT(MostShardsOpen(MakeEpochPlan(spec).order, shards), 6u);
}

TEST(EpochPlanTest, TheShardBlockOrderGivesEveryRankAsManySamplesAndResumes) {
  const UnevenShards shards;
  EpochPlanSpec spec;
  spec.sample_ids = Iota(shards.count);
  spec.shuffle = Shuffle::kShards;
  spec.shard_starts = shards.starts;
  spec.shard_window = 2;
  spec.world_size = 3;
  spec.batch_size = 4;
  std::vector<uint32_t> all;
  for (int rank = 0; rank < 3; ++rank) {
    spec.rank = rank;
    const EpochPlan plan = MakeEpochPlan(spec);
    EXPECT_EQ(plan.order.size(), 44u) << "130 padded to 132";
    all.insert(all.end(), plan.order.begin(), plan.order.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  EXPECT_EQ(all, spec.sample_ids);
  // The rest after a resume on 2 ranks is the same order's tail.
  spec.rank = 0;
  spec.world_size = 1;
  const std::vector<uint32_t> whole = MakeEpochPlan(spec).order;
  spec.world_size = 2;
  spec.shard_start = 36;
  std::vector<uint32_t> rest;
  for (int rank = 0; rank < 2; ++rank) {
    spec.rank = rank;
    const EpochPlan plan = MakeEpochPlan(spec);
    for (size_t k = 0; k < plan.order.size(); ++k)
      EXPECT_EQ(plan.order[k], whole[36 + k * 2 + rank]);
  }
}

// A subset of the ids (a train split) keeps the shard blocks of its own ids.
TEST(EpochPlanTest, TheShardBlockOrderOfASubsetVisitsOnlyItsIds) {
  const UnevenShards shards;
  EpochPlanSpec spec;
  for (uint32_t id = 0; id < shards.count; id += 3) spec.sample_ids.push_back(id);
  spec.shuffle = Shuffle::kShards;
  spec.shard_starts = shards.starts;
  spec.shard_window = 2;
  std::vector<uint32_t> sorted = MakeEpochPlan(spec).order;
  EXPECT_LE(MostShardsOpen(sorted, shards), 2u);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, spec.sample_ids);
}

TEST(EpochPlanTest, SubsetSplitIsDisjointCompleteAndStable) {
  const SubsetSplit split = SplitSubset(1000, 0.2, 42);
  EXPECT_EQ(split.validation.size(), 200u);
  EXPECT_EQ(split.train.size(), 800u);
  std::vector<uint32_t> all = split.train;
  all.insert(all.end(), split.validation.begin(), split.validation.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Iota(1000));
  EXPECT_EQ(SplitSubset(1000, 0.2, 42).validation, split.validation);
  EXPECT_NE(SplitSubset(1000, 0.2, 43).validation, split.validation);
}

}  // namespace
}  // namespace segfeed::pipeline
