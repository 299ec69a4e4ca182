#include "segfeed/loader.h"

#include <oneapi/tbb/info.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <opencv2/core/utility.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "decode/jpeg_decoder.h"
#include "io/planned_source.h"
#include "memory/batch_buffers.h"
#include "pipeline/batch_graph.h"
#include "pipeline/dataset_errors.h"
#include "pipeline/epoch_plan.h"
#include "pipeline/loader_state.h"
#include "pipeline/ready_queue.h"
#include "pipeline/sample_loader.h"
#include "segfeed/option_table.h"
#include "source/files_source.h"
#include "stage_clock.h"
#include "worker_arena.h"

namespace segfeed {
namespace internal {
namespace {

int ResolveThreads(int threads) { return threads > 0 ? threads : tbb::info::default_concurrency(); }

int EnvironmentInt(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) {
    throw ConfigError(std::string("shard_from_environment is set but ") + name + " is not");
  }
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1'000'000) {
    throw ConfigError(std::string(name) + " must be a non-negative integer (got '" + text + "')");
  }
  return static_cast<int>(value);
}

// The epoch after the last one must exist too: position() moves on to it.
void CheckEpoch(int64_t epoch) {
  if (epoch < 0 || epoch > kLastEpoch) {
    throw ConfigError("epoch must be in [0, " + std::to_string(kLastEpoch) + "] (got " +
                      std::to_string(epoch) + ")");
  }
}

}  // namespace

class LoaderRuntime {
 public:
  LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options);
  ~LoaderRuntime() { Close(); }

  void StartEpoch(int64_t epoch, int64_t first_batch, int64_t shard_start = 0);
  LoaderPosition StartNextEpoch();
  void AbandonEpoch();
  void PauseEpoch();
  // Takes back the pool buffer of the batch handed out last.
  void GiveBack(int buffer);
  // The buffer of the next batch, nothing at the end; throws FileError,
  // PoolExhausted and, past `timeout`, NextTimeout.
  std::optional<int> NextBuffer(std::optional<std::chrono::milliseconds> timeout);
  void Close();
  LoaderStats Stats() const;
  LoaderPosition Position() const;
  LoaderState State();
  void Restore(const LoaderState& state);

  const std::shared_ptr<BatchBuffers>& buffers() const { return buffers_; }
  const Dataset& dataset() const { return dataset_; }
  const MemoryPlan& memory_plan() const { return memory_plan_; }
  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  int64_t samples_per_epoch() const { return samples_per_epoch_; }
  int64_t BatchesInEpoch() const;

 private:
  // Batches of an epoch whose sharding began at `shard_start`.
  int64_t BatchesFrom(int64_t shard_start) const;
  // LoaderState::global_position at `position`.
  int64_t GlobalPosition(const LoaderPosition& position) const;
  void Publish(FilledBatch filled);
  void StopGraph();

  DatasetSpec spec_;  // for messages that name the folders
  LoaderOptions options_;
  int threads_;
  Dataset dataset_;
  // Where the pairs' bytes come from: the listing's files. Everything after
  // the listing (plan, samples, checkpoint digest) reads through it.
  std::unique_ptr<SampleSource> source_;
  // What every epoch's plan is made from: the sample ids, the shard and the
  // batching; its epoch is set for each epoch.
  EpochPlanSpec epoch_plan_spec_;
  int64_t batches_per_epoch_ = 0;
  int64_t samples_per_epoch_ = 0;
  // The bytes the loader holds, planned for the dataset's typical photo.
  MemoryPlan memory_plan_;
  std::shared_ptr<BatchBuffers> buffers_;
  WorkerArena arena_;
  ReadyQueue ready_;

  // Consumer-thread state. The graph only reads epoch_ and epoch_plan_, and
  // only while it runs; they change only while no graph runs.
  int64_t epoch_ = 0;
  // The epoch being streamed: its order and batches.
  EpochPlan epoch_plan_;
  int64_t next_batch_ = 0;  // of epoch_, the first batch not handed out
  // The buffer of batch next_batch_, handed out once and given back.
  std::optional<int> given_back_;
  bool epoch_started_ = false;  // StartEpoch() was called
  // Batches of epoch_ are being handed out: it started and was neither
  // abandoned nor replaced by a Restore().
  bool streaming_ = false;
  // What StartNextEpoch() starts, and position() once epoch_ is done.
  LoaderPosition next_start_;
  bool closed_ = false;
  int peak_in_flight_ = 0;
  // LoaderState::listing_digest, made on the first State() or Restore().
  std::optional<std::string> listing_digest_;

  // Counters written by the graph's threads.
  std::atomic<int64_t> batches_delivered_{0};
  std::atomic<int64_t> wait_ns_{0};
  std::vector<Error> unpaired_files_;

  // Fills slots for the graph; uses dataset_, epoch_plan_spec_ and buffers_.
  std::unique_ptr<SampleLoader> samples_;
  // Last: destroyed (stopped) before everything it uses.
  std::unique_ptr<BatchGraph> graph_;
};

