#pragma once

// Run-time choice between the AVX-512, AVX2 and one-pixel kernels of the
// augment stage. Binaries target baseline x86-64. Each vector kernel lives in
// a file of its own ISA (warp_avx2.cc, warp_avx512.cc, conversion_avx2.cc,
// ...), compiled with that ISA's flags (src/augment/CMakeLists.txt), and runs
// only where the CPU has the instructions. Every vector kernel gives the same
// bytes as its one-pixel version, so the choice changes speed, never results.
//
// Per-file flags rather than __attribute__((target)), and why that is safe:
// a file compiled with -mavx2 may emit AVX2 instructions in *any* function it
// defines, and the linker keeps one copy of each inline function or template
// instance (a weak, COMDAT symbol) for the whole program, possibly the copy
// from the AVX2 file, which the scalar code then calls on a CPU without
// AVX2. So the ISA files obey three rules:
//   - they include only <immintrin.h>, <cstddef>, <cstdint>, <type_traits>
//     (compile-time only) and their kernel header (warp_kernels.h,
//     conversion_kernels.h, jitter_kernels.h), which holds plain structs,
//     constants, consteval table builders and declarations, no inline code;
//     never this header;
//   - everything but the entry points sits in an unnamed namespace, and the
//     entry points are named for their ISA (BilinearInteriorAvx2);
//   - nothing in them runs at start-up (no dynamic initialisation: the
//     use_avx2 check below is an inline variable, whose initialiser every
//     including file would compile with its own flags).
// SimdObjectsTest (tests/augment/simd_objects_test.cmake) checks the objects
// of each build: no weak symbols, no initialisers, only ISA-named exports.
//
// __builtin_cpu_supports rather than target_clones: the check runs when
// called, not in an ifunc resolver during relocation, which runs before the
// ThreadSanitizer runtime is up and crashes every program under TSan.

#include <atomic>
#include <cstdlib>

// Where the ISA files are part of the build (src/augment/CMakeLists.txt adds
// them for x86-64 GCC and Clang).
#if defined(__x86_64__) && defined(__GNUC__)
#define SEGFEED_HAVE_SIMD_KERNELS 1
#endif

namespace segfeed::augment {

#ifdef SEGFEED_HAVE_SIMD_KERNELS
// Decided once per process: the CPU's answer, unless SEGFEED_NO_AVX2 is set
// in the environment, which forces the one-pixel kernels (a test uses it to
// check that the whole stream's bytes do not change). Atomic only so that
// a test can switch kernels between calls (SetKernelChoiceForTesting).
inline std::atomic<bool> use_avx2{[] {
  __builtin_cpu_init();  // may run before libgcc's own constructor
  return __builtin_cpu_supports("avx2") && std::getenv("SEGFEED_NO_AVX2") == nullptr;
}()};
// The same for the AVX-512 kernels; SEGFEED_NO_AVX512 forces the AVX2 ones
// (where the CPU has AVX2). Used only while use_avx2 is also set. The
// AVX-512 files are compiled for F, BW, VL, DQ and FMA: all are checked.
inline std::atomic<bool> use_avx512{[] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("fma") && std::getenv("SEGFEED_NO_AVX512") == nullptr;
}()};
#endif

inline bool CpuHasAvx2() {
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  return use_avx2.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

// True where the AVX-512 kernels run: implies CpuHasAvx2().
inline bool CpuHasAvx512() {
#ifdef SEGFEED_HAVE_SIMD_KERNELS
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
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  return {use_avx2.load(std::memory_order_relaxed), use_avx512.load(std::memory_order_relaxed)};
#else
  return {};
#endif
}

inline void SetKernelChoiceForTesting([[maybe_unused]] KernelChoice choice) {
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  use_avx2.store(choice.avx2, std::memory_order_relaxed);
  use_avx512.store(choice.avx512, std::memory_order_relaxed);
#endif
}

}  // namespace segfeed::augment
