#pragma once

#include <cstddef>
#include <string>

#include "segfeed/memory.h"

namespace segfeed::memory {

// One block of host memory for batches, allocated once and owned for life.
// Every page is touched at construction, so filling a batch never pays a
// first-touch page fault. Move-only; the destructor frees with the call that
// matches the allocation (cuMemFreeHost, munlock + munmap, munmap).
class PinnedBuffer {
 public:
  // Allocates `bytes` (> 0) following `mode`. With kAuto it falls back from
  // CUDA to mlock to pageable and records why in fallback_reason(). With
  // kCuda or kMlock it throws ConfigError when that kind is impossible, and
  // std::bad_alloc when memory itself is exhausted.
  PinnedBuffer(size_t bytes, PinnedMode mode);
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  std::byte* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  PoolKind kind() const { return kind_; }
  // Empty when the requested kind was used; otherwise why a fallback was.
  const std::string& fallback_reason() const { return fallback_reason_; }

 private:
  void Release() noexcept;

  std::byte* data_ = nullptr;
  size_t bytes_ = 0;
  size_t mapped_bytes_ = 0;  // bytes rounded up to whole pages (mmap kinds)
  PoolKind kind_ = PoolKind::kPageable;
  std::string fallback_reason_;
};

// True when the CUDA driver (libcuda.so.1, loaded at run time; see
// cuda_driver.h) is usable and reports at least one device. Sets `why_not`
// to the driver's reason otherwise.
bool CudaDeviceAvailable(std::string* why_not);

}  // namespace segfeed::memory
