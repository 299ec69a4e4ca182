#include "augment/warp_scalar.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "augment/fixed_point_positions.h"
#include "augment/simd_dispatch.h"
#include "augment/warp_kernels.h"

namespace segfeed::augment {
namespace {

// Source positions are 16.16 fixed point in int32 (kFracBits): per output
// row, the position of pixel 0 is rounded once from the double matrix, and
// each step right adds the rounded x column of the matrix. All later math is
// integer, so every path (scalar, AVX2, AVX-512) gives the same bytes on any
// machine and thread. Positions stay far from int32 limits: FitsFixedPoint
// sends anything else to OpenCV.

// A 16.16 bound no position reaches: an edge that leaves nothing out.
constexpr int64_t kBeyondAnyPosition = int64_t{1} << 40;

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Output pixels x in [0, count) whose position start + step * x lies in
// [low, high), as [first, last); empty when first >= last.
struct Span {
  int first, last;
};
Span SolveSpan(int64_t start, int64_t step, int64_t low, int64_t high, int count) {
  int64_t first = 0, last = count;
  if (step == 0) {
    if (start < low || start >= high) last = 0;
  } else if (step > 0) {
    first = -FloorDiv(start - low, step);  // ceil((low - start) / step)
    last = -FloorDiv(start - high, step);  // ceil((high - start) / step)
  } else {
    first = FloorDiv(high - start, step) + 1;
    last = FloorDiv(low - start, step) + 1;
  }
  first = std::clamp<int64_t>(first, 0, count);
  last = std::clamp<int64_t>(last, first, count);
  return {static_cast<int>(first), static_cast<int>(last)};
}

Span Intersect(Span a, Span b) {
  const int first = std::max(a.first, b.first);
  return {first, std::max(first, std::min(a.last, b.last))};
}

// --- Bilinear RGB ----------------------------------------------------------
// 7-bit weights and centred taps, as warp_kernels.h describes; Bilinear() is
// the arithmetic every vector kernel repeats.

inline int WeightX(int32_t x) { return (x >> (kFracBits - kWeightBits)) & (kWeightOne - 1); }

inline int BilinearRow(int left, int right, int fx) {
  return (left - 128) * (kWeightOne - fx) + (right - 128) * fx;
}

inline int Bilinear(int p00, int p01, int p10, int p11, int fx, int fy) {
  const int top = BilinearRow(p00, p01, fx);
  const int bottom = BilinearRow(p10, p11, fx);
  // _mm256_mulhrs_epi16 of (bottom - top) and fy << 8.
  const int value = top + (((bottom - top) * (fy << 8) + (1 << 14)) >> 15);
  return (value + 128 * kWeightOne + kWeightOne / 2) >> kWeightBits;
}

// One pixel of kChannels levels whose taps may lie outside the source.
template <int kChannels>
void BilinearBorderPixel(const KernelRaster& src, int32_t x, int32_t y, const Border& border,
                         const uint8_t* fill, uint8_t* out) {
  const int ix = x >> kFracBits, iy = y >> kFracBits;
  const int fx = WeightX(x), fy = WeightX(y);
  const uint8_t* taps[2][2];
  for (int dy = 0; dy < 2; ++dy) {
    for (int dx = 0; dx < 2; ++dx) {
      int sx = ix + dx, sy = iy + dy;
      const bool inside = sx >= 0 && sx < src.width && sy >= 0 && sy < src.height;
      if (!inside && TapTakesFill(border, sx, sy, src.width, src.height)) {
        taps[dy][dx] = fill;
        continue;
      }
      if (!inside) {
        sx = ReflectIndex(sx, src.width);
        sy = ReflectIndex(sy, src.height);
      }
      taps[dy][dx] = src.data + sy * src.stride + kChannels * sx;
    }
  }
  for (int c = 0; c < kChannels; ++c)
    out[c] = static_cast<uint8_t>(
        Bilinear(taps[0][0][c], taps[0][1][c], taps[1][0][c], taps[1][1][c], fx, fy));
}

// Adds the levels of pixels [first, last) of an RGB row to `sums`.
void AddLevels(const uint8_t* row, int first, int last, ChannelSums* sums) {
  for (int i = first; i < last; ++i)
    for (int c = 0; c < 3; ++c) (*sums)[c] += row[3 * i + c];
}

// Pixels [first, last) of a row whose taps all lie inside the source.
template <int kChannels>
void BilinearInteriorScalar(const KernelRaster& src, const RowPositions& row, int first, int last,
                            uint8_t* out) {
  int32_t x = row.x + row.x_step * first, y = row.y + row.y_step * first;
  for (int i = first; i < last; ++i, x += row.x_step, y += row.y_step) {
    const uint8_t* p = src.data + (y >> kFracBits) * src.stride + kChannels * (x >> kFracBits);
    const uint8_t* q = p + src.stride;
    const int fx = WeightX(x), fy = WeightX(y);
    for (int c = 0; c < kChannels; ++c)
      out[kChannels * i + c] =
          static_cast<uint8_t>(Bilinear(p[c], p[kChannels + c], q[c], q[kChannels + c], fx, fy));
  }
}

// --- Nearest-neighbour mask --------------------------------------------------
// Output values are source values (or the fill), so a 0/1 mask stays 0/1
// and labels stay labels.
// Rounds to the nearest source pixel: +0.5 pixel, then floor.

// Output elements: uint8 keeps the source's values (0/1 stays 0/1); float
// masks are written straight in the batch's dtype, 1.0 for any nonzero
// source value, so no uint8 raster and no conversion pass come between.
inline void StoreMask(uint8_t* dst, uint8_t value) { *dst = value; }
inline void StoreMask(float* dst, uint8_t value) { *dst = value != 0 ? 1.0f : 0.0f; }

// WarpNearestMask for either element type.
template <typename T>
void WarpNearest(const RasterView& source, const AffineMatrix& m, const Border& border,
                 uint8_t fill, T* out, int output_width, int output_height,
                 ptrdiff_t out_stride_bytes) {
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  const KernelRaster src{source.data, source.width, source.height, source.stride_bytes};
  const bool avx2 = CpuHasAvx2() && source.width >= 4;
  const bool avx512 = avx2 && CpuHasAvx512();
#endif
  for (int y = 0; y < output_height; ++y) {
    const RowPositions row = PositionsOfRow(m, y, kOne / 2);
    T* dst = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(out) + y * out_stride_bytes);
    const Span inside = Intersect(
        SolveSpan(row.x, row.x_step, 0, int64_t{source.width} << kFracBits, output_width),
        SolveSpan(row.y, row.y_step, 0, int64_t{source.height} << kFracBits, output_width));
    auto outside_pixel = [&](int x) {
      const int sx = (row.x + row.x_step * x) >> kFracBits;
      const int sy = (row.y + row.y_step * x) >> kFracBits;
      if (TapTakesFill(border, sx, sy, source.width, source.height)) {
        StoreMask(dst + x, fill);
        return;
      }
      StoreMask(dst + x,
                source.Row(ReflectIndex(sy, source.height))[ReflectIndex(sx, source.width)]);
    };
    auto inside_pixels = [&](int first, int last) {
      int32_t sx = row.x + row.x_step * first, sy = row.y + row.y_step * first;
      for (int x = first; x < last; ++x, sx += row.x_step, sy += row.y_step)
        StoreMask(dst + x, source.Row(sy >> kFracBits)[sx >> kFracBits]);
    };
    for (int x = 0; x < inside.first; ++x) outside_pixel(x);
    int done = inside.first;
#ifdef SEGFEED_HAVE_SIMD_KERNELS
    if (avx2) {
      const Span gather_safe = Intersect(
          inside,
          SolveSpan(row.x, row.x_step, 0, int64_t{source.width - 3} << kFracBits, output_width));
      if (gather_safe.first < gather_safe.last) {
        inside_pixels(done, gather_safe.first);
        done = gather_safe.first;
        if (avx512) done = NearestInteriorAvx512(src, row, done, gather_safe.last, dst);
        done = NearestInteriorAvx2(src, row, done, gather_safe.last, dst);
      }
    }
#endif
    inside_pixels(done, inside.last);
    for (int x = inside.last; x < output_width; ++x) outside_pixel(x);
  }
}

}  // namespace

