#include "memory/cuda_driver.h"

#include <dlfcn.h>

#include <string>

namespace segfeed::memory {

namespace {

// The few driver types and constants used here, declared rather than taken
// from <cuda.h>: the driver's C ABI is stable across releases, and not
// needing the header lets segfeed build (a wheel included) without the CUDA
// toolkit, then use whatever driver the machine it runs on has.
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;  // opaque
constexpr CUresult kCudaSuccess = 0;
constexpr unsigned kCuMemHostAllocPortable = 0x01;  // CU_MEMHOSTALLOC_PORTABLE

constexpr const char* kLibrary = "libcuda.so.1";

}  // namespace

struct CudaDriver::Api {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuCtxPushCurrent)(CUcontext context);
  CUresult (*cuCtxPopCurrent)(CUcontext* context);
  CUresult (*cuMemHostAlloc)(void** p, size_t bytes, unsigned flags);
  CUresult (*cuMemFreeHost)(void* p);
  CUresult (*cuGetErrorName)(CUresult result, const char** name);       // optional
  CUresult (*cuGetErrorString)(CUresult result, const char** message);  // optional
};

namespace {

template <typename F>
bool Resolve(void* library, const char* symbol, F* f, std::string* why_not) {
  *f = reinterpret_cast<F>(dlsym(library, symbol));
  if (*f == nullptr && why_not->empty()) *why_not = std::string(kLibrary) + " lacks " + symbol;
  return *f != nullptr;
}

}  // namespace

const CudaDriver& CudaDriver::Get() {
  // Never destroyed: buffers freed during exit still find the driver.
  static const CudaDriver* const driver = new CudaDriver();
  return *driver;
}

CudaDriver::CudaDriver() {
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    why_not_ = std::string(kLibrary) + " not loadable: " + (error ? error : "unknown error");
    return;
  }
  auto* api = new Api{};  // kept, like the library, for the process's life
  bool ok = true;
  ok &= Resolve(library, "cuInit", &api->cuInit, &why_not_);
  ok &= Resolve(library, "cuDeviceGetCount", &api->cuDeviceGetCount, &why_not_);
  ok &= Resolve(library, "cuDeviceGet", &api->cuDeviceGet, &why_not_);
  ok &= Resolve(library, "cuDevicePrimaryCtxRetain", &api->cuDevicePrimaryCtxRetain, &why_not_);
  ok &= Resolve(library, "cuCtxPushCurrent_v2", &api->cuCtxPushCurrent, &why_not_);
  ok &= Resolve(library, "cuCtxPopCurrent_v2", &api->cuCtxPopCurrent, &why_not_);
  ok &= Resolve(library, "cuMemHostAlloc", &api->cuMemHostAlloc, &why_not_);
  ok &= Resolve(library, "cuMemFreeHost", &api->cuMemFreeHost, &why_not_);
  api->cuGetErrorName =
      reinterpret_cast<decltype(api->cuGetErrorName)>(dlsym(library, "cuGetErrorName"));
  api->cuGetErrorString =
      reinterpret_cast<decltype(api->cuGetErrorString)>(dlsym(library, "cuGetErrorString"));
  if (!ok) {
    delete api;
    return;
  }
  api_ = api;

  if (const CUresult rc = api_->cuInit(0); rc != kCudaSuccess) {
    why_not_ = "cuInit failed: " + Describe(rc);
    return;
  }
  int devices = 0;
  if (const CUresult rc = api_->cuDeviceGetCount(&devices); rc != kCudaSuccess) {
    why_not_ = "cuDeviceGetCount failed: " + Describe(rc);
    return;
  }
  if (devices < 1) {
    why_not_ = "no CUDA device";
    return;
  }
  CUdevice device = 0;
  if (const CUresult rc = api_->cuDeviceGet(&device, 0); rc != kCudaSuccess) {
    why_not_ = "cuDeviceGet failed: " + Describe(rc);
    return;
  }
  CUcontext context = nullptr;
  if (const CUresult rc = api_->cuDevicePrimaryCtxRetain(&context, device); rc != kCudaSuccess) {
    why_not_ = "cuDevicePrimaryCtxRetain failed: " + Describe(rc);
    return;
  }
  context_ = context;
}

std::string CudaDriver::Describe(int result) const {
  const char* name = nullptr;
  if (api_->cuGetErrorName == nullptr || api_->cuGetErrorName(result, &name) != kCudaSuccess ||
      name == nullptr)
    name = "CUDA error";
  std::string text = std::string(name) + " (" + std::to_string(result) + ")";
  const char* message = nullptr;
  if (api_->cuGetErrorString != nullptr &&
      api_->cuGetErrorString(result, &message) == kCudaSuccess && message != nullptr)
    text += std::string(": ") + message;
  return text;
}

void* CudaDriver::HostAlloc(size_t bytes, std::string* why_not) const {
  if (!usable()) {
    *why_not = why_not_;
    return nullptr;
  }
  auto context = static_cast<CUcontext>(context_);
  if (const CUresult rc = api_->cuCtxPushCurrent(context); rc != kCudaSuccess) {
    *why_not = "cuCtxPushCurrent failed: " + Describe(rc);
    return nullptr;
  }
  void* p = nullptr;
  const CUresult rc = api_->cuMemHostAlloc(&p, bytes, kCuMemHostAllocPortable);
  CUcontext popped = nullptr;
  api_->cuCtxPopCurrent(&popped);
  if (rc != kCudaSuccess) {
    *why_not = "cuMemHostAlloc failed: " + Describe(rc);
    return nullptr;
  }
  if (p == nullptr) *why_not = "cuMemHostAlloc failed: it returned no memory";
  return p;
}

void CudaDriver::HostFree(void* p) const noexcept {
  if (p == nullptr || api_ == nullptr) return;
  auto context = static_cast<CUcontext>(context_);
  const bool pushed = api_->cuCtxPushCurrent(context) == kCudaSuccess;
  api_->cuMemFreeHost(p);
  if (pushed) {
    CUcontext popped = nullptr;
    api_->cuCtxPopCurrent(&popped);
  }
}

}  // namespace segfeed::memory
