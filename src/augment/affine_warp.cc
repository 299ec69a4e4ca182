#include "augment/affine_warp.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <numbers>
#include <optional>
#include <type_traits>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/avx2_dispatch.h"

namespace segfeed::internal {
namespace {

// sin and cos of an angle in degrees, exact at multiples of 90 so that
// quarter turns map pixel centres exactly onto pixel centres.
void SinCosDegrees(double angle_deg, double* sin_out, double* cos_out) {
  double reduced = std::fmod(angle_deg, 360.0);
  if (reduced < 0) reduced += 360.0;
  if (reduced == 0.0 || reduced == 90.0 || reduced == 180.0 || reduced == 270.0) {
    static constexpr double kSin[] = {0, 1, 0, -1};
    static constexpr double kCos[] = {1, 0, -1, 0};
    const int quarter = static_cast<int>(reduced) / 90;
    *sin_out = kSin[quarter];
    *cos_out = kCos[quarter];
    return;
  }
  const double radians = reduced * (std::numbers::pi / 180.0);
  *sin_out = std::sin(radians);
  *cos_out = std::cos(radians);
}

cv::Mat ConstMat(const RasterView& view) {
  assert(view.channels == 1 || view.channels == 3);
  // OpenCV takes non-const data for headers; the Mat is only read.
  return cv::Mat(view.height, view.width, CV_MAKETYPE(CV_8U, view.channels),
                 const_cast<uint8_t*>(view.data), static_cast<size_t>(view.stride_bytes));
}

cv::Mat WritableMat(const MutableRasterView& view) {
  assert(view.channels == 1 || view.channels == 3);
  return cv::Mat(view.height, view.width, CV_MAKETYPE(CV_8U, view.channels), view.data,
                 static_cast<size_t>(view.stride_bytes));
}

void Warp(const cv::Mat& source, double extent_width, double extent_height,
          const AugmentParams& params, int interpolation, const AugmentOptions& options,
          double constant_fill, cv::Mat& out) {
  const AffineMatrix m =
      OutputToSourceMatrix(params, extent_width, extent_height, out.cols, out.rows);
  const cv::Mat matrix(2, 3, CV_64F, const_cast<double*>(m.data()));
  const int border =
      options.fill_mode == FillMode::kReflect ? cv::BORDER_REFLECT : cv::BORDER_CONSTANT;
  // `out` wraps the caller's memory with the right size and type, so
  // warpAffine writes in place and never reallocates.
  [[maybe_unused]] const uchar* caller_memory = out.data;
  cv::warpAffine(source, out, matrix, out.size(), interpolation | cv::WARP_INVERSE_MAP, border,
                 cv::Scalar::all(constant_fill));
  assert(out.data == caller_memory);
}

// ---------------------------------------------------------------------------
// Own warp kernels. Source positions are 16.16 fixed point in int32: per
// output row, the position of pixel 0 is rounded once from the double matrix,
// and each step right adds the rounded x column of the matrix. All later math
// is integer, so every path (scalar, AVX2) gives the same bytes on any
// machine and thread. Positions stay far from int32 limits: FitsFixedPoint
// sends anything else to OpenCV.

constexpr int kFracBits = 16;
constexpr int32_t kOne = 1 << kFracBits;
// |position| bound in source pixels for the fixed-point kernels.
constexpr double kMaxFixedPointPixels = 1 << 14;

int32_t ToFixed(double pixels) { return static_cast<int32_t>(std::lround(pixels * kOne)); }

// Fixed-point source positions of one output row; `x_step`/`y_step` per pixel.
struct RowPositions {
  int32_t x, y, x_step, y_step;
};

RowPositions PositionsOfRow(const AffineMatrix& m, int row, int32_t offset) {
  return {ToFixed(m[1] * row + m[2]) + offset, ToFixed(m[4] * row + m[5]) + offset, ToFixed(m[0]),
          ToFixed(m[3])};
}

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

// BORDER_REFLECT ("fedcba|abcdef") index into [0, size).
int ReflectIndex(int index, int size) {
  const int period = 2 * size;
  int i = index % period;
  if (i < 0) i += period;
  return i < size ? i : period - 1 - i;
}

// --- Bilinear RGB ----------------------------------------------------------
// Weights are 7 bits: positions are rounded to 1/128 pixel (the +1/256 of
// kBilinearOffset), so that a row's tap pair times its weights is one
// maddubs (unsigned weights 0..128 times signed taps) in the AVX2 kernel.
// Taps are centred (level - 128) to fit int8; the centring passes through
// both interpolations (their weights sum to one) and is undone at the end:
//   top    = (p00 - 128) * (128 - fx) + (p01 - 128) * fx      (int16)
//   bottom = the same for the lower row
//   value  = top + round((bottom - top) * fy / 128)           (mulhrs)
//   level  = (value + 128 * 128 + 64) >> 7

constexpr int32_t kBilinearOffset = 1 << (kFracBits - 8);
constexpr int kWeightBits = 7;
constexpr int kWeightOne = 1 << kWeightBits;

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

struct BilinearSource {
  const uint8_t* data;
  int width, height;
  ptrdiff_t stride;
};

// One pixel whose taps may lie outside the source.
void BilinearBorderPixel(const BilinearSource& src, int32_t x, int32_t y, FillMode mode,
                         uint8_t fill, uint8_t* out) {
  const int ix = x >> kFracBits, iy = y >> kFracBits;
  const int fx = WeightX(x), fy = WeightX(y);
  const uint8_t fill_pixel[3] = {fill, fill, fill};
  const uint8_t* taps[2][2];
  for (int dy = 0; dy < 2; ++dy) {
    for (int dx = 0; dx < 2; ++dx) {
      int sx = ix + dx, sy = iy + dy;
      const bool inside = sx >= 0 && sx < src.width && sy >= 0 && sy < src.height;
      if (!inside && mode == FillMode::kConstant) {
        taps[dy][dx] = fill_pixel;
        continue;
      }
      if (!inside) {
        sx = ReflectIndex(sx, src.width);
        sy = ReflectIndex(sy, src.height);
      }
      taps[dy][dx] = src.data + sy * src.stride + 3 * sx;
    }
  }
  for (int c = 0; c < 3; ++c)
    out[c] = static_cast<uint8_t>(
        Bilinear(taps[0][0][c], taps[0][1][c], taps[1][0][c], taps[1][1][c], fx, fy));
}

// Adds the levels of pixels [first, last) of an RGB row to `sums`.
void AddLevels(const uint8_t* row, int first, int last, ChannelSums* sums) {
  for (int i = first; i < last; ++i)
    for (int c = 0; c < 3; ++c) (*sums)[c] += row[3 * i + c];
}

// Pixels [first, last) of a row whose taps all lie inside the source.
void BilinearInteriorScalar(const BilinearSource& src, const RowPositions& row, int first, int last,
                            uint8_t* out) {
  int32_t x = row.x + row.x_step * first, y = row.y + row.y_step * first;
  for (int i = first; i < last; ++i, x += row.x_step, y += row.y_step) {
    const uint8_t* p = src.data + (y >> kFracBits) * src.stride + 3 * (x >> kFracBits);
    const uint8_t* q = p + src.stride;
    const int fx = WeightX(x), fy = WeightX(y);
    for (int c = 0; c < 3; ++c)
      out[3 * i + c] = static_cast<uint8_t>(Bilinear(p[c], p[3 + c], q[c], q[3 + c], fx, fy));
  }
}

#ifdef SEGFEED_HAVE_AVX2_PATH

// Four pixels: `top`/`bottom` hold each pixel's tap pair as a qword (r0 g0
// b0 r1 g1 b1 and two bytes not used), `wx` each pixel's (128 - fx, fx) and
// `wy` its fy << 8 as words repeated through the qword. Returns the levels
// as words r g b 0 per pixel.
__attribute__((target("avx2"))) inline __m256i BilinearFour(__m256i top, __m256i bottom, __m256i wx,
                                                            __m256i wy) {
  // r0 r1 g0 g1 b0 b1, then a pair the weights turn into a word not used.
  const __m256i pairs = _mm256_setr_epi8(0, 3, 1, 4, 2, 5, -1, -1, 8, 11, 9, 12, 10, 13, -1, -1, 0,
                                         3, 1, 4, 2, 5, -1, -1, 8, 11, 9, 12, 10, 13, -1, -1);
  const __m256i centre = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i upper =
      _mm256_maddubs_epi16(wx, _mm256_xor_si256(_mm256_shuffle_epi8(top, pairs), centre));
  const __m256i lower =
      _mm256_maddubs_epi16(wx, _mm256_xor_si256(_mm256_shuffle_epi8(bottom, pairs), centre));
  const __m256i value =
      _mm256_add_epi16(upper, _mm256_mulhrs_epi16(_mm256_sub_epi16(lower, upper), wy));
  return _mm256_srli_epi16(
      _mm256_add_epi16(value, _mm256_set1_epi16(128 * kWeightOne + kWeightOne / 2)), kWeightBits);
}

// Four dwords' low words, each repeated through a qword.
__attribute__((target("avx2"))) inline __m256i SpreadWords(__m128i dwords) {
  const __m256i spread = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9, 0, 1, 0,
                                          1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9);
  return _mm256_shuffle_epi8(_mm256_cvtepu32_epi64(dwords), spread);
}

// Source positions of 8 output pixels of a row, one per lane, from pixel
// `first` on: lane k holds pixel first + lane_pixels[k]. Next() moves every
// lane 8 pixels right.
struct LanePositions {
  __m256i x, y, x_step8, y_step8;

