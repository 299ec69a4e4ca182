#include "pipeline/batch_graph.h"

#include <cassert>
#include <exception>
#include <string>
#include <utility>

namespace segfeed::pipeline {

using tbb::flow::continue_msg;
using tbb::flow::input_port;
using tbb::flow::make_edge;
using tbb::flow::output_port;

BatchGraph::BatchGraph(tbb::task_arena* arena, memory::BufferPool* pool, Shape shape,
                       Callbacks callbacks)
    : arena_(arena),
      pool_(pool),
      shape_(std::move(shape)),
      callbacks_(std::move(callbacks)),
      next_batch_(shape_.first_batch),
      progress_(pool->buffer_count()) {
  for (int worker = 0; worker < shape_.workers; ++worker) free_workers_.push(worker);
  // The graph must be created inside the arena: it runs its tasks in the
  // arena it was created in, which caps the loader's threads.
  arena_->execute([this] { Build(); });
}

BatchGraph::~BatchGraph() { Stop(); }

// The graph, nodes then edges; each node's body is the member function of
// the same name below. The memory bound is the reserving join: a batch index
// leaves `batches` only together with a free pool buffer, so the samples in
// flight never exceed pool buffers x batch_size.
void BatchGraph::Build() {
  namespace flow = tbb::flow;
  graph_ = std::make_unique<flow::graph>();
  batches_ = std::make_unique<flow::input_node<int64_t>>(
      *graph_, [this](tbb::flow_control& control) { return NextBatch(control); });
  free_buffers_ = std::make_unique<flow::buffer_node<int>>(*graph_);
  claim_buffer_ =
      std::make_unique<flow::join_node<std::tuple<int64_t, int>, flow::reserving>>(*graph_);
  // Serial: it is cheap, and it owns the progress record of the buffer it got.
  split_batch_ = std::make_unique<SplitNode>(
      *graph_, flow::serial, [this](const auto& claim, auto& ports) { SplitBatch(claim, ports); });
  // At most `workers` at once: each holds one worker's scratch buffers. Read,
  // decode and augment stay one node so a sample's scratch stays with its
  // worker from the file's bytes to the batch slot.
  load_sample_ = std::make_unique<flow::function_node<SampleTask, SampleDone>>(
      *graph_, shape_.workers, [this](const SampleTask& task) { return LoadSample(task); });
  // Unlimited: it only counts; the sample that completes a batch forwards it.
  complete_batch_ = std::make_unique<CompleteNode>(
      *graph_, flow::unlimited,
      [this](const SampleDone& done, auto& ports) { CompleteBatch(done, ports); });
  in_order_ = std::make_unique<flow::sequencer_node<FilledBatch>>(
      *graph_, [this](const FilledBatch& filled) {
        return static_cast<size_t>(filled.batch - shape_.first_batch);
      });
  publish_ = std::make_unique<flow::function_node<FilledBatch>>(
      *graph_, flow::serial, [this](FilledBatch filled) { return Publish(std::move(filled)); });

  make_edge(*batches_, input_port<0>(*claim_buffer_));
  make_edge(*free_buffers_, input_port<1>(*claim_buffer_));
  make_edge(*claim_buffer_, *split_batch_);
  make_edge(output_port<0>(*split_batch_), *load_sample_);
  make_edge(*load_sample_, *complete_batch_);
  make_edge(output_port<0>(*complete_batch_), *in_order_);
  make_edge(*in_order_, *publish_);

  pool_->SetReturnListener([this](int buffer) { free_buffers_->try_put(buffer); });
  batches_->activate();
}

int64_t BatchGraph::NextBatch(tbb::flow_control& control) {
  if (stopping_.load() || next_batch_ >= shape_.batch_count) {
    control.stop();
    return 0;
  }
  return next_batch_++;
}

void BatchGraph::SplitBatch(const std::tuple<int64_t, int>& claim,
                            SplitNode::output_ports_type& ports) {
  const auto [batch, buffer] = claim;
  const int samples = shape_.batch_samples(batch);
  BufferProgress& progress = progress_[buffer];
  progress.samples = samples;
  {
    MutexLock lock(&progress.error_mu);
    progress.error.reset();
  }
  progress.remaining.store(samples);
  const int in_flight = in_flight_.fetch_add(samples) + samples;
  int seen = peak_in_flight_.load();
  while (in_flight > seen && !peak_in_flight_.compare_exchange_weak(seen, in_flight)) {
  }
  for (int slot = 0; slot < samples; ++slot) {
    std::get<0>(ports).try_put(SampleTask{batch, slot, buffer, batch * shape_.batch_size + slot});
  }
}

BatchGraph::SampleDone BatchGraph::LoadSample(const SampleTask& task) {
  SampleDone done{task, std::nullopt};
  if (stopping_.load()) return done;
  int worker = 0;
  const bool got_worker = free_workers_.try_pop(worker);
  assert(got_worker && "node concurrency equals the number of workers");
  (void)got_worker;
  // An exception must not leave a node body: it would cancel the graph.
  try {
    Status status = callbacks_.load_sample(task, worker);
    if (!status.ok()) done.error = status.error();
  } catch (const std::exception& e) {
    done.error = Error{ErrorKind::kIoError, "sample " + std::to_string(task.position),
                       std::string("internal error: ") + e.what()};
  }
  free_workers_.push(worker);
  return done;
}

void BatchGraph::CompleteBatch(const SampleDone& done, CompleteNode::output_ports_type& ports) {
  BufferProgress& progress = progress_[done.task.buffer];
  if (done.error) {
    MutexLock lock(&progress.error_mu);
    if (!progress.error || done.task.slot < progress.error_slot) {
      progress.error = done.error;
      progress.error_slot = done.task.slot;
    }
  }
  if (progress.remaining.fetch_sub(1) != 1) return;
  FilledBatch filled{done.task.batch, done.task.buffer, progress.samples, std::nullopt};
  {
    MutexLock lock(&progress.error_mu);
    filled.error = progress.error;
  }
  std::get<0>(ports).try_put(filled);  // try_put copies: it takes a const reference
}

continue_msg BatchGraph::Publish(FilledBatch filled) {
  in_flight_.fetch_sub(filled.samples);
  if (stopping_.load()) {
    pool_->Release(filled.buffer);
  } else {
    callbacks_.publish(std::move(filled));
  }
  return continue_msg();
}

void BatchGraph::Stop() {
  if (stopped_) return;
  stopped_ = true;
  stopping_.store(true);
  // Released leases go to the pool's free list from now on, so nothing new
  // reaches the graph while it drains.
  pool_->ClearReturnListener();
  arena_->execute([this] { graph_->wait_for_all(); });
  int buffer = 0;
  while (free_buffers_->try_get(buffer)) pool_->Release(buffer);
}

}  // namespace segfeed::pipeline
