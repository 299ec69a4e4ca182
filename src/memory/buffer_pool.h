#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "memory/pinned_buffer.h"
#include "mutex.h"
#include "thread_annotations.h"

namespace segfeed::memory {

// A fixed set of equally sized batch buffers, allocated once at
// construction and never grown: the pool is the memory bound of the loader.
// Buffers are named by index; ownership of an index moves between the free
// list, the pipeline and the consumer's lease.
//
// Thread-safe. A "return listener" lets a running pipeline receive buffers
// the moment they are released, instead of polling the free list.
class BufferPool {
 public:
  // `buffer_count` >= 1 buffers of `buffer_bytes` >= 1 each, all of one
  // kind. With PinnedMode::kAuto, when pinning succeeds for the first
  // buffers but not for all (a memlock limit that fits one), the whole pool
  // is pageable and fallback_reason() says why; other modes throw
  // ConfigError as PinnedBuffer does.
  BufferPool(int buffer_count, size_t buffer_bytes, PinnedMode mode);
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  int buffer_count() const { return static_cast<int>(buffers_.size()); }
  size_t buffer_bytes() const { return buffer_bytes_; }
  // Bytes actually allocated: buffer_count() x buffer_bytes().
  size_t total_bytes() const { return buffers_.size() * buffer_bytes_; }
  PoolKind kind() const { return buffers_.front().kind(); }
  // Why the pool is not of the requested kind; empty when it is.
  const std::string& fallback_reason() const { return fallback_reason_; }
  std::byte* data(int index) const { return buffers_[index].data(); }

  // Takes a free buffer, or nothing when all are in use. Never blocks.
  // A seam for tests and bench/pool_bench.cc: the loader never calls it,
  // its buffers reach the pipeline through SetReturnListener().
  std::optional<int> TryAcquire() EXCLUDES(mu_);
  // Gives buffer `index` back: to the listener if one is set, else to the
  // free list.
  void Release(int index) EXCLUDES(mu_);
  int free_count() const EXCLUDES(mu_);

  // From now on released buffers go to `listener` (called with the pool's
  // lock held: it must not call back into the pool); the buffers free right
  // now are handed to it at once.
  void SetReturnListener(std::function<void(int)> listener) EXCLUDES(mu_);
  // Released buffers go to the free list again.
  void ClearReturnListener() EXCLUDES(mu_);

 private:
  size_t buffer_bytes_;
  std::vector<PinnedBuffer> buffers_;
  std::string fallback_reason_;
  mutable Mutex mu_;
  std::vector<int> free_ GUARDED_BY(mu_);
  std::function<void(int)> return_listener_ GUARDED_BY(mu_);
};

}  // namespace segfeed::memory
