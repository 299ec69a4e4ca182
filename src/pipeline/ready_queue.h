#pragma once

#include <condition_variable>
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
  std::optional<FilledBatch> Pop();
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
