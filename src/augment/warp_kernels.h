#pragma once

// The fixed-point warp's vector kernels: what warp_scalar.cc (which runs the
// rows, the borders and the one-pixel interior) hands to warp_avx2.cc and
// warp_avx512.cc. Those files are compiled for their ISA, so this header
// holds only plain structs, constants and declarations (see the rules in
// simd_dispatch.h); call a kernel only where CpuHasAvx2() / CpuHasAvx512().

#include <cstddef>
#include <cstdint>

namespace segfeed::augment {

// Source positions are 16.16 fixed point in int32 (see warp_scalar.cc).
constexpr int kFracBits = 16;

// Bilinear weights are 7 bits: positions are rounded to 1/128 pixel (the
// +1/256 of kBilinearOffset), so that a row's tap pair times its weights is
// one maddubs (unsigned weights 0..128 times signed taps) in the vector
// kernels. Taps are centred (level - 128) to fit int8; the centring passes
// through both interpolations (their weights sum to one) and is undone at
// the end:
//   top    = (p00 - 128) * (128 - fx) + (p01 - 128) * fx      (int16)
//   bottom = the same for the lower row
//   value  = top + round((bottom - top) * fy / 128)           (mulhrs)
//   level  = (value + 128 * 128 + 64) >> 7
constexpr int32_t kBilinearOffset = 1 << (kFracBits - 8);
constexpr int kWeightBits = 7;
constexpr int kWeightOne = 1 << kWeightBits;

// Fixed-point source positions of one output row: pixel 0 at (x, y), each
// step right adds (x_step, y_step).
struct RowPositions {
  int32_t x, y, x_step, y_step;
};

// A source raster as the kernels read it: `height` rows of `width` pixels,
// rows `stride` bytes apart.
struct KernelRaster {
  const uint8_t* data;
  int width, height;
  ptrdiff_t stride;
};

// Bilinear RGB, output pixels [first, last) of a row whose taps all lie
// inside `src` and whose lower tap row has a row after it (the kernels read
// 2 bytes past each tap pair). Writes 3 bytes per pixel to `out` (the row's
// start) and adds the written levels to sums[0..2]. `ahead` is the output
// row two rows down, whose taps are prefetched. Returns the first pixel not
// done: the kernels take whole steps of 8 (AVX2) or 16 (AVX-512) pixels.
int BilinearInteriorAvx2(const KernelRaster& src, const RowPositions& row,
                         const RowPositions& ahead, int first, int last, uint8_t* out,
                         uint64_t* sums);
int BilinearInteriorAvx512(const KernelRaster& src, const RowPositions& row,
                           const RowPositions& ahead, int first, int last, uint8_t* out,
                           uint64_t* sums);

// Bilinear for one 1-channel plane, the same conditions and arithmetic:
// writes a byte per pixel, no sums; 8 pixels a step.
int BilinearPlaneInteriorAvx2(const KernelRaster& src, const RowPositions& row, int first, int last,
                              uint8_t* out);

// Nearest neighbour for the 1-channel mask, output pixels [first, last)
// whose positions (already offset by half a pixel) lie inside `src` with
// x <= width - 4, so that a dword gather stays inside its row. Writes the
// source values (uint8) or 1.0f for nonzero and 0.0f for zero (float).
// Returns the first pixel not done (steps of 8 and 16 pixels).
int NearestInteriorAvx2(const KernelRaster& src, const RowPositions& row, int first, int last,
                        uint8_t* out);
int NearestInteriorAvx2(const KernelRaster& src, const RowPositions& row, int first, int last,
                        float* out);
int NearestInteriorAvx512(const KernelRaster& src, const RowPositions& row, int first, int last,
                          uint8_t* out);
int NearestInteriorAvx512(const KernelRaster& src, const RowPositions& row, int first, int last,
                          float* out);

}  // namespace segfeed::augment
