#pragma once

#include <cstddef>
#include <string>

namespace segfeed::memory {

// The CUDA driver (libcuda.so.1), loaded with dlopen on first use rather than
// linked: a build without the CUDA toolkit (a Python wheel, say) still gets
// page-locked host memory wherever an NVIDIA driver is installed. Loading,
// cuInit and the retain of device 0's primary context happen once per process
// (thread-safe); the context is kept for the process's life. Nothing is
// unloaded, so memory from HostAlloc may be freed at any time, exit included.
class CudaDriver {
 public:
  // The process's driver, loaded on the first call.
  static const CudaDriver& Get();

  // True when the driver loaded, initialised and reports at least one device.
  bool usable() const { return why_not_.empty(); }
  // Why the driver is unusable ("libcuda.so.1 not loadable: ...", "cuInit
  // failed: ...", "no CUDA device", ...); empty when usable().
  const std::string& why_not() const { return why_not_; }

  // Page-locked host memory, portable across contexts (cuMemHostAlloc with
  // CU_MEMHOSTALLOC_PORTABLE in device 0's primary context). Returns nullptr
  // and sets `why_not` when the driver is unusable or the allocation fails.
  void* HostAlloc(size_t bytes, std::string* why_not) const;
  // Frees memory from HostAlloc (cuMemFreeHost); nullptr is ignored.
  void HostFree(void* p) const noexcept;

  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

 private:
  struct Api;
  CudaDriver();

  // The error's name and number, and the driver's text when it has one:
  // "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected".
  std::string Describe(int result) const;

  const Api* api_ = nullptr;  // resolved entry points; null when not loadable
  void* context_ = nullptr;   // device 0's primary context (a CUcontext)
  std::string why_not_;
};

}  // namespace segfeed::memory