  __attribute__((target("avx2")))
  LanePositions(const RowPositions& row, int first, __m256i lane_pixels)
      : x(_mm256_add_epi32(_mm256_set1_epi32(row.x + row.x_step * first),
                           _mm256_mullo_epi32(lane_pixels, _mm256_set1_epi32(row.x_step)))),
        y(_mm256_add_epi32(_mm256_set1_epi32(row.y + row.y_step * first),
                           _mm256_mullo_epi32(lane_pixels, _mm256_set1_epi32(row.y_step)))),
        x_step8(_mm256_set1_epi32(row.x_step * 8)),
        y_step8(_mm256_set1_epi32(row.y_step * 8)) {}

  __attribute__((target("avx2"))) void Next() {
    x = _mm256_add_epi32(x, x_step8);
    y = _mm256_add_epi32(y, y_step8);
  }
};

// `dwords` plus the 16 words of `words` widened, word w to dword w % 8.
__attribute__((target("avx2"))) inline __m256i AddWordsToDwords(__m256i dwords, __m256i words) {
  return _mm256_add_epi32(
      dwords, _mm256_add_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(words)),
                               _mm256_cvtepu16_epi32(_mm256_extracti128_si256(words, 1))));
}

// Asks for the cache lines of the taps of pixel `i` of `row` (both rows).
// Integer address arithmetic: the position may lie outside the source, and
// a prefetch of any address is harmless.
inline void PrefetchTaps(const BilinearSource& src, const RowPositions& row, int i) {
  const int32_t x = row.x + row.x_step * i, y = row.y + row.y_step * i;
  const uintptr_t top =
      reinterpret_cast<uintptr_t>(src.data) +
      static_cast<uintptr_t>((y >> kFracBits) * src.stride + 3 * (x >> kFracBits));
  __builtin_prefetch(reinterpret_cast<const void*>(top));
  __builtin_prefetch(reinterpret_cast<const void*>(top + static_cast<uintptr_t>(src.stride)));
}

