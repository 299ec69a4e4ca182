#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memory/batch_buffers.h"
#include "pipeline/batch_graph.h"
#include "pipeline/epoch_plan.h"
#include "pipeline/ready_queue.h"
#include "pipeline/sample_loader.h"
#include "segfeed/loader.h"
#include "source/sample_source.h"
#include "worker_arena.h"

namespace segfeed::pipeline {

// What a Loader is behind its public face: the listing, the epoch plans, the
// pool and the graph that fills it. Its members live by concern:
// construction and validation (loader_construction.cc), epochs and handing
// out batches (loader_epochs.cc), state save and restore
// (loader_checkpoint.cc); Loader forwards to it (loader.cc).
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

  const std::shared_ptr<memory::BatchBuffers>& buffers() const { return buffers_; }
  const Dataset& dataset() const { return dataset_; }
  const std::vector<std::string>& class_names() const { return options_.decode.class_names; }
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
  // Where the samples' bytes come from: the listing's files or its shards
  // (io::DatasetSource). Everything after the listing (plan, samples,
  // checkpoint digest) reads through it.
  std::shared_ptr<source::SampleSource> source_;
  // What every epoch's plan is made from: the sample ids, the shard and the
  // batching; its epoch is set for each epoch.
  EpochPlanSpec epoch_plan_spec_;
  int64_t batches_per_epoch_ = 0;
  int64_t samples_per_epoch_ = 0;
  // The bytes the loader holds, planned for the dataset's typical photo.
  MemoryPlan memory_plan_;
  std::shared_ptr<memory::BatchBuffers> buffers_;
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

}  // namespace segfeed::pipeline
