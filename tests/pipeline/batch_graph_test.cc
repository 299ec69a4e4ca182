#include "pipeline/batch_graph.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "counter_rng.h"
#include "pipeline/ready_queue.h"
#include "worker_arena.h"

namespace segfeed::pipeline {
namespace {

constexpr int kBatchSize = 4;

// Uneven, reproducible amounts of work per sample so that samples finish out
// of order, as real decodes do.
void Work(int64_t position) {
  volatile uint64_t sink = 0;
  const uint64_t rounds = CounterRng(1, static_cast<uint64_t>(position)).Below(20000);
  for (uint64_t i = 0; i < rounds; ++i) sink = sink + i;
}

struct Harness {
  explicit Harness(int buffers, int threads = 2)
      : workers(threads), pool(buffers, kBatchSize * sizeof(int64_t), PinnedMode::kOff) {}

  BatchGraph::Shape Shape(int64_t batches, int64_t first = 0, int workers = 2) {
    BatchGraph::Shape shape;
    shape.first_batch = first;
    shape.batch_count = batches;
    shape.batch_samples = [](int64_t) { return kBatchSize; };
    shape.batch_size = kBatchSize;
    shape.workers = workers;
    return shape;
  }
  BatchGraph::Callbacks Callbacks() {
    BatchGraph::Callbacks callbacks;
    callbacks.load_sample = [this](const SampleTask& task, int worker) -> Status {
      EXPECT_GE(worker, 0);
      loads++;
      Work(task.position);
      if (fail_positions.count(task.position)) {
        return Error{ErrorKind::kCorruptImage, "sample" + std::to_string(task.position), "planted"};
      }
      auto* slots = reinterpret_cast<int64_t*>(pool.data(task.buffer));
      slots[task.slot] = task.position;
      return {};
    };
    callbacks.publish = [this](FilledBatch batch) { ready.Push(std::move(batch)); };
    return callbacks;
  }

  WorkerArena workers;
  memory::BufferPool pool;
  ReadyQueue ready;
  std::atomic<int> loads{0};
  std::set<int64_t> fail_positions;
};

TEST(BatchGraphTest, DeliversEveryBatchInOrderWithItsOwnSamples) {
  Harness h(3);
  BatchGraph graph(h.workers.arena(), &h.pool, h.Shape(40), h.Callbacks());
  for (int64_t batch = 0; batch < 40; ++batch) {
    auto filled = h.ready.Pop();
    ASSERT_TRUE(filled.has_value());
    EXPECT_EQ(filled->batch, batch);
    EXPECT_FALSE(filled->error.has_value());
    const auto* slots = reinterpret_cast<const int64_t*>(h.pool.data(filled->buffer));
    for (int slot = 0; slot < kBatchSize; ++slot) EXPECT_EQ(slots[slot], batch * kBatchSize + slot);
    h.pool.Release(filled->buffer);  // what ~Lease does
  }
  graph.Stop();
  EXPECT_EQ(h.loads.load(), 40 * kBatchSize);
  EXPECT_LE(graph.peak_in_flight(), 3 * kBatchSize);
  EXPECT_EQ(h.pool.free_count(), 3);
}

TEST(BatchGraphTest, StartsAtTheRequestedBatch) {
  Harness h(2);
  BatchGraph graph(h.workers.arena(), &h.pool, h.Shape(10, /*first=*/7), h.Callbacks());
  for (int64_t batch = 7; batch < 10; ++batch) {
    auto filled = h.ready.Pop();
    ASSERT_TRUE(filled.has_value());
    EXPECT_EQ(filled->batch, batch);
    EXPECT_EQ(reinterpret_cast<const int64_t*>(h.pool.data(filled->buffer))[0], batch * kBatchSize);
    h.pool.Release(filled->buffer);
  }
  graph.Stop();
  EXPECT_EQ(h.loads.load(), 3 * kBatchSize);
}

// A consumer that never gives buffers back stalls the graph after exactly
// one batch per buffer; nothing more is loaded, nothing more allocated.
TEST(BatchGraphTest, StalledConsumerStopsLoadingAtThePoolBound) {
  Harness h(3);
  BatchGraph graph(h.workers.arena(), &h.pool, h.Shape(100), h.Callbacks());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(h.ready.Pop().has_value());
  graph.Stop();  // returns although the queue holds every buffer
  EXPECT_EQ(h.loads.load(), 3 * kBatchSize);
  EXPECT_LE(graph.peak_in_flight(), 3 * kBatchSize);
  EXPECT_EQ(h.pool.free_count(), 0);  // the three batches are still the consumer's
}

TEST(BatchGraphTest, StopMidEpochIsPromptAndReturnsEveryUnpublishedBuffer) {
  Harness h(4);
  auto graph =
      std::make_unique<BatchGraph>(h.workers.arena(), &h.pool, h.Shape(1000), h.Callbacks());
  auto first = h.ready.Pop();
  ASSERT_TRUE(first.has_value());
  h.pool.Release(first->buffer);
  const auto start = std::chrono::steady_clock::now();
  graph.reset();  // the destructor stops
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(1));
  // Published but unconsumed batches remain in the queue; all else is free.
  EXPECT_EQ(h.pool.free_count() + static_cast<int>(h.ready.Drain().size()), 4);
}

TEST(BatchGraphTest, ReportsTheLowestFailedSlotOfABatch) {
  Harness h(2);
  h.fail_positions = {6, 5, 9};
  BatchGraph graph(h.workers.arena(), &h.pool, h.Shape(3), h.Callbacks());
  std::vector<FilledBatch> batches;
  for (int i = 0; i < 3; ++i) {
    auto filled = h.ready.Pop();
    ASSERT_TRUE(filled.has_value());
    h.pool.Release(filled->buffer);
    batches.push_back(std::move(*filled));
  }
  EXPECT_FALSE(batches[0].error.has_value());
  ASSERT_TRUE(batches[1].error.has_value());
  EXPECT_EQ(batches[1].error->path, "sample5");
  ASSERT_TRUE(batches[2].error.has_value());
  EXPECT_EQ(batches[2].error->path, "sample9");
}

TEST(BatchGraphTest, NeverRunsMoreLoadsAtOnceThanWorkers) {
  Harness h(4, /*threads=*/4);
  std::atomic<int> running{0}, most{0};
  BatchGraph::Callbacks callbacks = h.Callbacks();
  auto inner = callbacks.load_sample;
  callbacks.load_sample = [&](const SampleTask& task, int worker) {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    Status status = inner(task, worker);
    --running;
    return status;
  };
  BatchGraph graph(h.workers.arena(), &h.pool, h.Shape(30, 0, /*workers=*/2), callbacks);
  for (int i = 0; i < 30; ++i) {
    auto filled = h.ready.Pop();
    ASSERT_TRUE(filled.has_value());
    h.pool.Release(filled->buffer);
  }
  graph.Stop();
  EXPECT_LE(most.load(), 2);
}

}  // namespace
}  // namespace segfeed::pipeline
