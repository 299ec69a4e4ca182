#pragma once

// Run-time choice between the AVX2 kernels of the augment stage and their
// one-pixel versions. Binaries target baseline x86-64; the AVX2 functions
// carry __attribute__((target("avx2"))) and run only where the CPU has it.
// Every AVX2 kernel gives the same bytes as its scalar version, so the
// choice changes speed, never results.
//
// __builtin_cpu_supports rather than target_clones: the check runs when
// called, not in an ifunc resolver during relocation, which runs before the
// ThreadSanitizer runtime is up and crashes every program under TSan.

#include <atomic>
#include <cstdlib>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SEGFEED_HAVE_AVX2_PATH 1
#endif

namespace segfeed::internal {

#ifdef SEGFEED_HAVE_AVX2_PATH
// Decided once per process: the CPU's answer, unless SEGFEED_NO_AVX2 is set
// in the environment, which forces the one-pixel kernels (a test uses it to
// check that the whole stream's bytes do not change). Atomic only so that
// a test can switch kernels between calls (ScopedOnePixelKernels).
inline std::atomic<bool> use_avx2{[] {
  __builtin_cpu_init();  // may run before libgcc's own constructor
  return __builtin_cpu_supports("avx2") && std::getenv("SEGFEED_NO_AVX2") == nullptr;
}()};
#endif

inline bool CpuHasAvx2() {
#ifdef SEGFEED_HAVE_AVX2_PATH
  return use_avx2.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

// Tests: the one-pixel kernels while it lives, so that one process can
// compare both paths. Not for use while other threads run kernels.
class ScopedOnePixelKernels {
 public:
  ScopedOnePixelKernels() {
#ifdef SEGFEED_HAVE_AVX2_PATH
    use_avx2.store(false, std::memory_order_relaxed);
#endif
  }
  ~ScopedOnePixelKernels() {
#ifdef SEGFEED_HAVE_AVX2_PATH
    use_avx2.store(saved_, std::memory_order_relaxed);
#endif
  }
  ScopedOnePixelKernels(const ScopedOnePixelKernels&) = delete;
  ScopedOnePixelKernels& operator=(const ScopedOnePixelKernels&) = delete;

 private:
  [[maybe_unused]] bool saved_ = CpuHasAvx2();
};

}  // namespace segfeed::internal
