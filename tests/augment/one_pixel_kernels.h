#pragma once

#include "augment/avx2_dispatch.h"

namespace segfeed::internal {

// The one-pixel kernels while it lives, so that one test process can
// compare them with the AVX2 kernels. Not for use while other threads run
// kernels (it flips a process-wide choice through SetAvx2KernelsForTesting).
class ScopedOnePixelKernels {
 public:
  ScopedOnePixelKernels() : saved_(SetAvx2KernelsForTesting(false)) {}
  ~ScopedOnePixelKernels() { SetAvx2KernelsForTesting(saved_); }
  ScopedOnePixelKernels(const ScopedOnePixelKernels&) = delete;
  ScopedOnePixelKernels& operator=(const ScopedOnePixelKernels&) = delete;

 private:
  bool saved_;
};

}  // namespace segfeed::internal