LoaderRuntime::LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options)
    : spec_(spec), options_(options), threads_(ResolveThreads(options.threads)), arena_(threads_) {
  ValidateLoaderOptions(options_);
  dataset_ = ListDataset(spec);
  if (dataset_.pairs.empty()) throw ConfigError(NoPairsMessage(spec, dataset_));
  unpaired_files_ = dataset_.problems;
  source_ = std::make_unique<FilesSource>(dataset_.pairs);
  dataset_.ignored = {};  // counted in ignored_count; check names them
  if (options_.on_bad_file == OnBadFile::kFail) {
    std::vector<Error> missing;
    for (const Error& problem : dataset_.problems) {
      // An orphan mask trains nothing either way; these lose a sample.
      if (problem.kind == ErrorKind::kMissingMask || problem.kind == ErrorKind::kMissingImage ||
          problem.kind == ErrorKind::kDuplicateKey || problem.kind == ErrorKind::kOutsideRoot)
        missing.push_back(problem);
    }
    if (!missing.empty()) throw UnpairedImagesError(missing);
  }

  const auto pair_count = static_cast<uint32_t>(dataset_.pairs.size());
  if (options_.subset == Subset::kAll) {
    epoch_plan_spec_.sample_ids.resize(pair_count);
    for (uint32_t i = 0; i < pair_count; ++i) epoch_plan_spec_.sample_ids[i] = i;
  } else {
    SubsetSplit split = SplitSubset(pair_count, options_.validation_fraction, options_.seed);
    epoch_plan_spec_.sample_ids =
        options_.subset == Subset::kTrain ? std::move(split.train) : std::move(split.validation);
    if (epoch_plan_spec_.sample_ids.empty()) {
      throw ConfigError(
          "the " + std::string(options_.subset == Subset::kTrain ? "train" : "validation") +
          " subset is empty (validation_fraction " + std::to_string(options_.validation_fraction) +
          " of " + std::to_string(pair_count) + " pairs)");
    }
  }
  epoch_plan_spec_.seed = options_.seed;
  epoch_plan_spec_.shuffle = options_.shuffle;
  epoch_plan_spec_.batch_size = options_.batch_size;
  epoch_plan_spec_.drop_last = options_.drop_last;
  epoch_plan_spec_.rank = options_.rank;
  epoch_plan_spec_.world_size = options_.world_size;
  if (options_.shard_from_environment) {
    epoch_plan_spec_.rank = EnvironmentInt("RANK");
    epoch_plan_spec_.world_size = EnvironmentInt("WORLD_SIZE");
    if (epoch_plan_spec_.world_size < 1 || epoch_plan_spec_.rank >= epoch_plan_spec_.world_size) {
      throw ConfigError(
          "RANK must be in [0, WORLD_SIZE) (got RANK=" + std::to_string(epoch_plan_spec_.rank) +
          ", WORLD_SIZE=" + std::to_string(epoch_plan_spec_.world_size) + ")");
    }
  }
  {
    const EpochPlan first = MakeEpochPlan(epoch_plan_spec_);
    batches_per_epoch_ = first.batch_count;
    samples_per_epoch_ = static_cast<int64_t>(first.order.size());
  }
  if (batches_per_epoch_ == 0) {
    const size_t shard_samples =
        (epoch_plan_spec_.sample_ids.size() + epoch_plan_spec_.world_size - 1) /
        epoch_plan_spec_.world_size;
    throw ConfigError("drop_last leaves no batch: an epoch of this shard has " +
                      std::to_string(shard_samples) + " samples, fewer than batch_size " +
                      std::to_string(options_.batch_size));
  }

  // The plan is for the dataset's typical photo; pairs up to the budget it
  // gives are decoded, larger ones are too_large.
  int source_width = options_.augment.output_width;
  int source_height = options_.augment.output_height;
  SourceFormats formats;
  if (auto source = PlanSourceFromHeaders(*source_, options_.decode); source.ok()) {
    source_width = source.value().width;
    source_height = source.value().height;
    formats = source.value().formats;
  }
  LoaderOptions resolved = options_;
  resolved.threads = threads_;
  memory_plan_ = PlanMemory(resolved, source_width, source_height, formats);
  AddListingToPlan(dataset_, &memory_plan_);
  CheckPlanFitsMachine(memory_plan_);

  // OpenCV's parallel loops run in their own arena and would escape ours.
  cv::setNumThreads(1);

  buffers_ = std::make_shared<BatchBuffers>(options_.prefetch_batches, options_.batch_size,
                                            options_.output, options_.augment.output_width,
                                            options_.augment.output_height, options_.pinned);
  samples_ = std::make_unique<SampleLoader>(
      options_, source_.get(), epoch_plan_spec_.sample_ids, buffers_.get(), threads_, source_width,
      source_height, static_cast<int64_t>(memory_plan_.decode_budget_bytes_per_thread), formats);
}

