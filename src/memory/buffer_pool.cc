#include "memory/buffer_pool.h"

#include <cassert>
#include <string>
#include <utility>

#include "segfeed/errors.h"

namespace segfeed::memory {

BufferPool::BufferPool(int buffer_count, size_t buffer_bytes, PinnedMode mode)
    : buffer_bytes_(buffer_bytes) {
  assert(buffer_count >= 1 && buffer_bytes >= 1);
  buffers_.reserve(buffer_count);
  // The first buffer decides the kind; the others must match it, so a pool
  // never mixes pinned and pageable memory.
  buffers_.emplace_back(buffer_bytes, mode);
  fallback_reason_ = buffers_.front().fallback_reason();
  PinnedMode same_kind = PinnedMode::kOff;
  if (buffers_.front().kind() == PoolKind::kCudaHost) same_kind = PinnedMode::kCuda;
  if (buffers_.front().kind() == PoolKind::kMlocked) same_kind = PinnedMode::kMlock;
  try {
    for (int i = 1; i < buffer_count; ++i) buffers_.emplace_back(buffer_bytes, same_kind);
  } catch (const ConfigError& e) {
    // Pinning ran out part way (the memlock limit fits some buffers, not
    // all). A requested kind stays an error; auto takes plain pages for the
    // whole pool.
    if (mode != PinnedMode::kAuto) throw;
    const size_t pinned = buffers_.size();
    buffers_.clear();
    for (int i = 0; i < buffer_count; ++i) buffers_.emplace_back(buffer_bytes, PinnedMode::kOff);
    fallback_reason_ += (fallback_reason_.empty() ? "" : "; ") + std::string(e.what()) +
                        " for buffer " + std::to_string(pinned + 1) + " of " +
                        std::to_string(buffer_count) + ", so the whole pool is pageable";
  }
  // Hand out low indices first: makes traces easier to read.
  for (int i = buffer_count - 1; i >= 0; --i) free_.push_back(i);
}

std::optional<int> BufferPool::TryAcquire() {
  MutexLock lock(&mu_);
  if (free_.empty()) return std::nullopt;
  const int index = free_.back();
  free_.pop_back();
  return index;
}

void BufferPool::Release(int index) {
  assert(index >= 0 && index < buffer_count());
  MutexLock lock(&mu_);
  if (return_listener_) {
    return_listener_(index);
  } else {
    free_.push_back(index);
  }
}

int BufferPool::free_count() const {
  MutexLock lock(&mu_);
  return static_cast<int>(free_.size());
}

void BufferPool::SetReturnListener(std::function<void(int)> listener) {
  MutexLock lock(&mu_);
  return_listener_ = std::move(listener);
  while (!free_.empty()) {
    const int index = free_.back();
    free_.pop_back();
    return_listener_(index);
  }
}

void BufferPool::ClearReturnListener() {
  MutexLock lock(&mu_);
  return_listener_ = nullptr;
}

}  // namespace segfeed::memory