// The interior, 8 pixels per step: a qword gather per pixel and row reads
// both taps (and 2 bytes after them, so the caller keeps the lower row above
// the source's last row). Returns the first pixel it did not do.
// `ahead` is the output row two rows down: its taps are prefetched, since
// a rotated row walks the source diagonally, which the hardware prefetcher
// does not follow (measured in BENCHMARKS.md).
__attribute__((target("avx2"))) int BilinearInteriorAvx2(const BilinearSource& src,
                                                         const RowPositions& row,
                                                         const RowPositions& ahead, int first,
                                                         int last, uint8_t* out,
                                                         ChannelSums* sums) {
  // Lanes hold pixels 0 1 4 5 | 2 3 6 7: the low four lanes gather into one
  // vector and the high four into another, and packing the two results per
  // 128-bit lane puts pixels 0-3 in the low lane and 4-7 in the high one.
  LanePositions p(row, first, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
  const __m256i stride = _mm256_set1_epi32(static_cast<int32_t>(src.stride));
  const __m256i weight_mask = _mm256_set1_epi32(kWeightOne - 1);
  const __m256i weight_one = _mm256_set1_epi32(kWeightOne);
  // Bytes 0-2 of each pixel's dword, pixels in order, then the 24 bytes
  // made contiguous.
  const __m256i drop_fourth =
      _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8,
                       9, 10, 12, 13, 14, -1, -1, -1, -1);
  const __m256i contiguous = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
  const auto* top = reinterpret_cast<const long long*>(src.data);
  const auto* bottom = reinterpret_cast<const long long*>(src.data + src.stride);
  // Channel sums for the contrast step: word lanes (r g b 0 per pixel) take
  // two levels a step, so they are widened to dwords every 128 steps.
  __m256i words = _mm256_setzero_si256(), dwords = _mm256_setzero_si256();
  int steps = 0;
  int i = first;
  for (; i + 8 <= last; i += 8) {
    PrefetchTaps(src, ahead, i);
    PrefetchTaps(src, ahead, i + 4);
    const __m256i ix = _mm256_srai_epi32(p.x, kFracBits);
    const __m256i iy = _mm256_srai_epi32(p.y, kFracBits);
    const __m256i fx =
        _mm256_and_si256(_mm256_srli_epi32(p.x, kFracBits - kWeightBits), weight_mask);
    const __m256i fy =
        _mm256_and_si256(_mm256_srli_epi32(p.y, kFracBits - kWeightBits), weight_mask);
    // (128 - fx) in the low byte, fx in the high byte; fy << 8.
    const __m256i wx = _mm256_or_si256(_mm256_sub_epi32(weight_one, fx), _mm256_slli_epi32(fx, 8));
    const __m256i wy = _mm256_slli_epi32(fy, 8);
    const __m256i offset = _mm256_add_epi32(_mm256_mullo_epi32(iy, stride),
                                            _mm256_add_epi32(ix, _mm256_add_epi32(ix, ix)));
    const __m128i offset_low = _mm256_castsi256_si128(offset);
    const __m128i offset_high = _mm256_extracti128_si256(offset, 1);
    const __m256i low = BilinearFour(
        _mm256_i32gather_epi64(top, offset_low, 1), _mm256_i32gather_epi64(bottom, offset_low, 1),
        SpreadWords(_mm256_castsi256_si128(wx)), SpreadWords(_mm256_castsi256_si128(wy)));
    const __m256i high = BilinearFour(
        _mm256_i32gather_epi64(top, offset_high, 1), _mm256_i32gather_epi64(bottom, offset_high, 1),
        SpreadWords(_mm256_extracti128_si256(wx, 1)), SpreadWords(_mm256_extracti128_si256(wy, 1)));
    const __m256i levels = _mm256_permutevar8x32_epi32(
        _mm256_shuffle_epi8(_mm256_packus_epi16(low, high), drop_fourth), contiguous);
    uint8_t* dst = out + 3 * i;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(levels));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 16), _mm256_extracti128_si256(levels, 1));
    words = _mm256_add_epi16(words, _mm256_add_epi16(low, high));
    if (++steps == 128) {
      dwords = AddWordsToDwords(dwords, words);
      words = _mm256_setzero_si256();
      steps = 0;
    }
    p.Next();
  }
  // Dword d holds channel d % 4 (3 is the unused word).
  alignas(32) uint32_t totals[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(totals), AddWordsToDwords(dwords, words));
  for (int c = 0; c < 3; ++c) (*sums)[c] += uint64_t{totals[c]} + totals[c + 4];
  return i;
}

