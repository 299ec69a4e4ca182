#include "pipeline/epoch_plan.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

#include "counter_rng.h"

namespace segfeed::pipeline {
namespace {

// Salts separate the random streams of different purposes.
constexpr uint64_t kEpochOrderSalt = 0x0D3E2;
constexpr uint64_t kSubsetSalt = 0x5B5E7;
constexpr uint64_t kShardOrderSalt = 0x5A4D0;
constexpr uint64_t kShardWindowSalt = 0x3B10C;

// Fisher-Yates with counter-based draws: the permutation depends only on the key.
void Permute(std::vector<uint32_t>* ids, CounterRng rng) {
  for (size_t i = ids->size(); i > 1; --i) {
    std::swap((*ids)[i - 1], (*ids)[rng.Below(i)]);
  }
}

// The shard-block order of `ids` (ascending): the shards in a permutation
// of (seed, epoch), then, window by window of `window` shards, the window's
// samples in a permutation of (seed, epoch, window).
std::vector<uint32_t> ShardBlockOrder(const std::vector<uint32_t>& ids,
                                      const std::vector<uint32_t>& shard_starts, int window,
                                      uint64_t seed, int64_t epoch) {
  // Each shard's run of `ids`: [begin, end) positions, shards in id order.
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t begin = 0; begin < ids.size();) {
    const auto next = std::upper_bound(shard_starts.begin(), shard_starts.end(), ids[begin]);
    const uint32_t limit = next == shard_starts.end() ? UINT32_MAX : *next;
    size_t end = begin;
    while (end < ids.size() && ids[end] < limit) ++end;
    runs.emplace_back(begin, end);
    begin = end;
  }
  std::vector<uint32_t> shard_order(runs.size());
  std::iota(shard_order.begin(), shard_order.end(), 0u);
  Permute(&shard_order, CounterRng(seed ^ kShardOrderSalt, epoch));
  std::vector<uint32_t> order;
  order.reserve(ids.size());
  const size_t step = static_cast<size_t>(window);
  for (size_t first = 0; first < shard_order.size(); first += step) {
    const size_t window_begin = order.size();
    for (size_t s = first; s < std::min(shard_order.size(), first + step); ++s) {
      const auto [begin, end] = runs[shard_order[s]];
      order.insert(order.end(), ids.begin() + static_cast<std::ptrdiff_t>(begin),
                   ids.begin() + static_cast<std::ptrdiff_t>(end));
    }
    std::vector<uint32_t> drawn(order.begin() + static_cast<std::ptrdiff_t>(window_begin),
                                order.end());
    // A stream per window, keyed by its first shard's place in the order.
    Permute(&drawn, CounterRng(seed ^ kShardWindowSalt, static_cast<uint64_t>(epoch), first));
    std::copy(drawn.begin(), drawn.end(),
              order.begin() + static_cast<std::ptrdiff_t>(window_begin));
  }
  return order;
}

}  // namespace

int EpochPlan::BatchSamples(int64_t batch) const {
  assert(batch >= 0 && batch < batch_count);
  const int64_t remaining = static_cast<int64_t>(order.size()) - batch * batch_size;
  return static_cast<int>(std::min<int64_t>(batch_size, remaining));
}

int64_t EpochPlan::GlobalPosition(int64_t next_batch) const {
  assert(next_batch >= 0 && next_batch <= batch_count);
  const int64_t consumed = next_batch * batch_size * world_size;
  return std::min(epoch_samples, shard_start + consumed);
}

EpochPlan MakeEpochShape(const EpochPlanSpec& spec) {
  assert(spec.world_size >= 1 && spec.rank >= 0 && spec.rank < spec.world_size);
  assert(spec.batch_size >= 1);
  assert(spec.shard_start >= 0 && spec.shard_start <= std::ssize(spec.sample_ids));
  EpochPlan plan;
  plan.batch_size = spec.batch_size;
  plan.world_size = spec.world_size;
  plan.shard_start = spec.shard_start;
  plan.epoch_samples = std::ssize(spec.sample_ids);
  const int64_t rest = plan.epoch_samples - spec.shard_start;
  const int64_t per_rank = (rest + spec.world_size - 1) / spec.world_size;
  plan.batch_count = spec.drop_last ? per_rank / spec.batch_size
                                    : (per_rank + spec.batch_size - 1) / spec.batch_size;
  return plan;
}

EpochPlan MakeEpochPlan(const EpochPlanSpec& spec) {
  EpochPlan plan = MakeEpochShape(spec);
  std::vector<uint32_t> global = spec.sample_ids;
  if (spec.shuffle == Shuffle::kShards) {
    assert(spec.shard_window >= 1 && !spec.shard_starts.empty());
    global = ShardBlockOrder(spec.sample_ids, spec.shard_starts, spec.shard_window, spec.seed,
                             spec.epoch);
  } else if (spec.shuffle == Shuffle::kGlobal) {
    Permute(&global, CounterRng(spec.seed ^ kEpochOrderSalt, spec.epoch));
  }
  global.erase(global.begin(), global.begin() + spec.shard_start);
  if (!global.empty()) {
    const size_t world = static_cast<size_t>(spec.world_size);
    const size_t per_rank = (global.size() + world - 1) / world;
    plan.order.reserve(per_rank);
    for (size_t k = 0; k < per_rank; ++k) {
      // Padding repeats the permutation from its start, as DistributedSampler does.
      plan.order.push_back(global[(k * world + spec.rank) % global.size()]);
    }
  }
  if (spec.drop_last) plan.order.resize(plan.batch_count * spec.batch_size);
  return plan;
}

SubsetSplit SplitSubset(uint32_t count, double validation_fraction, uint64_t seed) {
  assert(validation_fraction >= 0.0 && validation_fraction <= 1.0);
  std::vector<uint32_t> ids(count);
  std::iota(ids.begin(), ids.end(), 0u);
  Permute(&ids, CounterRng(seed ^ kSubsetSalt));
  const size_t validation = static_cast<size_t>(std::llround(validation_fraction * count));
  SubsetSplit split;
  split.validation.assign(ids.begin(), ids.begin() + validation);
  split.train.assign(ids.begin() + validation, ids.end());
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

}  // namespace segfeed::pipeline
