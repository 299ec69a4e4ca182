#pragma once

// Scopes over the augment stage's test seam (SetKernelChoiceForTesting in
// src/augment/simd_dispatch.h): narrower kernels while a scope lives, the
// previous choice after, so that one process compares every width. Not for
// use while other threads run kernels.

#include "augment/simd_dispatch.h"

namespace segfeed::augment {

class ScopedKernelChoice {
 public:
  explicit ScopedKernelChoice(KernelChoice choice) { SetKernelChoiceForTesting(choice); }
  ~ScopedKernelChoice() { SetKernelChoiceForTesting(saved_); }
  ScopedKernelChoice(const ScopedKernelChoice&) = delete;
  ScopedKernelChoice& operator=(const ScopedKernelChoice&) = delete;

 private:
  KernelChoice saved_ = KernelChoiceForTesting();  // initialised before the body runs
};

// The one-pixel kernels.
class ScopedOnePixelKernels : public ScopedKernelChoice {
 public:
  ScopedOnePixelKernels() : ScopedKernelChoice({.avx2 = false, .avx512 = false}) {}
};

// The AVX2 kernels where the CPU has them, not the AVX-512 ones.
class ScopedAvx2Kernels : public ScopedKernelChoice {
 public:
  ScopedAvx2Kernels()
      : ScopedKernelChoice({.avx2 = KernelChoiceForTesting().avx2, .avx512 = false}) {}
};

}  // namespace segfeed::augment