SEGFEED_AVX512_BEGIN

// BilinearFour on 8 pixels, one per qword.
__attribute__((target(SEGFEED_AVX512_TARGET))) inline __m512i BilinearEight(__m512i top,
                                                                            __m512i bottom,
                                                                            __m512i wx,
                                                                            __m512i wy) {
  const __m512i pairs =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 3, 1, 4, 2, 5, -1, -1, 8, 11, 9, 12, 10, 13, -1, -1));
  const __m512i centre = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i upper =
      _mm512_maddubs_epi16(wx, _mm512_xor_si512(_mm512_shuffle_epi8(top, pairs), centre));
  const __m512i lower =
      _mm512_maddubs_epi16(wx, _mm512_xor_si512(_mm512_shuffle_epi8(bottom, pairs), centre));
  const __m512i value =
      _mm512_add_epi16(upper, _mm512_mulhrs_epi16(_mm512_sub_epi16(lower, upper), wy));
  return _mm512_srli_epi16(
      _mm512_add_epi16(value, _mm512_set1_epi16(128 * kWeightOne + kWeightOne / 2)), kWeightBits);
}

// AddWordsToDwords for 32 words, word w to dword w % 16.
__attribute__((target(SEGFEED_AVX512_TARGET))) inline __m512i AddWordsToDwords16(__m512i dwords,
                                                                                 __m512i words) {
  return _mm512_add_epi32(
      dwords, _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(words)),
                               _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(words, 1))));
}

// SpreadWords for eight dwords.
__attribute__((target(SEGFEED_AVX512_TARGET))) inline __m512i SpreadWords8(__m256i dwords) {
  const __m512i spread =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9));
  return _mm512_shuffle_epi8(_mm512_cvtepu32_epi64(dwords), spread);
}

