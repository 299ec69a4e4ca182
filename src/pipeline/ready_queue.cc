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

ReadyQueue::Popped ReadyQueue::Pop(Wait wait, std::chrono::steady_clock::time_point deadline,
                                   const std::function<bool()>& cannot_arrive) {
  Popped popped;
  std::unique_lock lock(mu_);
  // Asked once: only the consumer takes buffers, and it is the one waiting
  // here, so a batch that can arrive now still can later.
  if (batches_.empty() && !closed_ && cannot_arrive()) {
    popped.blocked = true;
    return popped;
  }
  const auto ready = [this] { return !batches_.empty() || closed_; };
  if (wait == Wait::kForever) {
    ready_.wait(lock, ready);
  } else if (!ready_.wait_until(lock, deadline, ready)) {
    popped.timed_out = true;
    return popped;
  }
  if (batches_.empty()) return popped;
  popped.batch = std::move(batches_.front());
  batches_.pop_front();
  return popped;
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
