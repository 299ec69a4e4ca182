#include "pipeline/ready_queue.h"

#include <utility>

namespace segfeed::pipeline {

void ReadyQueue::Push(FilledBatch batch) {
  {
    MutexLock lock(&mu_);
    batches_.push_back(std::move(batch));
  }
  ready_.NotifyOne();
}

ReadyQueue::Popped ReadyQueue::Pop(Wait wait, std::chrono::steady_clock::time_point deadline,
                                   const std::function<bool()>& cannot_arrive) {
  Popped popped;
  MutexLock lock(&mu_);
  // Asked once: only the consumer takes buffers, and it is the one waiting
  // here, so a batch that can arrive now still can later.
  if (batches_.empty() && !closed_ && cannot_arrive()) {
    popped.blocked = true;
    return popped;
  }
  while (!Ready()) {
    if (wait == Wait::kForever) {
      ready_.Wait();
    } else if (!ready_.WaitUntil(deadline) && !Ready()) {
      popped.timed_out = true;
      return popped;
    }
  }
  if (batches_.empty()) return popped;
  popped.batch = std::move(batches_.front());
  batches_.pop_front();
  return popped;
}

void ReadyQueue::Close() {
  {
    MutexLock lock(&mu_);
    closed_ = true;
  }
  ready_.NotifyAll();
}

void ReadyQueue::Reopen() {
  MutexLock lock(&mu_);
  closed_ = false;
}

std::vector<FilledBatch> ReadyQueue::Drain() {
  MutexLock lock(&mu_);
  std::vector<FilledBatch> drained(std::make_move_iterator(batches_.begin()),
                                   std::make_move_iterator(batches_.end()));
  batches_.clear();
  return drained;
}

}  // namespace segfeed::pipeline