// BilinearInteriorAvx2 with 16 pixels a step: two groups of eight pixels
// gather their taps, and packing the two results per 128-bit lane leaves
// pixels 4k..4k+3 in lane k when the groups are 0 1 4 5 8 9 12 13 and
// 2 3 6 7 10 11 14 15. Same arithmetic, so the same bytes.
__attribute__((target(SEGFEED_AVX512_TARGET))) int BilinearInteriorAvx512(
    const BilinearSource& src, const RowPositions& row, const RowPositions& ahead, int first,
    int last, uint8_t* out, ChannelSums* sums) {
  const __m512i lane_pixels =
      _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  __m512i x = _mm512_add_epi32(_mm512_set1_epi32(row.x + row.x_step * first),
                               _mm512_mullo_epi32(lane_pixels, _mm512_set1_epi32(row.x_step)));
  __m512i y = _mm512_add_epi32(_mm512_set1_epi32(row.y + row.y_step * first),
                               _mm512_mullo_epi32(lane_pixels, _mm512_set1_epi32(row.y_step)));
  const __m512i x_step16 = _mm512_set1_epi32(row.x_step * 16);
  const __m512i y_step16 = _mm512_set1_epi32(row.y_step * 16);
  const __m512i stride = _mm512_set1_epi32(static_cast<int32_t>(src.stride));
  const __m512i weight_mask = _mm512_set1_epi32(kWeightOne - 1);
  const __m512i weight_one = _mm512_set1_epi32(kWeightOne);
  const __m512i drop_fourth =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
  const __m512i contiguous =
      _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15);
  const void* top = src.data;
  const void* bottom = src.data + src.stride;
  // Channel sums as in BilinearInteriorAvx2.
  __m512i words = _mm512_setzero_si512(), dwords = _mm512_setzero_si512();
  int steps = 0;
  int i = first;
  for (; i + 16 <= last; i += 16) {
    for (int k = 0; k < 16; k += 4) PrefetchTaps(src, ahead, i + k);
    const __m512i ix = _mm512_srai_epi32(x, kFracBits);
    const __m512i iy = _mm512_srai_epi32(y, kFracBits);
    const __m512i fx = _mm512_and_si512(_mm512_srli_epi32(x, kFracBits - kWeightBits), weight_mask);
    const __m512i fy = _mm512_and_si512(_mm512_srli_epi32(y, kFracBits - kWeightBits), weight_mask);
    const __m512i wx = _mm512_or_si512(_mm512_sub_epi32(weight_one, fx), _mm512_slli_epi32(fx, 8));
    const __m512i wy = _mm512_slli_epi32(fy, 8);
    const __m512i offset = _mm512_add_epi32(_mm512_mullo_epi32(iy, stride),
                                            _mm512_add_epi32(ix, _mm512_add_epi32(ix, ix)));
    const __m256i offset_low = _mm512_castsi512_si256(offset);
    const __m256i offset_high = _mm512_extracti64x4_epi64(offset, 1);
    const __m512i low = BilinearEight(
        _mm512_i32gather_epi64(offset_low, top, 1), _mm512_i32gather_epi64(offset_low, bottom, 1),
        SpreadWords8(_mm512_castsi512_si256(wx)), SpreadWords8(_mm512_castsi512_si256(wy)));
    const __m512i high = BilinearEight(_mm512_i32gather_epi64(offset_high, top, 1),
                                       _mm512_i32gather_epi64(offset_high, bottom, 1),
                                       SpreadWords8(_mm512_extracti64x4_epi64(wx, 1)),
                                       SpreadWords8(_mm512_extracti64x4_epi64(wy, 1)));
    const __m512i levels = _mm512_permutexvar_epi32(
        contiguous, _mm512_shuffle_epi8(_mm512_packus_epi16(low, high), drop_fourth));
    // 48 bytes: the first 12 dwords.
    _mm512_mask_storeu_epi32(out + 3 * i, 0x0fff, levels);
    words = _mm512_add_epi16(words, _mm512_add_epi16(low, high));
    if (++steps == 128) {
      dwords = AddWordsToDwords16(dwords, words);
      words = _mm512_setzero_si512();
      steps = 0;
    }
    x = _mm512_add_epi32(x, x_step16);
    y = _mm512_add_epi32(y, y_step16);
  }
  // Dword d holds channel d % 4 (3 is the unused word).
  alignas(64) uint32_t totals[16];
  _mm512_store_si512(totals, AddWordsToDwords16(dwords, words));
  for (int c = 0; c < 3; ++c)
    (*sums)[c] += uint64_t{totals[c]} + totals[c + 4] + totals[c + 8] + totals[c + 12];
  return i;
}

SEGFEED_AVX512_END
#endif

// Also adds every written level to `sums`: the vector kernels from their
// registers, the rest from the row just written, the fill by count.
void WarpBilinearRgb(const RasterView& source, const AffineMatrix& m, FillMode mode, uint8_t fill,
                     const MutableRasterView& out, ChannelSums* sums) {
  const BilinearSource src{source.data, source.width, source.height, source.stride_bytes};
#ifdef SEGFEED_HAVE_AVX2_PATH
  const bool avx2 = CpuHasAvx2();
  const bool avx512 = CpuHasAvx512();
#endif
  for (int y = 0; y < out.height; ++y) {
    const RowPositions row = PositionsOfRow(m, y, kBilinearOffset);
    uint8_t* dst = out.Row(y);
    // Interior: both taps inside on both axes. Touching: some tap inside;
    // outside that a constant fill is the whole answer.
    const Span interior = Intersect(
        SolveSpan(row.x, row.x_step, 0, int64_t{source.width - 1} << kFracBits, out.width),
        SolveSpan(row.y, row.y_step, 0, int64_t{source.height - 1} << kFracBits, out.width));
    Span touching{0, out.width};
    if (mode == FillMode::kConstant) {
      touching = Intersect(
          SolveSpan(row.x, row.x_step, -kOne, int64_t{source.width} << kFracBits, out.width),
          SolveSpan(row.y, row.y_step, -kOne, int64_t{source.height} << kFracBits, out.width));
      std::memset(dst, fill, 3 * static_cast<size_t>(touching.first));
      std::memset(dst + 3 * touching.last, fill,
                  3 * static_cast<size_t>(out.width - touching.last));
      const uint64_t filled = touching.first + (out.width - touching.last);
      for (int c = 0; c < 3; ++c) (*sums)[c] += filled * fill;
    }
    const int inner_first = std::clamp(interior.first, touching.first, touching.last);
    const int inner_last = std::clamp(interior.last, inner_first, touching.last);
    for (int x = touching.first; x < inner_first; ++x)
      BilinearBorderPixel(src, row.x + row.x_step * x, row.y + row.y_step * x, mode, fill,
                          dst + 3 * x);
    int done = inner_first;
    int vector_first = inner_first, vector_last = inner_first;  // summed by the kernels
#ifdef SEGFEED_HAVE_AVX2_PATH
    if (avx2) {
      // The vector kernel reads 2 bytes past the lower tap pair: it takes
      // the pixels whose lower row has a row after it.
      const Span vector = Intersect(
          {inner_first, inner_last},
          SolveSpan(row.y, row.y_step, 0, int64_t{source.height - 2} << kFracBits, out.width));
      if (vector.first < vector.last) {
        BilinearInteriorScalar(src, row, done, vector.first, dst);
        // Rows past the output are not fitted to 16.16 (FitsFixedPoint).
        const RowPositions ahead =
            y + 2 < out.height ? PositionsOfRow(m, y + 2, kBilinearOffset) : row;
        done = vector.first;
        if (avx512) done = BilinearInteriorAvx512(src, row, ahead, done, vector.last, dst, sums);
        done = BilinearInteriorAvx2(src, row, ahead, done, vector.last, dst, sums);
        vector_first = vector.first;
        vector_last = done;
      }
    }
#endif
    BilinearInteriorScalar(src, row, done, inner_last, dst);
    for (int x = inner_last; x < touching.last; ++x)
      BilinearBorderPixel(src, row.x + row.x_step * x, row.y + row.y_step * x, mode, fill,
                          dst + 3 * x);
    AddLevels(dst, touching.first, vector_first, sums);
    AddLevels(dst, vector_last, touching.last, sums);
  }
}