void LoaderRuntime::StopGraph() {
  if (graph_) {
    graph_->Stop();
    peak_in_flight_ = std::max(peak_in_flight_, graph_->peak_in_flight());
    graph_.reset();
  }
  // Batches loaded but never handed out (or given back) go back to the pool.
  for (FilledBatch& filled : ready_.Drain()) buffers_->pool.Release(filled.buffer);
  if (given_back_) buffers_->pool.Release(*std::exchange(given_back_, std::nullopt));
}

void LoaderRuntime::StartEpoch(int64_t epoch, int64_t first_batch, int64_t shard_start) {
  if (closed_) throw std::logic_error("Loader::StartEpoch() on a closed loader");
  CheckEpoch(epoch);
  const int64_t batches = BatchesFrom(shard_start);
  if (first_batch < 0 || first_batch > batches) {
    throw ConfigError("first_batch must be in [0, " + std::to_string(batches) + "] (got " +
                      std::to_string(first_batch) + ")");
  }
  StopGraph();
  ready_.Reopen();
  epoch_ = epoch;
  epoch_plan_spec_.epoch = epoch;
  epoch_plan_spec_.shard_start = shard_start;
  epoch_plan_ = MakeEpochPlan(epoch_plan_spec_);
  samples_->StartEpoch(epoch, &epoch_plan_.order);
  next_batch_ = first_batch;
  epoch_started_ = true;
  streaming_ = true;
  next_start_ = {epoch + 1, 0, 0};
  if (first_batch == epoch_plan_.batch_count) return;

  BatchGraph::Shape shape;
  shape.first_batch = first_batch;
  shape.batch_count = epoch_plan_.batch_count;
  shape.batch_samples = [this](int64_t batch) { return epoch_plan_.BatchSamples(batch); };
  shape.batch_size = options_.batch_size;
  shape.workers = threads_;
  BatchGraph::Callbacks callbacks;
  callbacks.load_sample = [this](const SampleTask& task, int worker) {
    return samples_->Load(task, worker);
  };
  callbacks.publish = [this](FilledBatch filled) { Publish(std::move(filled)); };
  graph_ = std::make_unique<BatchGraph>(arena_.arena(), &buffers_->pool, std::move(shape),
                                        std::move(callbacks));
}

LoaderPosition LoaderRuntime::StartNextEpoch() {
  const LoaderPosition start = next_start_;
  StartEpoch(start.epoch, start.next_batch, start.shard_start);
  return start;
}

int64_t LoaderRuntime::BatchesFrom(int64_t shard_start) const {
  EpochPlanSpec spec = epoch_plan_spec_;
  spec.shard_start = shard_start;
  return MakeEpochShape(spec).batch_count;
}

