#include "pipeline/ready_queue.h"

#include <gtest/gtest.h>

#include <chrono>

namespace segfeed::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

TEST(ReadyQueueTest, PopReturnsQueuedBatchesInOrder) {
  ReadyQueue queue;
  queue.Push(FilledBatch{0, 1, 4, std::nullopt});
  queue.Push(FilledBatch{1, 0, 4, std::nullopt});
  EXPECT_EQ(queue.Pop()->batch, 0);
  EXPECT_EQ(queue.Pop()->batch, 1);
}

TEST(ReadyQueueTest, PopUntilADeadlineTimesOutOnAnEmptyQueue) {
  ReadyQueue queue;
  const auto popped = queue.Pop(ReadyQueue::Wait::kUntilDeadline,
                                Clock::now() + std::chrono::milliseconds(5), [] { return false; });
  EXPECT_TRUE(popped.timed_out);
  EXPECT_FALSE(popped.blocked);
  EXPECT_FALSE(popped.batch.has_value());
  // A batch that is there is returned whatever the deadline.
  queue.Push(FilledBatch{3, 0, 1, std::nullopt});
  const auto ready =
      queue.Pop(ReadyQueue::Wait::kUntilDeadline, Clock::now(), [] { return false; });
  ASSERT_TRUE(ready.batch.has_value());
  EXPECT_EQ(ready.batch->batch, 3);
}

TEST(ReadyQueueTest, PopReturnsAtOnceWhenNoBatchCanArrive) {
  ReadyQueue queue;
  const auto popped = queue.Pop(ReadyQueue::Wait::kForever, {}, [] { return true; });
  EXPECT_TRUE(popped.blocked);
  EXPECT_FALSE(popped.batch.has_value());
  // A queued batch is served even then: it already has its buffer.
  queue.Push(FilledBatch{0, 0, 1, std::nullopt});
  EXPECT_TRUE(queue.Pop(ReadyQueue::Wait::kForever, {}, [] { return true; }).batch.has_value());
}

TEST(ReadyQueueTest, CloseWakesAWaiterWithNothing) {
  ReadyQueue queue;
  queue.Close();
  const auto popped = queue.Pop(ReadyQueue::Wait::kForever, {}, [] { return false; });
  EXPECT_FALSE(popped.batch.has_value());
  EXPECT_FALSE(popped.blocked);
  EXPECT_FALSE(popped.timed_out);
}

}  // namespace
}  // namespace segfeed::pipeline
