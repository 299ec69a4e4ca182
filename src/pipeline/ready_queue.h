#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "mutex.h"
#include "pipeline/batch_graph.h"
#include "thread_annotations.h"

namespace segfeed::pipeline {

// Completed batches waiting for the consumer, in batch order. It never holds
// more than the pool has buffers, since every batch in it owns one.
// Thread-safe: the graph pushes, the consumer pops.
class ReadyQueue {
 public:
  void Push(FilledBatch batch) EXCLUDES(mu_);
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
             const std::function<bool()>& cannot_arrive) EXCLUDES(mu_);
  // Wakes every waiter; later pushes are still accepted (and drained).
  void Close() EXCLUDES(mu_);
  // Reopens for a new epoch.
  void Reopen() EXCLUDES(mu_);
  // Takes whatever is queued, without waiting.
  std::vector<FilledBatch> Drain() EXCLUDES(mu_);

 private:
  bool Ready() const REQUIRES(mu_) { return !batches_.empty() || closed_; }

  Mutex mu_;
  CondVar ready_{&mu_};
  std::deque<FilledBatch> batches_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
};

}  // namespace segfeed::pipeline