// True when every output pixel's position (and the steps summed along a row)
// stays well inside int32 in 16.16, for sources small enough to index with
// int32 byte offsets.
bool FitsFixedPoint(const AffineMatrix& m, int output_width, int output_height,
                    const RasterView& source) {
  if (source.width >= kMaxFixedPointPixels || source.height >= kMaxFixedPointPixels) return false;
  if (static_cast<double>(source.stride_bytes) * source.height > (1u << 30)) return false;
  for (double x : {-1.0, static_cast<double>(output_width)}) {
    for (double y : {-1.0, static_cast<double>(output_height)}) {
      if (!(std::abs(m[0] * x + m[1] * y + m[2]) < kMaxFixedPointPixels) ||
          !(std::abs(m[3] * x + m[4] * y + m[5]) < kMaxFixedPointPixels))
        return false;
    }
  }
  return true;
}

namespace {

// `count` pixels of `fill` (kChannels levels) from `dst` on.
template <int kChannels>
void FillPixels(uint8_t* dst, int count, const uint8_t* fill) {
  if (kChannels == 1 || (fill[0] == fill[1] && fill[1] == fill[2])) {
    std::memset(dst, fill[0], kChannels * static_cast<size_t>(count));
    return;
  }
  for (int x = 0; x < count; ++x) std::memcpy(dst + kChannels * x, fill, kChannels);
}

// WarpBilinearRgb (kChannels 3, adding to `sums`) and WarpBilinearPlane
// (1, no sums).
template <int kChannels>
void WarpBilinear(const RasterView& source, const AffineMatrix& m, const Border& border,
                  const uint8_t* fill, const MutableRasterView& out, ChannelSums* sums) {
  const KernelRaster src{source.data, source.width, source.height, source.stride_bytes};
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  const bool avx2 = CpuHasAvx2();
  const bool avx512 = CpuHasAvx512();
#endif
  for (int y = 0; y < out.height; ++y) {
    const RowPositions row = PositionsOfRow(m, y, kBilinearOffset);
    uint8_t* dst = out.Row(y);
    // Interior: both taps inside on both axes. Touching: some tap inside,
    // or past a mirrored edge; a whole pixel past a filled edge, the fill is
    // the whole answer.
    const Span interior = Intersect(
        SolveSpan(row.x, row.x_step, 0, int64_t{source.width - 1} << kFracBits, out.width),
        SolveSpan(row.y, row.y_step, 0, int64_t{source.height - 1} << kFracBits, out.width));
    const Span touching = Intersect(
        SolveSpan(row.x, row.x_step, border.mirror_left ? -kBeyondAnyPosition : -kOne,
                  border.mirror_right ? kBeyondAnyPosition : int64_t{source.width} << kFracBits,
                  out.width),
        SolveSpan(row.y, row.y_step, border.mirror_top ? -kBeyondAnyPosition : -kOne,
                  border.mirror_bottom ? kBeyondAnyPosition : int64_t{source.height} << kFracBits,
                  out.width));
    FillPixels<kChannels>(dst, touching.first, fill);
    FillPixels<kChannels>(dst + kChannels * touching.last, out.width - touching.last, fill);
    if constexpr (kChannels == 3) {
      const uint64_t filled = touching.first + (out.width - touching.last);
      for (int c = 0; c < 3; ++c) (*sums)[c] += filled * fill[c];
    }
    const int inner_first = std::clamp(interior.first, touching.first, touching.last);
    const int inner_last = std::clamp(interior.last, inner_first, touching.last);
    for (int x = touching.first; x < inner_first; ++x)
      BilinearBorderPixel<kChannels>(src, row.x + row.x_step * x, row.y + row.y_step * x, border,
                                     fill, dst + kChannels * x);
    int done = inner_first;
    int vector_first = inner_first, vector_last = inner_first;  // summed by the kernels
#ifdef SEGFEED_HAVE_SIMD_KERNELS
    if (avx2) {
      // The vector kernels read 2 bytes past the lower tap pair: they take
      // the pixels whose lower row has a row after it.
      const Span vector = Intersect(
          {inner_first, inner_last},
          SolveSpan(row.y, row.y_step, 0, int64_t{source.height - 2} << kFracBits, out.width));
      if (vector.first < vector.last) {
        BilinearInteriorScalar<kChannels>(src, row, done, vector.first, dst);
        done = vector.first;
        if constexpr (kChannels == 3) {
          // Rows past the output are not fitted to 16.16 (FitsFixedPoint).
          const RowPositions ahead =
              y + 2 < out.height ? PositionsOfRow(m, y + 2, kBilinearOffset) : row;
          if (avx512)
            done = BilinearInteriorAvx512(src, row, ahead, done, vector.last, dst, sums->data());
          done = BilinearInteriorAvx2(src, row, ahead, done, vector.last, dst, sums->data());
        } else {
          done = BilinearPlaneInteriorAvx2(src, row, done, vector.last, dst);
        }
        vector_first = vector.first;
        vector_last = done;
      }
    }
#endif
    BilinearInteriorScalar<kChannels>(src, row, done, inner_last, dst);
    for (int x = inner_last; x < touching.last; ++x)
      BilinearBorderPixel<kChannels>(src, row.x + row.x_step * x, row.y + row.y_step * x, border,
                                     fill, dst + kChannels * x);
    if constexpr (kChannels == 3) {
      AddLevels(dst, touching.first, vector_first, sums);
      AddLevels(dst, vector_last, touching.last, sums);
    }
  }
}

}  // namespace

