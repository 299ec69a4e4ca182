#include "pipeline/ready_queue.h"

#include <utility>

namespace segfeed::internal {

void ReadyQueue::Push(FilledBatch batch) {
  {
    std::lock_guard lock(mu_);
    batches_.push_back(std::move(batch));
  }
  ready_.notify_one();
}

std::optional<FilledBatch> ReadyQueue::Pop() {
  std::unique_lock lock(mu_);
  ready_.wait(lock, [this] { return !batches_.empty() || closed_; });
  if (batches_.empty()) return std::nullopt;
  FilledBatch batch = std::move(batches_.front());
  batches_.pop_front();
  return batch;
}

void ReadyQueue::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  ready_.notify_all();
}

void ReadyQueue::Reopen() {
  std::lock_guard lock(mu_);
  closed_ = false;
}

std::vector<FilledBatch> ReadyQueue::Drain() {
  std::lock_guard lock(mu_);
  std::vector<FilledBatch> drained(std::make_move_iterator(batches_.begin()),
                                   std::make_move_iterator(batches_.end()));
  batches_.clear();
  return drained;
}

}  // namespace segfeed::internal
