#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

#include "pipeline/loader_runtime.h"
#include "pipeline/loader_state.h"
#include "segfeed/option_table.h"

// A LoaderRuntime's state saved (State()) and restored (Restore()): where
// the stream is, checked against the state's own shard and world size.

namespace segfeed::pipeline {

LoaderState LoaderRuntime::State() {
  if (!listing_digest_) listing_digest_ = ListingDigest(*source_);
  LoaderState state;
  const LoaderPosition position = Position();
  state.epoch = position.epoch;
  state.next_batch = position.next_batch;
  state.seed = options_.seed;
  state.rank = epoch_plan_spec_.rank;
  state.world_size = epoch_plan_spec_.world_size;
  state.shard_start = position.shard_start;
  state.global_position = GlobalPosition(position);
  state.known_bad = samples_->KnownBad();
  state.batches_per_epoch = batches_per_epoch_;
  state.options = StreamOptionList(options_);
  state.options_digest = StreamOptionsDigest(options_);
  state.listing_digest = *listing_digest_;
  return state;
}

int64_t LoaderRuntime::GlobalPosition(const LoaderPosition& position) const {
  if (streaming_ && position.epoch == epoch_ && position.shard_start == epoch_plan_.shard_start) {
    return epoch_plan_.GlobalPosition(position.next_batch);
  }
  EpochPlanSpec spec = epoch_plan_spec_;
  spec.shard_start = position.shard_start;
  return MakeEpochShape(spec).GlobalPosition(position.next_batch);
}

void LoaderRuntime::Restore(const LoaderState& state) {
  CheckStateFields(state, "loader state");  // a state made by hand, too
  CheckResumes(state, State(), spec_);
  if (!state.known_bad.empty() && options_.on_bad_file != OnBadFile::kSkip) {
    throw ConfigError("the state's known_bad lists " + std::to_string(state.known_bad.size()) +
                      " pair(s), but its on_bad_file is '" +
                      std::string(OnBadFileName(options_.on_bad_file)) +
                      "', which skips none: it was edited");
  }
  const int64_t epoch_samples = std::ssize(epoch_plan_spec_.sample_ids);
  if (state.shard_start < 0 || state.shard_start >= std::max<int64_t>(epoch_samples, 1)) {
    throw ConfigError("shard_start must be in [0, " + std::to_string(epoch_samples) + ") (got " +
                      std::to_string(state.shard_start) + ")");
  }
  // The state's own shard: the batches its ranks streamed, and where they got to.
  EpochPlanSpec saved = epoch_plan_spec_;
  saved.world_size = state.world_size;
  saved.rank = 0;  // every rank's plan has the same counts
  saved.shard_start = state.shard_start;
  const EpochPlan saved_plan = MakeEpochShape(saved);
  saved.shard_start = 0;
  const int64_t saved_batches_per_epoch = MakeEpochShape(saved).batch_count;
  if (state.batches_per_epoch != saved_batches_per_epoch) {
    throw ConfigError("the state's batches_per_epoch " + std::to_string(state.batches_per_epoch) +
                      " is not what its world_size " + std::to_string(state.world_size) +
                      " gives (" + std::to_string(saved_batches_per_epoch) + "): it was edited");
  }
  if (state.next_batch < 0 || state.next_batch > saved_plan.batch_count) {
    throw ConfigError("next_batch must be in [0, " + std::to_string(saved_plan.batch_count) +
                      "] (got " + std::to_string(state.next_batch) + ")");
  }
  // At the same world size the position is next_batch of the state's own
  // sharding, as before version 3; at another it is the global position,
  // which must then agree with it.
  const bool same_world_size = state.world_size == epoch_plan_spec_.world_size;
  const int64_t global_position = saved_plan.GlobalPosition(state.next_batch);
  if (!same_world_size && state.version >= 3 && state.global_position != global_position) {
    throw ConfigError("the state's global_position " + std::to_string(state.global_position) +
                      " is not where its shard_start " + std::to_string(state.shard_start) +
                      ", next_batch " + std::to_string(state.next_batch) + " and world_size " +
                      std::to_string(state.world_size) + " lead (" +
                      std::to_string(global_position) + "): it was edited");
  }
  for (const auto& [id, kind] : state.known_bad) {
    if (id >= dataset_.sample_count()) {
      throw ConfigError("the state's known_bad names pair " + std::to_string(id) +
                        ", but the listing has " + std::to_string(dataset_.sample_count()) +
                        " pairs");
    }
  }
  StopGraph();
  streaming_ = false;
  for (const auto& [id, kind] : state.known_bad) {
    const bool mask = kind == ErrorKind::kCorruptMask || kind == ErrorKind::kNonBinaryMask ||
                      kind == ErrorKind::kLabelOutOfRange;
    samples_->MarkKnownBad(
        id,
        Error{kind, source_->MemberName(id, mask ? source::Member::kMask : source::Member::kImage),
              "this pair was bad in the run the checkpoint comes from; not read again, "
              "as there"});
  }
  if (same_world_size) {
    next_start_ = {state.epoch, state.next_batch, state.shard_start};
  } else if (state.next_batch == saved_plan.batch_count || global_position == epoch_samples) {
    next_start_ = {state.epoch + 1, 0, 0};  // that epoch was over at the old world size
  } else {
    next_start_ = {state.epoch, 0, global_position};
  }
}

}  // namespace segfeed::pipeline