// Also adds every written level to `sums`: the vector kernels from their
// registers, the rest from the row just written, the fill by count.
void WarpBilinearRgb(const RasterView& source, const AffineMatrix& m, const Border& border,
                     const Rgb& fill, const MutableRasterView& out, ChannelSums* sums) {
  assert(source.channels == 3 && out.channels == 3);
  WarpBilinear<3>(source, m, border, fill.data(), out, sums);
}

void WarpBilinearPlane(const RasterView& source, const AffineMatrix& m, const Border& border,
                       uint8_t fill, const MutableRasterView& out) {
  assert(source.channels == 1 && out.channels == 1);
  WarpBilinear<1>(source, m, border, &fill, out, nullptr);
}

void BlendFillByCoverage(const RasterView& source, const AffineMatrix& m, int cover_width,
                         int cover_height, const AffineMatrix& cover_m, uint8_t fill,
                         const MutableRasterView& out) {
  assert(out.channels == 1);
  // Bilinear()'s arithmetic on taps of 255 inside the cover and 0 outside.
  auto coverage = [&](int32_t x, int32_t y) {
    const int ix = x >> kFracBits, iy = y >> kFracBits;
    auto inside = [&](int sx, int sy) {
      return sx >= 0 && sx < cover_width && sy >= 0 && sy < cover_height ? 255 : 0;
    };
    return Bilinear(inside(ix, iy), inside(ix + 1, iy), inside(ix, iy + 1), inside(ix + 1, iy + 1),
                    WeightX(x), WeightX(y));
  };
  // The source's level with its taps clamped to its edge.
  auto clamped_level = [&](int32_t x, int32_t y) {
    const int ix = x >> kFracBits, iy = y >> kFracBits;
    const int x0 = std::clamp(ix, 0, source.width - 1),
              x1 = std::clamp(ix + 1, 0, source.width - 1);
    const uint8_t* const top = source.Row(std::clamp(iy, 0, source.height - 1));
    const uint8_t* const bottom = source.Row(std::clamp(iy + 1, 0, source.height - 1));
    return Bilinear(top[x0], top[x1], bottom[x0], bottom[x1], WeightX(x), WeightX(y));
  };
  auto interior_of = [&](const RowPositions& row, int width, int height) {
    return Intersect(SolveSpan(row.x, row.x_step, 0, int64_t{width - 1} << kFracBits, out.width),
                     SolveSpan(row.y, row.y_step, 0, int64_t{height - 1} << kFracBits, out.width));
  };
  for (int y = 0; y < out.height; ++y) {
    // WarpBilinear's spans, for the cover and for the source.
    const RowPositions cover = PositionsOfRow(cover_m, y, kBilinearOffset);
    const Span touching = Intersect(
        SolveSpan(cover.x, cover.x_step, -kOne, int64_t{cover_width} << kFracBits, out.width),
        SolveSpan(cover.y, cover.y_step, -kOne, int64_t{cover_height} << kFracBits, out.width));
    const Span cover_interior = Intersect(touching, interior_of(cover, cover_width, cover_height));
    const RowPositions row = PositionsOfRow(m, y, kBilinearOffset);
    Span untouched = cover_interior;
    if (source.data != nullptr)
      untouched = Intersect(untouched, interior_of(row, source.width, source.height));
    if (untouched.first >= untouched.last) untouched = {touching.last, touching.last};
    uint8_t* const dst = out.Row(y);
    std::memset(dst, fill, static_cast<size_t>(touching.first));
    std::memset(dst + touching.last, fill, static_cast<size_t>(out.width - touching.last));
    for (const Span& blended :
         {Span{touching.first, untouched.first}, Span{untouched.last, touching.last}}) {
      for (int x = blended.first; x < blended.last; ++x) {
        const bool whole = x >= cover_interior.first && x < cover_interior.last;
        const int inside =
            whole ? 255 : coverage(cover.x + cover.x_step * x, cover.y + cover.y_step * x);
        const int level = source.data == nullptr
                              ? 128
                              : clamped_level(row.x + row.x_step * x, row.y + row.y_step * x);
        dst[x] = static_cast<uint8_t>((level * inside + fill * (255 - inside) + 127) / 255);
      }
    }
  }
}

void WarpNearestMask(const RasterView& source, const AffineMatrix& m, const Border& border,
                     uint8_t fill, uint8_t* out, int output_width, int output_height,
                     ptrdiff_t out_stride_bytes) {
  WarpNearest(source, m, border, fill, out, output_width, output_height, out_stride_bytes);
}

void WarpNearestMask(const RasterView& source, const AffineMatrix& m, const Border& border,
                     uint8_t fill, float* out, int output_width, int output_height,
                     ptrdiff_t out_stride_bytes) {
  WarpNearest(source, m, border, fill, out, output_width, output_height, out_stride_bytes);
}

}  // namespace segfeed::augment
