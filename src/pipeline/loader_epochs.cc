#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "pipeline/loader_runtime.h"
#include "pipeline/loader_state.h"
#include "stage_clock.h"

// A LoaderRuntime's epochs: starting, pausing and abandoning one, the graph
// that fills its batches, handing them out (Next, GiveBack) and the stats.

namespace segfeed::pipeline {
namespace {

// The epoch after the last one must exist too: position() moves on to it.
void CheckEpoch(int64_t epoch) {
  if (epoch < 0 || epoch > kLastEpoch) {
    throw ConfigError("epoch must be in [0, " + std::to_string(kLastEpoch) + "] (got " +
                      std::to_string(epoch) + ")");
  }
}

}  // namespace

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
  const memory::BatchMeta& meta = buffers_->meta[buffer];
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

void LoaderRuntime::Publish(FilledBatch filled) {
  memory::BatchMeta& meta = buffers_->meta[filled.buffer];
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
  const memory::BufferPool& pool = buffers_->pool;
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
  if (dataset_.shard_source) {
    const source::SampleSource::TransferCounts counts = dataset_.shard_source->transfer_counts();
    stats.remote_requests = counts.requests;
    stats.remote_retries = counts.retries;
    stats.remote_connections = counts.connections;
    stats.cache_hits = counts.cache_hits;
    stats.cache_misses = counts.cache_misses;
    stats.cache_corrupt = counts.cache_corrupt;
    stats.cache_evictions = counts.cache_evictions;
    stats.cache_bytes_held = counts.cache_bytes_held;
    stats.cache_failures = counts.cache_failures;
  }
  stats.stage_seconds.consumer_wait = wait_ns_.load() * 1e-9;
  return stats;
}

}  // namespace segfeed::pipeline
