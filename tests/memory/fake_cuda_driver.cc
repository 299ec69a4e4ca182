// A fake CUDA driver, built as a test-only libcuda.so.1. It exists because
// no GPU (and no NVIDIA driver) is available where the tests run: it checks
// segfeed's binding to the driver (memory/cuda_driver.cc: dlopen, the entry
// points it resolves, the context pushed around each call, every allocation
// freed), not CUDA itself. Host "pinned" memory is plain aligned_alloc.
// Built twice: as a driver with one device, and with FAKE_CUDA_NO_DEVICE as
// one whose cuInit fails with CUDA_ERROR_NO_DEVICE.

#include <atomic>
#include <cstdlib>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;      // CUDA_ERROR_INVALID_VALUE
constexpr int kNotInitialized = 3;    // CUDA_ERROR_NOT_INITIALIZED
constexpr int kNoDevice = 100;        // CUDA_ERROR_NO_DEVICE
constexpr int kInvalidContext = 201;  // CUDA_ERROR_INVALID_CONTEXT
constexpr unsigned kPortable = 0x01;  // CU_MEMHOSTALLOC_PORTABLE
constexpr std::size_t kAlignment = 4096;

int primary_context;  // its address is the one context handed out
std::atomic<bool> initialised{false};
std::atomic<long> live_allocations{0};
thread_local void* current_context = nullptr;  // a stack of depth one is enough here

}  // namespace

extern "C" {

// For the tests (found with dlsym): allocations not yet freed.
__attribute__((visibility("default"))) long fake_cuda_live_allocations() {
  return live_allocations.load();
}

__attribute__((visibility("default"))) int cuInit(unsigned flags) {
  if (flags != 0) return kInvalidValue;
#ifdef FAKE_CUDA_NO_DEVICE
  return kNoDevice;
#else
  initialised = true;
  return kSuccess;
#endif
}

__attribute__((visibility("default"))) int cuDeviceGetCount(int* count) {
  if (!initialised) return kNotInitialized;
  *count = 1;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuDeviceGet(int* device, int ordinal) {
  if (!initialised) return kNotInitialized;
  if (ordinal != 0) return kInvalidValue;
  *device = 0;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuDevicePrimaryCtxRetain(void** context, int device) {
  if (!initialised) return kNotInitialized;
  if (device != 0) return kInvalidValue;
  *context = &primary_context;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuCtxPushCurrent_v2(void* context) {
  if (context != &primary_context || current_context != nullptr) return kInvalidContext;
  current_context = context;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuCtxPopCurrent_v2(void** context) {
  if (current_context == nullptr) return kInvalidContext;
  if (context != nullptr) *context = current_context;
  current_context = nullptr;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuMemHostAlloc(void** p, std::size_t bytes,
                                                          unsigned flags) {
  if (current_context != &primary_context) return kInvalidContext;
  if (flags != kPortable || bytes == 0) return kInvalidValue;
  *p = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  if (*p == nullptr) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  ++live_allocations;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuMemFreeHost(void* p) {
  if (current_context != &primary_context) return kInvalidContext;
  std::free(p);
  --live_allocations;
  return kSuccess;
}

__attribute__((visibility("default"))) int cuGetErrorName(int result, const char** name) {
  switch (result) {
    case kNoDevice:
      *name = "CUDA_ERROR_NO_DEVICE";
      return kSuccess;
    case kInvalidContext:
      *name = "CUDA_ERROR_INVALID_CONTEXT";
      return kSuccess;
  }
  return kInvalidValue;
}

}  // extern "C"
