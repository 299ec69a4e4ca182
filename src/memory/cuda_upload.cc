#include "segfeed/cuda_upload.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "build_config.h"

#if SEGFEED_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace segfeed {

#if SEGFEED_HAVE_CUDA

namespace {

void Check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw std::runtime_error(std::string("UploadAsync: ") + what + ": " + cudaGetErrorString(rc));
}

// Runs on a CUDA driver thread once the copies before it on the stream are
// done. It makes no CUDA calls (not allowed there): releasing a lease only
// hands an index back to the pool.
void ReleaseLease(void* lease) { delete static_cast<Lease*>(lease); }

}  // namespace

void UploadAsync(Lease lease, void* device_images, void* device_masks, void* cuda_stream) {
  auto stream = static_cast<cudaStream_t>(cuda_stream);
  Check(cudaMemcpyAsync(device_images, lease.images().data, lease.images().bytes(),
                        cudaMemcpyHostToDevice, stream),
        "copying images");
  Check(cudaMemcpyAsync(device_masks, lease.masks().data, lease.masks().bytes(),
                        cudaMemcpyHostToDevice, stream),
        "copying masks");
  auto owned = std::make_unique<Lease>(std::move(lease));
  Check(cudaLaunchHostFunc(stream, ReleaseLease, owned.get()), "scheduling the release");
  static_cast<void>(owned.release());  // the callback owns it now
}

#else

void UploadAsync(Lease lease, void*, void*, void*) {
  (void)lease;  // released here
  throw std::runtime_error(
      "UploadAsync: segfeed was built without the CUDA runtime (SEGFEED_CUDA=OFF or not found)");
}

#endif

}  // namespace segfeed
