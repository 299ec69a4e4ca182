#pragma once

#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "memory/buffer_pool.h"
#include "mutex.h"
#include "pipeline/sample_task.h"
#include "result.h"
#include "thread_annotations.h"

namespace segfeed::pipeline {

// A batch whose samples have all been attempted, handed on in batch order.
struct FilledBatch {
  int64_t batch = 0;
  int buffer = 0;
  int samples = 0;
  // The error of the lowest failed slot, when the sample loader failed one.
  std::optional<Error> error;
};

// The flow graph of one epoch, with docs/design.md's stages ("Data flow") in
// brackets:
//
//   batches ──► claim_buffer ◄── free_buffers ◄── pool (released leases)
//                    │
//                    ▼
//              split_batch ──► load_sample ──► complete_batch ──► in_order ──► publish
//                              [read+decode,                      [ready queue, in order]
//                               augment+resize
//                               into the batch slot]
//
// `batches` emits batch indices first_batch, first_batch + 1, ... A batch
// starts only when `claim_buffer` (a reserving join) pairs it with a free
// pool buffer, so the samples in flight never exceed pool buffers x
// batch_size, whatever the consumer does. `load_sample` runs up to `workers`
// samples at once, each with a worker index in [0, workers) that owns
// per-thread scratch, and writes the sample into its slot. `complete_batch`
// counts the finished slots of each batch, keeps the error of its lowest
// failed slot, and forwards the batch when its last slot is done.
// `in_order` restores batch order, and `publish` hands each batch on
// serially.
//
// Thread-safety: construct, Stop() and destroy from one thread; callbacks
// run on the arena's threads.
class BatchGraph {
 public:
  struct Callbacks {
    // Fills one slot. Must not throw. Called concurrently for different tasks.
    std::function<Status(const SampleTask& task, int worker)> load_sample;
    // Receives completed batches in batch order, one at a time.
    std::function<void(FilledBatch batch)> publish;
  };
  struct Shape {
    int64_t first_batch = 0;
    int64_t batch_count = 0;
    // Samples in each batch (the last may be short).
    std::function<int(int64_t batch)> batch_samples;
    int batch_size = 1;
    int workers = 1;
  };

  // Starts loading at once. The pool's free buffers and every buffer
  // released later feed the graph until Stop().
  BatchGraph(tbb::task_arena* arena, memory::BufferPool* pool, Shape shape, Callbacks callbacks);
  BatchGraph(const BatchGraph&) = delete;
  BatchGraph& operator=(const BatchGraph&) = delete;
  ~BatchGraph();

  // Stops starting new samples, lets those in flight finish quickly (the
  // loader is not called for them), waits for every task, and gives unused
  // buffers back to the pool. Batches not yet published are dropped and their
  // buffers freed. Idempotent.
  void Stop();

  // Largest number of samples that were between split_batch and publish.
  int peak_in_flight() const { return peak_in_flight_.load(); }

 private:
  struct SampleDone {
    SampleTask task;
    std::optional<Error> error;
  };
  // What is known about the batch being filled in each buffer.
  struct BufferProgress {
    std::atomic<int> remaining{0};
    int samples = 0;
    Mutex error_mu;
    std::optional<Error> error GUARDED_BY(error_mu);
    int error_slot GUARDED_BY(error_mu) = 0;
  };

  using SplitNode = tbb::flow::multifunction_node<std::tuple<int64_t, int>, std::tuple<SampleTask>>;
  using CompleteNode = tbb::flow::multifunction_node<SampleDone, std::tuple<FilledBatch>>;

  void Build();
  // The bodies of the nodes of the same names.
  int64_t NextBatch(tbb::flow_control& control);
  void SplitBatch(const std::tuple<int64_t, int>& claim, SplitNode::output_ports_type& ports);
  SampleDone LoadSample(const SampleTask& task);
  void CompleteBatch(const SampleDone& done, CompleteNode::output_ports_type& ports);
  tbb::flow::continue_msg Publish(FilledBatch filled);

  tbb::task_arena* arena_;
  memory::BufferPool* pool_;
  Shape shape_;
  Callbacks callbacks_;
  std::atomic<bool> stopping_{false};
  bool stopped_ = false;
  int64_t next_batch_;  // only the `batches` node touches this
  std::vector<BufferProgress> progress_;
  tbb::concurrent_queue<int> free_workers_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> peak_in_flight_{0};

  // Nodes are declared after the state they use, so they die first.
  std::unique_ptr<tbb::flow::graph> graph_;
  std::unique_ptr<tbb::flow::input_node<int64_t>> batches_;
  std::unique_ptr<tbb::flow::buffer_node<int>> free_buffers_;
  std::unique_ptr<tbb::flow::join_node<std::tuple<int64_t, int>, tbb::flow::reserving>>
      claim_buffer_;
  std::unique_ptr<SplitNode> split_batch_;
  std::unique_ptr<tbb::flow::function_node<SampleTask, SampleDone>> load_sample_;
  std::unique_ptr<CompleteNode> complete_batch_;
  std::unique_ptr<tbb::flow::sequencer_node<FilledBatch>> in_order_;
  std::unique_ptr<tbb::flow::function_node<FilledBatch>> publish_;
};

}  // namespace segfeed::pipeline
