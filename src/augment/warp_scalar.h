#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "augment/affine_warp.h"
#include "augment/raster_view.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// The fixed-point warp of affine_warp.h, for sources small enough for its
// 16.16 positions (FitsFixedPoint); larger ones go to OpenCV. Integer
// arithmetic throughout, so the bytes do not depend on the machine, the
// thread or the kernel width. warp_scalar.cc runs the rows, the borders and
// the one-pixel interior, and hands the interior of each row to the AVX2 or
// AVX-512 kernels (warp_avx2.cc, warp_avx512.cc) where simd_dispatch.h says
// the CPU has them. `m` maps output pixel indices to source pixel indices
// (OutputToSourceMatrix). Thread-safe: no state.

// One RGB pixel's levels: a constant fill.
using Rgb = std::array<uint8_t, 3>;

// True when every output pixel's position (and the steps summed along a row)
// stays well inside int32 in 16.16, for sources small enough to index with
// int32 byte offsets.
bool FitsFixedPoint(const AffineMatrix& m, int output_width, int output_height,
                    const RasterView& source);

// Bilinear RGB (weights in 1/128 pixel) into `out`, and adds every written
// level to `sums`. Taps outside the source take `fill` or the reflected
// pixel, as `border` says.
void WarpBilinearRgb(const RasterView& source, const AffineMatrix& m, const Border& border,
                     const Rgb& fill, const MutableRasterView& out, ChannelSums* sums);

// The same bilinear warp for one 1-channel plane (a JPEG's Y, Cb or Cr),
// without sums; the same bytes per plane as WarpBilinearRgb gives per
// channel.
void WarpBilinearPlane(const RasterView& source, const AffineMatrix& m, const Border& border,
                       uint8_t fill, const MutableRasterView& out);

// Blends `fill` into `out`, a plane WarpBilinearPlane wrote from `source`
// through `m`, by the share of each pixel's taps that the same warp of a
// cover_width x cover_height raster through `cover_m` takes from outside
// that raster under FillMode::kConstant: level * c + fill * (1 - c), where
// c is the level that warp gives for a raster of 255 with a fill of 0 (over
// 255), and the level is `source`'s with its taps clamped to its edge (the
// edge pixel repeated), or 128 where source.data is nullptr. Pixels whose
// taps lie inside both rasters are left as they are; those the cover
// takes nothing for become `fill`.
void BlendFillByCoverage(const RasterView& source, const AffineMatrix& m, int cover_width,
                         int cover_height, const AffineMatrix& cover_m, uint8_t fill,
                         const MutableRasterView& out);

// Nearest neighbour for a 1-channel mask into `out`'s elements: output_height
// rows of output_width elements, rows `out_stride_bytes` apart. uint8 keeps the
// source's values (0/1 stays 0/1); float is 1.0 for any nonzero source value
// and 0.0 elsewhere. Outside the source: `fill` (background 0, or a label
// map's ignore value), or the reflected pixel, as `border` says.
void WarpNearestMask(const RasterView& source, const AffineMatrix& m, const Border& border,
                     uint8_t fill, uint8_t* out, int output_width, int output_height,
                     ptrdiff_t out_stride_bytes);
void WarpNearestMask(const RasterView& source, const AffineMatrix& m, const Border& border,
                     uint8_t fill, float* out, int output_width, int output_height,
                     ptrdiff_t out_stride_bytes);

}  // namespace segfeed::augment
