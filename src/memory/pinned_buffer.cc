#include "memory/pinned_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "memory/cuda_driver.h"
#include "segfeed/errors.h"

namespace segfeed {

std::string_view PoolKindName(PoolKind kind) {
  switch (kind) {
    case PoolKind::kCudaHost:
      return "cuda_host";
    case PoolKind::kMlocked:
      return "mlocked";
    case PoolKind::kPageable:
      return "pageable";
  }
  return "unknown";
}

namespace memory {

bool CudaDeviceAvailable(std::string* why_not) {
  const CudaDriver& driver = CudaDriver::Get();
  if (!driver.usable()) *why_not = driver.why_not();
  return driver.usable();
}

PinnedBuffer::PinnedBuffer(size_t bytes, PinnedMode mode) : bytes_(bytes) {
  std::string why_not;
  if (mode == PinnedMode::kCuda || mode == PinnedMode::kAuto) {
    if (void* p = CudaDriver::Get().HostAlloc(bytes, &why_not)) {
      data_ = static_cast<std::byte*>(p);
      kind_ = PoolKind::kCudaHost;
      std::memset(data_, 0, bytes_);
      return;
    }
    if (mode == PinnedMode::kCuda) throw ConfigError("pinned=cuda is impossible: " + why_not);
    fallback_reason_ = why_not;
  }

  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  mapped_bytes_ = (bytes + page - 1) / page * page;
  void* p =
      mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(p);
  kind_ = PoolKind::kPageable;
  if (mode != PinnedMode::kOff) {
    if (mlock(data_, mapped_bytes_) == 0) {
      kind_ = PoolKind::kMlocked;
    } else {
      const std::string reason = std::string("mlock failed: ") + std::strerror(errno) +
                                 " (raise RLIMIT_MEMLOCK, e.g. ulimit -l)";
      if (mode == PinnedMode::kMlock) {
        Release();
        throw ConfigError("pinned=mlock is impossible: " + reason);
      }
      fallback_reason_ += (fallback_reason_.empty() ? "" : "; ") + reason;
    }
  }
  // Touch every page now (mlock already did for kMlocked), so that the first
  // batch costs the same as every later one.
  std::memset(data_, 0, mapped_bytes_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      kind_(other.kind_),
      fallback_reason_(std::move(other.fallback_reason_)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    kind_ = other.kind_;
    fallback_reason_ = std::move(other.fallback_reason_);
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() { Release(); }

void PinnedBuffer::Release() noexcept {
  if (!data_) return;
  if (kind_ == PoolKind::kCudaHost) {
    CudaDriver::Get().HostFree(data_);
  } else {
    // munmap also drops the lock of an mlocked range.
    munmap(data_, mapped_bytes_);
  }
  data_ = nullptr;
}

}  // namespace memory
}  // namespace segfeed
