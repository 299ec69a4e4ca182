#pragma once

#include <string_view>

namespace segfeed {

// Where batch buffers may come from. Pinned (page-locked) host memory lets a
// GPU copy run asynchronously and at full bus speed.
enum class PinnedMode {
  kAuto,   // cudaHostAlloc if built with CUDA and a GPU is present, else mlock, else plain
  kCuda,   // cudaHostAlloc or fail at construction
  kMlock,  // page-aligned memory locked with mlock, or fail at construction
  kOff,    // plain page-aligned memory
};

// Where the batch buffers actually came from; always reported, never silent.
enum class PoolKind {
  kCudaHost,  // cudaHostAlloc: pinned and registered with the CUDA driver
  kMlocked,   // page-aligned and locked in RAM with mlock
  kPageable,  // page-aligned, may be swapped; GPU copies go through a staging buffer
};

// "auto", "cuda", "mlock", "off".
std::string_view PinnedModeName(PinnedMode mode);
// "cuda_host", "mlocked", "pageable".
std::string_view PoolKindName(PoolKind kind);

}  // namespace segfeed