// --- Nearest-neighbour mask --------------------------------------------------
// Output values are source values (or the 0 fill), so a 0/1 mask stays 0/1.
// Rounds to the nearest source pixel: +0.5 pixel, then floor.

// Output elements: uint8 keeps the source's values (0/1 stays 0/1); float
// masks are written straight in the batch's dtype, 1.0 for any nonzero
// source value, so no uint8 raster and no conversion pass come between.
inline void StoreMask(uint8_t* dst, uint8_t value) { *dst = value; }
inline void StoreMask(float* dst, uint8_t value) { *dst = value != 0 ? 1.0f : 0.0f; }

#ifdef SEGFEED_HAVE_AVX2_PATH
// 8 pixels per step with dword gathers; the caller keeps x <= width - 4 so
// every dword lies inside its row. Returns the first pixel it did not do.
template <typename T>
__attribute__((target("avx2"))) int NearestInteriorAvx2(const RasterView& src,
                                                        const RowPositions& row, int first,
                                                        int last, T* out) {
  LanePositions p(row, first, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i stride = _mm256_set1_epi32(static_cast<int32_t>(src.stride_bytes));
  const __m256i low_bytes =
      _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i gather_lanes = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
  const __m256i byte_mask = _mm256_set1_epi32(0xff);
  const __m256i one_float = _mm256_castps_si256(_mm256_set1_ps(1.0f));
  const auto* base = reinterpret_cast<const int*>(src.data);
  int i = first;
  for (; i + 8 <= last; i += 8) {
    const __m256i offset =
        _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srai_epi32(p.y, kFracBits), stride),
                         _mm256_srai_epi32(p.x, kFracBits));
    const __m256i dwords = _mm256_i32gather_epi32(base, offset, 1);
    if constexpr (std::is_same_v<T, float>) {
      // 1.0f where the low byte is nonzero, else +0.0f.
      const __m256i background =
          _mm256_cmpeq_epi32(_mm256_and_si256(dwords, byte_mask), _mm256_setzero_si256());
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                          _mm256_andnot_si256(background, one_float));
    } else {
      const __m256i values = _mm256_shuffle_epi8(dwords, low_bytes);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i),
                       _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(values, gather_lanes)));
    }
    p.Next();
  }
  return i;
}

SEGFEED_AVX512_BEGIN

// NearestInteriorAvx2 with 16 pixels a step; the same caller guarantee.
template <typename T>
__attribute__((target(SEGFEED_AVX512_TARGET))) int NearestInteriorAvx512(const RasterView& src,
                                                                         const RowPositions& row,
                                                                         int first, int last,
                                                                         T* out) {
  const __m512i lane_pixels =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i x = _mm512_add_epi32(_mm512_set1_epi32(row.x + row.x_step * first),
                               _mm512_mullo_epi32(lane_pixels, _mm512_set1_epi32(row.x_step)));
  __m512i y = _mm512_add_epi32(_mm512_set1_epi32(row.y + row.y_step * first),
                               _mm512_mullo_epi32(lane_pixels, _mm512_set1_epi32(row.y_step)));
  const __m512i x_step16 = _mm512_set1_epi32(row.x_step * 16);
  const __m512i y_step16 = _mm512_set1_epi32(row.y_step * 16);
  const __m512i stride = _mm512_set1_epi32(static_cast<int32_t>(src.stride_bytes));
  const __m512i byte_mask = _mm512_set1_epi32(0xff);
  int i = first;
  for (; i + 16 <= last; i += 16) {
    const __m512i offset =
        _mm512_add_epi32(_mm512_mullo_epi32(_mm512_srai_epi32(y, kFracBits), stride),
                         _mm512_srai_epi32(x, kFracBits));
    const __m512i dwords = _mm512_i32gather_epi32(offset, src.data, 1);
    if constexpr (std::is_same_v<T, float>) {
      const __mmask16 foreground = _mm512_test_epi32_mask(dwords, byte_mask);
      _mm512_storeu_ps(out + i, _mm512_maskz_mov_ps(foreground, _mm512_set1_ps(1.0f)));
    } else {
      // The low byte of each dword, truncated: the source value.
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(dwords));
    }
    x = _mm512_add_epi32(x, x_step16);
    y = _mm512_add_epi32(y, y_step16);
  }
  return i;
}

