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
// a test can switch kernels between calls (SetAvx2KernelsForTesting).
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

// Test seam, for tests only (tests/augment/one_pixel_kernels.h wraps it in
// a scope): switches every later kernel call in the process to the AVX2
// kernels (when the CPU has them) or the one-pixel ones, so that one test
// process can compare both paths. Not for use while other threads run
// kernels. Returns the previous choice. Production code never calls it: the
// choice is the CPU's, or SEGFEED_NO_AVX2's.
inline bool SetAvx2KernelsForTesting([[maybe_unused]] bool enabled) {
#ifdef SEGFEED_HAVE_AVX2_PATH
  return use_avx2.exchange(enabled && __builtin_cpu_supports("avx2"), std::memory_order_relaxed);
#else
  return false;
#endif
}

}  // namespace segfeed::internal
