#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "pipeline/batch_graph.h"

namespace segfeed::internal {

// Completed batches waiting for the consumer, in batch order. It never holds
// more than the pool has buffers, since every batch in it owns one.
// Thread-safe: the graph pushes, the consumer pops.
class ReadyQueue {
 public:
  void Push(FilledBatch batch);
  // Waits for the next batch; nothing once Close() was called and the queue
  // is empty.
  std::optional<FilledBatch> Pop() {
    return Pop(Wait::kForever, {}, [] { return false; }).batch;
  }

  enum class Wait { kForever, kUntilDeadline };
  struct Popped {
    std::optional<FilledBatch> batch;  // empty when closed, timed out or blocked
    bool timed_out = false;
    bool blocked = false;  // `cannot_arrive` said no batch can come
  };
  // Waits for the next batch (until `deadline` when asked); nothing once
  // Close() was called and the queue is empty. When the queue is empty,
  // `cannot_arrive` is asked first: when it says no batch can come (the
  // consumer holds every buffer), Pop returns at once with `blocked`.
  Popped Pop(Wait wait, std::chrono::steady_clock::time_point deadline,
             const std::function<bool()>& cannot_arrive);
  // Wakes every waiter; later pushes are still accepted (and drained).
  void Close();
  // Reopens for a new epoch.
  void Reopen();
  // Takes whatever is queued, without waiting.
  std::vector<FilledBatch> Drain();

 private:
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<FilledBatch> batches_;  // guarded by mu_
  bool closed_ = false;              // guarded by mu_
};

}  // namespace segfeed::internal