SEGFEED_AVX512_END
#endif

// `out` rows are `out_stride_bytes` apart, `output_width` x `output_height`.
template <typename T>
void WarpNearestMask(const RasterView& source, const AffineMatrix& m, FillMode mode, T* out,
                     int output_width, int output_height, ptrdiff_t out_stride_bytes) {
#ifdef SEGFEED_HAVE_AVX2_PATH
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
      if (mode == FillMode::kConstant) {
        StoreMask(dst + x, 0);
        return;
      }
      const int sx = ReflectIndex((row.x + row.x_step * x) >> kFracBits, source.width);
      const int sy = ReflectIndex((row.y + row.y_step * x) >> kFracBits, source.height);
      StoreMask(dst + x, source.Row(sy)[sx]);
    };
    auto inside_pixels = [&](int first, int last) {
      int32_t sx = row.x + row.x_step * first, sy = row.y + row.y_step * first;
      for (int x = first; x < last; ++x, sx += row.x_step, sy += row.y_step)
        StoreMask(dst + x, source.Row(sy >> kFracBits)[sx >> kFracBits]);
    };
    for (int x = 0; x < inside.first; ++x) outside_pixel(x);
    int done = inside.first;
#ifdef SEGFEED_HAVE_AVX2_PATH
    if (avx2) {
      const Span gather_safe = Intersect(
          inside,
          SolveSpan(row.x, row.x_step, 0, int64_t{source.width - 3} << kFracBits, output_width));
      if (gather_safe.first < gather_safe.last) {
        inside_pixels(done, gather_safe.first);
        done = gather_safe.first;
        if (avx512) done = NearestInteriorAvx512(source, row, done, gather_safe.last, dst);
        done = NearestInteriorAvx2(source, row, done, gather_safe.last, dst);
      }
    }
#endif
    inside_pixels(done, inside.last);
    for (int x = inside.last; x < output_width; ++x) outside_pixel(x);
  }
}

// The mask's warp into `out`'s elements (see StoreMask).
template <typename T>
void WarpMask(const AugmentOptions& options, const AugmentParams& params, const RasterView& mask,
              T* out, int output_width, int output_height, ptrdiff_t out_stride_bytes) {
  // Nearest neighbour: masks must stay exactly 0 or 1. A constant fill is
  // always background, whatever the image's fill value.
  const AffineMatrix mask_matrix =
      OutputToSourceMatrix(params, mask.width, mask.height, output_width, output_height);
  if (FitsFixedPoint(mask_matrix, output_width, output_height, mask)) {
    WarpNearestMask(mask, mask_matrix, options.fill_mode, out, output_width, output_height,
                    out_stride_bytes);
    return;
  }
  cv::Mat warped;
  if constexpr (std::is_same_v<T, uint8_t>)
    warped =
        cv::Mat(output_height, output_width, CV_8UC1, out, static_cast<size_t>(out_stride_bytes));
  else
    warped.create(output_height, output_width, CV_8UC1);
  Warp(ConstMat(mask), mask.width, mask.height, params, cv::INTER_NEAREST, options, 0.0, warped);
  if constexpr (std::is_same_v<T, float>) {
    // Only sources too large for the fixed-point kernels come here.
    for (int y = 0; y < output_height; ++y) {
      T* dst = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(out) + y * out_stride_bytes);
      for (int x = 0; x < output_width; ++x) StoreMask(dst + x, warped.at<uint8_t>(y, x));
    }
  }
}

}  // namespace

AffineMatrix OutputToSourceMatrix(const AugmentParams& params, double source_width,
                                  double source_height, int output_width, int output_height) {
  double sin_a = 0;
  double cos_a = 1;
  SinCosDegrees(params.angle_deg, &sin_a, &cos_a);
  const double scale_x = source_width / output_width;
  const double scale_y = source_height / output_height;
  const double flip_x = params.flip_lr ? -1.0 : 1.0;
  const double flip_y = params.flip_ud ? -1.0 : 1.0;
  // Output pixel index x has continuous position x + 0.5; relative to the
  // centre that is x + 0.5 - W/2. Undo the rotation (rotate by -angle), undo
  // the flips (mirror about the centre), scale to the source extent, and
  // return to a pixel index by subtracting 0.5.
  const double u0 = 0.5 - output_width / 2.0;
  const double v0 = 0.5 - output_height / 2.0;
  const double sx = scale_x * flip_x;
  const double sy = scale_y * flip_y;
  return {sx * cos_a, -sx * sin_a, source_width / 2.0 - 0.5 + sx * (cos_a * u0 - sin_a * v0),
          sy * sin_a, sy * cos_a,  source_height / 2.0 - 0.5 + sy * (sin_a * u0 + cos_a * v0)};
}

