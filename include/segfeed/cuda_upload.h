#pragma once

#include <cstddef>

#include "segfeed/batch.h"
#include "segfeed/export.h"

namespace segfeed {

// Copies a leased batch into device memory asynchronously on a CUDA stream
// and keeps the lease (and so its pinned buffer) alive until the copy has
// completed; the buffer then goes back to the loader's pool by itself.
//
// `device_images` and `device_masks` must hold lease.images().bytes() and
// lease.masks().bytes(); `cuda_stream` is a cudaStream_t (nullptr for the
// default stream), passed untyped so this header needs no CUDA headers.
// From pinned pool memory (PoolKind::kCudaHost) the copy is truly
// asynchronous; from other kinds CUDA stages it and the call may block.
//
// Throws std::runtime_error when segfeed was built without the CUDA runtime
// or CUDA refuses the copy (no device, bad pointers), naming the reason; the
// lease is released in that case.
SEGFEED_EXPORT void UploadAsync(Lease lease, void* device_images, void* device_masks,
                                void* cuda_stream);

}  // namespace segfeed
