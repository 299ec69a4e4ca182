#pragma once

// Run-time choice between the AVX-512 and AVX2 kernels of the augment stage
// and their one-pixel versions. Binaries target baseline x86-64; the vector
// functions carry __attribute__((target(...))) and run only where the CPU
// has the instructions. Every vector kernel gives the same bytes as its
// scalar version, so the choice changes speed, never results.
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
// The target of the AVX-512 kernels: F and BW (512-bit byte and word
// operations and mask registers), VL and DQ for the narrower forms the
// compiler may pick, and FMA, which AVX-512 CPUs all have.
#define SEGFEED_AVX512_TARGET "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq"

// Around AVX-512 kernels: GCC 12's intrinsics fill unused lanes from a
// self-initialised vector (_mm512_undefined_*), which -Wuninitialized
// reports wherever such an intrinsic is inlined. The value is never read.
// Clang has neither the false alarm nor -Wmaybe-uninitialized.
#if defined(__clang__)
#define SEGFEED_AVX512_BEGIN
#define SEGFEED_AVX512_END
#else
#define SEGFEED_AVX512_BEGIN                                                           \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wuninitialized\"") \
      _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define SEGFEED_AVX512_END _Pragma("GCC diagnostic pop")
#endif

// Decided once per process: the CPU's answer, unless SEGFEED_NO_AVX2 is set
// in the environment, which forces the one-pixel kernels (a test uses it to
// check that the whole stream's bytes do not change). Atomic only so that
// a test can switch kernels between calls (SetKernelChoiceForTesting).
inline std::atomic<bool> use_avx2{[] {
  __builtin_cpu_init();  // may run before libgcc's own constructor
  return __builtin_cpu_supports("avx2") && std::getenv("SEGFEED_NO_AVX2") == nullptr;
}()};
// The same for the AVX-512 kernels; SEGFEED_NO_AVX512 forces the AVX2 ones
// (where the CPU has AVX2). Used only while use_avx2 is also set.
inline std::atomic<bool> use_avx512{[] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("fma") && std::getenv("SEGFEED_NO_AVX512") == nullptr;
}()};
#endif

inline bool CpuHasAvx2() {
#ifdef SEGFEED_HAVE_AVX2_PATH
  return use_avx2.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

// True where the AVX-512 kernels run: implies CpuHasAvx2().
inline bool CpuHasAvx512() {
#ifdef SEGFEED_HAVE_AVX2_PATH
  return use_avx512.load(std::memory_order_relaxed) && use_avx2.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

// Test seam, and the only way to change the choice after start-up: the
// kernels the augment stage calls, switched between calls so that one test
// process can compare the widths (tests/augment/kernel_scopes.h wraps it in
// scopes). Not for use while other threads run kernels; asking for a width
// the CPU lacks is the caller's error.
struct KernelChoice {
  bool avx2 = false;
  bool avx512 = false;  // effective only with avx2
};

inline KernelChoice KernelChoiceForTesting() {
#ifdef SEGFEED_HAVE_AVX2_PATH
  return {use_avx2.load(std::memory_order_relaxed), use_avx512.load(std::memory_order_relaxed)};
#else
  return {};
#endif
}

inline void SetKernelChoiceForTesting([[maybe_unused]] KernelChoice choice) {
#ifdef SEGFEED_HAVE_AVX2_PATH
  use_avx2.store(choice.avx2, std::memory_order_relaxed);
  use_avx512.store(choice.avx512, std::memory_order_relaxed);
#endif
}

}  // namespace segfeed::internal