ReducedSize PreReducedSize(const AugmentOptions& options, int image_width, int image_height,
                           double extent_width, double extent_height, int output_width,
                           int output_height) {
  const int factor_x =
      options.antialias ? PreReduceFactor(extent_width / output_width, image_width) : 1;
  const int factor_y =
      options.antialias ? PreReduceFactor(extent_height / output_height, image_height) : 1;
  if (factor_x == 1 && factor_y == 1) return {};
  return {std::max(1, (image_width + factor_x / 2) / factor_x),
          std::max(1, (image_height + factor_y / 2) / factor_y)};
}

int PreReduceFactor(double source_pixels_per_output_pixel, int source_pixels) {
  if (!(source_pixels_per_output_pixel > 2.0)) return 1;
  const int largest = static_cast<int>(std::floor(source_pixels_per_output_pixel));
  const int smallest = static_cast<int>(std::ceil(source_pixels_per_output_pixel / 2.0));
  for (int factor = std::max(smallest, 2); factor <= largest; ++factor)
    if (source_pixels % factor == 0) return factor;
  return largest;
}

namespace {

void WarpImage(const AugmentOptions& options, const AugmentParams& params, const WarpSource& source,
               const MutableRasterView& image_out, WarpScratch* scratch,
               std::optional<ChannelSums>* image_sums) {
  assert(source.image.channels == 3 && source.mask.channels == 1);
  assert(source.image.stride_bytes >= source.image.width * 3);
  assert(source.mask.stride_bytes >= source.mask.width);
  assert(image_out.channels == 3);
  const double scale_x = source.image_scale > 0
                             ? source.image_scale
                             : static_cast<double>(source.image.width) / source.mask.width;
  const double scale_y = source.image_scale > 0
                             ? source.image_scale
                             : static_cast<double>(source.image.height) / source.mask.height;
  // The image's extent in its own pixels: the mask's extent at its scale.
  double extent_width = source.mask.width * scale_x;
  double extent_height = source.mask.height * scale_y;

  cv::Mat image = ConstMat(source.image);
  const ReducedSize reduced_size =
      PreReducedSize(options, source.image.width, source.image.height, extent_width, extent_height,
                     image_out.width, image_out.height);
  if (reduced_size.width > 0) {
    const int reduced_width = reduced_size.width;
    const int reduced_height = reduced_size.height;
    scratch->reduced_image.resize(static_cast<size_t>(reduced_width) * reduced_height * 3);
    cv::Mat reduced(reduced_height, reduced_width, CV_8UC3, scratch->reduced_image.data());
    // Area averaging maps the whole source extent onto the reduced raster
    // (OpenCV's fast integer path when the sizes divide exactly), so the
    // reduced pixels keep the extent convention above.
    cv::resize(image, reduced, reduced.size(), 0, 0, cv::INTER_AREA);
    extent_width *= static_cast<double>(reduced_width) / source.image.width;
    extent_height *= static_cast<double>(reduced_height) / source.image.height;
    image = reduced;
  }

  const AffineMatrix image_matrix =
      OutputToSourceMatrix(params, extent_width, extent_height, image_out.width, image_out.height);
  const RasterView image_view{image.data, image.cols, image.rows, 3,
                              static_cast<ptrdiff_t>(image.step)};
  if (FitsFixedPoint(image_matrix, image_out.width, image_out.height, image_view)) {
    ChannelSums sums{0, 0, 0};
    WarpBilinearRgb(image_view, image_matrix, options.fill_mode,
                    static_cast<uint8_t>(options.fill_value), image_out, &sums);
    if (image_sums != nullptr) *image_sums = sums;
  } else {
    if (image_sums != nullptr) image_sums->reset();
    cv::Mat image_dst = WritableMat(image_out);
    Warp(image, extent_width, extent_height, params, cv::INTER_LINEAR, options, options.fill_value,
         image_dst);
  }
}

}  // namespace

void WarpImageAndMask(const AugmentOptions& options, const AugmentParams& params,
                      const WarpSource& source, const MutableRasterView& image_out,
                      const MutableRasterView& mask_out, WarpScratch* scratch,
                      std::optional<ChannelSums>* image_sums) {
  assert(mask_out.channels == 1);
  WarpImage(options, params, source, image_out, scratch, image_sums);
  WarpMask(options, params, source.mask, mask_out.data, mask_out.width, mask_out.height,
           mask_out.stride_bytes);
}

void WarpImageAndMask(const AugmentOptions& options, const AugmentParams& params,
                      const WarpSource& source, const MutableRasterView& image_out,
                      const FloatMaskView& mask_out, WarpScratch* scratch,
                      std::optional<ChannelSums>* image_sums) {
  WarpImage(options, params, source, image_out, scratch, image_sums);
  WarpMask(options, params, source.mask, mask_out.data, mask_out.width, mask_out.height,
           mask_out.stride_bytes);
}

}  // namespace segfeed::internal
