#pragma once

#include <cstdint>
#include <vector>

#include "segfeed/options.h"

namespace segfeed::pipeline {

// Which pairs of the dataset an epoch visits, in which order, and how they
// fall into batches. A pure function of its inputs: every rank, thread and
// restarted process computes the same plan.
struct EpochPlanSpec {
  // The sample ids the loader may use (after the subset split), ascending.
  std::vector<uint32_t> sample_ids;
  uint64_t seed = 0;
  int64_t epoch = 0;
  Shuffle shuffle = Shuffle::kGlobal;
  // Shuffle::kShards: the first sample id of each shard, ascending (a
  // shard's samples have consecutive ids), and the shards read at a time
  // (>= 1, LoaderOptions::shard_window resolved).
  std::vector<uint32_t> shard_starts;
  int shard_window = 0;
  int rank = 0;        // 0 <= rank < world_size
  int world_size = 1;  // processes sharing the epoch
  int batch_size = 1;
  bool drop_last = false;
  // How many samples at the start of the epoch's permutation ranks of an
  // earlier world size consumed before a resume: the plan shards the rest.
  // 0 for an epoch streamed from its start.
  int64_t shard_start = 0;
};

struct EpochPlan {
  // This rank's samples in epoch order; position k goes to slot k % batch_size
  // of batch k / batch_size.
  std::vector<uint32_t> order;
  int64_t batch_count = 0;
  int batch_size = 1;
  int world_size = 1;
  int64_t shard_start = 0;
  int64_t epoch_samples = 0;  // the whole permutation, every rank's together

  // Samples in batch `batch` (batch_size, or fewer for a short last batch).
  int BatchSamples(int64_t batch) const;
  // How many samples of the permutation all ranks together have consumed
  // once every rank took its batches before `next_batch`: a prefix of the
  // permutation, because rank r takes positions r, r + world_size, ...
  int64_t GlobalPosition(int64_t next_batch) const;
};

// PyTorch DistributedSampler semantics: one order of all sample ids per
// (seed, epoch) (kGlobal: a permutation; kShards: the shard-block order,
// the shards permuted, taken shard_window at a time, each window's samples
// permuted; kNone: the ids as listed); its samples from shard_start on, padded by repeating
// their beginning up to a multiple of world_size, of which rank r takes
// positions r, r + world_size, ... Then batches of batch_size, the last one
// short unless drop_last.
EpochPlan MakeEpochPlan(const EpochPlanSpec& spec);
// The same plan without its order (no permutation is drawn): its counts and
// GlobalPosition(), for what a resume checks.
EpochPlan MakeEpochShape(const EpochPlanSpec& spec);

// Splits ids [0, count) into a validation part of round(fraction x count)
// ids chosen by the seed and a training part with the rest, each ascending.
// The same seed gives the same split in every epoch and process.
struct SubsetSplit {
  std::vector<uint32_t> train;
  std::vector<uint32_t> validation;
};
SubsetSplit SplitSubset(uint32_t count, double validation_fraction, uint64_t seed);

}  // namespace segfeed::pipeline