int64_t LoaderRuntime::BatchesInEpoch() const {
  return epoch_started_ ? epoch_plan_.batch_count : batches_per_epoch_;
}

void LoaderRuntime::AbandonEpoch() {
  if (!streaming_ || next_batch_ >= epoch_plan_.batch_count) return;
  StopGraph();
  streaming_ = false;
}

void LoaderRuntime::PauseEpoch() {
  if (!streaming_ || next_batch_ >= epoch_plan_.batch_count) return;
  StopGraph();
  streaming_ = false;
  next_start_ = {epoch_, next_batch_, epoch_plan_.shard_start};
}

void LoaderRuntime::GiveBack(int buffer) {
  const BatchMeta& meta = buffers_->meta[buffer];
  if (!streaming_ || given_back_ || meta.epoch != epoch_ || meta.batch_index != next_batch_ - 1) {
    // The lease is released as usual: only the last batch handed out can go back.
    buffers_->pool.Release(buffer);
    throw std::logic_error("Loader::GiveBack(): only the batch Next() handed out last goes back");
  }
  given_back_ = buffer;
  --next_batch_;
  --batches_delivered_;
}

LoaderPosition LoaderRuntime::Position() const {
  if (streaming_ && next_batch_ < epoch_plan_.batch_count) {
    return {epoch_, next_batch_, epoch_plan_.shard_start};
  }
  return next_start_;
}

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
    if (id >= dataset_.pairs.size()) {
      throw ConfigError("the state's known_bad names pair " + std::to_string(id) +
                        ", but the listing has " + std::to_string(dataset_.pairs.size()) +
                        " pairs");
    }
  }
  StopGraph();
  streaming_ = false;
  for (const auto& [id, kind] : state.known_bad) {
    const bool mask = kind == ErrorKind::kCorruptMask || kind == ErrorKind::kNonBinaryMask ||
                      kind == ErrorKind::kLabelOutOfRange;
    samples_->MarkKnownBad(
        id, Error{kind, source_->MemberName(id, mask ? Member::kMask : Member::kImage),
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

void LoaderRuntime::Publish(FilledBatch filled) {
  BatchMeta& meta = buffers_->meta[filled.buffer];
  meta.epoch = epoch_;
  meta.batch_index = filled.batch;
  meta.size = filled.samples;
  meta.images.shape[0] = filled.samples;
  meta.masks.shape[0] = filled.samples;
  if (filled.samples < options_.batch_size) {
    // Unused slots of a short batch are zeroed, so the buffer's bytes are a
    // function of the seed alone.
    const size_t unused = static_cast<size_t>(options_.batch_size - filled.samples);
    std::memset(buffers_->ImageSlot(filled.buffer, filled.samples), 0,
                unused * buffers_->image_bytes_per_sample);
    std::memset(buffers_->MaskSlot(filled.buffer, filled.samples), 0,
                unused * buffers_->mask_bytes_per_sample);
  }
  ready_.Push(std::move(filled));
}

std::optional<int> LoaderRuntime::NextBuffer(std::optional<std::chrono::milliseconds> timeout) {
  if (closed_) return std::nullopt;
  if (!epoch_started_) throw std::logic_error("Loader::Next() before StartEpoch()");
  if (!streaming_ || next_batch_ >= epoch_plan_.batch_count) return std::nullopt;
  if (given_back_) {
    ++next_batch_;
    ++batches_delivered_;
    return *std::exchange(given_back_, std::nullopt);
  }
  const StageClock::time_point start = StageClock::now();
  const int buffer_count = buffers_->pool.buffer_count();
  ReadyQueue::Popped popped =
      ready_.Pop(timeout ? ReadyQueue::Wait::kUntilDeadline : ReadyQueue::Wait::kForever,
                 timeout ? start + *timeout : start,
                 [&] { return buffers_->outstanding_leases.load() >= buffer_count; });
  wait_ns_ += NanosSince(start);
  if (popped.blocked) {
    throw PoolExhausted(
        "Loader::Next(): the consumer holds all " + std::to_string(buffer_count) +
        " pool buffers (" + std::to_string(buffers_->outstanding_leases.load()) +
        " leases alive, prefetch_batches = " + std::to_string(options_.prefetch_batches) +
        "), so no batch can be loaded; release a lease before calling Next() again "
        "(`batch = loader.Next()` keeps the old one alive during the call), or raise "
        "prefetch_batches");
  }
  if (popped.timed_out) {
    throw NextTimeout("Loader::Next(): batch " + std::to_string(next_batch_) + " of epoch " +
                      std::to_string(epoch_) + " was not ready within " +
                      std::to_string(timeout->count()) + " ms; call Next() again to keep waiting");
  }
  std::optional<FilledBatch>& filled = popped.batch;
  if (!filled) return std::nullopt;
  if (filled->error) {
    // Not handed out: position() still points at this batch.
    buffers_->pool.Release(filled->buffer);
    Error error = std::move(*filled->error);
    Close();
    throw FileError(std::move(error));
  }
  ++next_batch_;
  ++batches_delivered_;
  return filled->buffer;
}

void LoaderRuntime::Close() {
  if (closed_) return;
  closed_ = true;
  StopGraph();
  ready_.Close();
}

LoaderStats LoaderRuntime::Stats() const {
  LoaderStats stats;
  const BufferPool& pool = buffers_->pool;
  stats.pool_kind = pool.kind();
  stats.pool_fallback_reason = pool.fallback_reason();
  stats.pool_bytes = pool.total_bytes();
  stats.pool_buffers = pool.buffer_count();
  stats.outstanding_leases = buffers_->outstanding_leases.load();
  stats.threads = threads_;
  stats.peak_in_flight = std::max(peak_in_flight_, graph_ ? graph_->peak_in_flight() : 0);
  stats.in_flight_bound = options_.prefetch_batches * options_.batch_size;
  stats.batches_delivered = batches_delivered_.load();
  stats.unpaired_files = unpaired_files_;
  samples_->AddStats(&stats);
  stats.stage_seconds.consumer_wait = wait_ns_.load() * 1e-9;
  return stats;
}

}  // namespace internal

Loader::Loader(const DatasetSpec& dataset, const LoaderOptions& options)
    : runtime_(std::make_unique<internal::LoaderRuntime>(dataset, options)) {}

Loader::~Loader() = default;

void Loader::StartEpoch(int64_t epoch, int64_t first_batch) {
  runtime_->StartEpoch(epoch, first_batch);
}

LoaderPosition Loader::StartNextEpoch() { return runtime_->StartNextEpoch(); }
void Loader::AbandonEpoch() { runtime_->AbandonEpoch(); }
void Loader::PauseEpoch() { runtime_->PauseEpoch(); }

void Loader::GiveBack(Lease lease) {
  if (lease.buffers_ != runtime_->buffers() || lease.buffer_ < 0) {
    throw std::logic_error("Loader::GiveBack(): a lease of another loader, or an empty one");
  }
  --lease.buffers_->outstanding_leases;
  runtime_->GiveBack(std::exchange(lease.buffer_, -1));
}

std::optional<Lease> Loader::Next() {
  std::optional<int> buffer = runtime_->NextBuffer(std::nullopt);
  if (!buffer) return std::nullopt;
  return Lease(runtime_->buffers(), *buffer);
}

std::optional<Lease> Loader::Next(std::chrono::milliseconds timeout) {
  std::optional<int> buffer = runtime_->NextBuffer(timeout);
  if (!buffer) return std::nullopt;
  return Lease(runtime_->buffers(), *buffer);
}

void Loader::Close() { runtime_->Close(); }
int64_t Loader::batches_per_epoch() const { return runtime_->batches_per_epoch(); }
int64_t Loader::samples_per_epoch() const { return runtime_->samples_per_epoch(); }
int64_t Loader::batches_in_epoch() const { return runtime_->BatchesInEpoch(); }
const Dataset& Loader::dataset() const { return runtime_->dataset(); }
const MemoryPlan& Loader::plan() const { return runtime_->memory_plan(); }
LoaderStats Loader::stats() const { return runtime_->Stats(); }
LoaderPosition Loader::position() const { return runtime_->Position(); }
LoaderState Loader::State() const { return runtime_->State(); }
void Loader::Restore(const LoaderState& state) { runtime_->Restore(state); }

}  // namespace segfeed
