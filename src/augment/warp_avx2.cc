// The fixed-point warp's AVX2 kernels (declared in warp_kernels.h). This
// file is compiled with -mavx2: it follows the rules in simd_dispatch.h (no
// shared inline code, nothing run at start-up), and warp_scalar.cc calls it
// only where CpuHasAvx2(). Same integer arithmetic as the one-pixel kernel,
// so the same bytes.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "augment/warp_kernels.h"

namespace segfeed::augment {
namespace {

// Four pixels: `top`/`bottom` hold each pixel's tap pair as a qword (r0 g0
// b0 r1 g1 b1 and two bytes not used), `wx` each pixel's (128 - fx, fx) and
// `wy` its fy << 8 as words repeated through the qword. Returns the levels
// as words r g b 0 per pixel.
inline __m256i BilinearFour(__m256i top, __m256i bottom, __m256i wx, __m256i wy) {
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
inline __m256i SpreadWords(__m128i dwords) {
  const __m256i spread = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9, 0, 1, 0,
                                          1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9);
  return _mm256_shuffle_epi8(_mm256_cvtepu32_epi64(dwords), spread);
}

// Source positions of 8 output pixels of a row, one per lane, from pixel
// `first` on: lane k holds pixel first + lane_pixels[k]. Next() moves every
// lane 8 pixels right.
struct LanePositions {
  __m256i x, y, x_step8, y_step8;

  LanePositions(const RowPositions& row, int first, __m256i lane_pixels)
      : x(_mm256_add_epi32(_mm256_set1_epi32(row.x + row.x_step * first),
                           _mm256_mullo_epi32(lane_pixels, _mm256_set1_epi32(row.x_step)))),
        y(_mm256_add_epi32(_mm256_set1_epi32(row.y + row.y_step * first),
                           _mm256_mullo_epi32(lane_pixels, _mm256_set1_epi32(row.y_step)))),
        x_step8(_mm256_set1_epi32(row.x_step * 8)),
        y_step8(_mm256_set1_epi32(row.y_step * 8)) {}

  void Next() {
    x = _mm256_add_epi32(x, x_step8);
    y = _mm256_add_epi32(y, y_step8);
  }
};

// Each lane's bilinear weights from its 16.16 position, as dwords: wx has
// (128 - fx) in the low byte and fx in the next, wy is fy << 8.
struct Weights {
  __m256i wx, wy;
};
inline Weights LaneWeights(const LanePositions& p) {
  const __m256i weight_mask = _mm256_set1_epi32(kWeightOne - 1);
  const __m256i fx = _mm256_and_si256(_mm256_srli_epi32(p.x, kFracBits - kWeightBits), weight_mask);
  const __m256i fy = _mm256_and_si256(_mm256_srli_epi32(p.y, kFracBits - kWeightBits), weight_mask);
  return {_mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(kWeightOne), fx),
                          _mm256_slli_epi32(fx, 8)),
          _mm256_slli_epi32(fy, 8)};
}

// `dwords` plus the 16 words of `words` widened, word w to dword w % 8.
inline __m256i AddWordsToDwords(__m256i dwords, __m256i words) {
  return _mm256_add_epi32(
      dwords, _mm256_add_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(words)),
                               _mm256_cvtepu16_epi32(_mm256_extracti128_si256(words, 1))));
}

// Asks for the cache lines of the taps of pixel `i` of `row` (both rows).
// Integer address arithmetic: the position may lie outside the source, and
// a prefetch of any address is harmless. (warp_avx512.cc has its own copy:
// the ISA files share no inline code.)
inline void PrefetchTaps(const KernelRaster& src, const RowPositions& row, int i) {
  const int32_t x = row.x + row.x_step * i, y = row.y + row.y_step * i;
  const uintptr_t top =
      reinterpret_cast<uintptr_t>(src.data) +
      static_cast<uintptr_t>((y >> kFracBits) * src.stride + 3 * (x >> kFracBits));
  __builtin_prefetch(reinterpret_cast<const void*>(top));
  __builtin_prefetch(reinterpret_cast<const void*>(top + static_cast<uintptr_t>(src.stride)));
}

// 8 pixels per step with dword gathers. Returns the first pixel it did not do.
template <typename T>
int NearestInterior(const KernelRaster& src, const RowPositions& row, int first, int last, T* out) {
  LanePositions p(row, first, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i stride = _mm256_set1_epi32(static_cast<int32_t>(src.stride));
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

}  // namespace

// The interior, 8 pixels per step: a qword gather per pixel and row reads
// both taps (and 2 bytes after them, so the caller keeps the lower row above
// the source's last row). `ahead`'s taps are prefetched, since a rotated row
// walks the source diagonally, which the hardware prefetcher does not follow
// (measured in BENCHMARKS.md).
int BilinearInteriorAvx2(const KernelRaster& src, const RowPositions& row,
                         const RowPositions& ahead, int first, int last, uint8_t* out,
                         uint64_t* sums) {
  // Lanes hold pixels 0 1 4 5 | 2 3 6 7: the low four lanes gather into one
  // vector and the high four into another, and packing the two results per
  // 128-bit lane puts pixels 0-3 in the low lane and 4-7 in the high one.
  LanePositions p(row, first, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
  const __m256i stride = _mm256_set1_epi32(static_cast<int32_t>(src.stride));
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
    const auto [wx, wy] = LaneWeights(p);
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
  for (int c = 0; c < 3; ++c) sums[c] += uint64_t{totals[c]} + totals[c + 4];
  return i;
}

// One plane, 8 pixels per step: a dword gather per pixel and row reads both
// taps (bytes 0 and 1) and 2 bytes after them, which the weights' zero
// bytes drop. Each dword's low word ends up the level, the high word not
// used.
int BilinearPlaneInteriorAvx2(const KernelRaster& src, const RowPositions& row, int first, int last,
                              uint8_t* out) {
  LanePositions p(row, first, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i stride = _mm256_set1_epi32(static_cast<int32_t>(src.stride));
  const __m256i centre = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i rounding = _mm256_set1_epi16(128 * kWeightOne + kWeightOne / 2);
  const __m256i low_bytes =
      _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i gather_lanes = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
  const auto* top = reinterpret_cast<const int*>(src.data);
  const auto* bottom = reinterpret_cast<const int*>(src.data + src.stride);
  int i = first;
  for (; i + 8 <= last; i += 8) {
    const auto [wx, wy] = LaneWeights(p);  // bytes (128 - fx, fx, 0, 0); fy << 8 in the low word
    const __m256i offset =
        _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srai_epi32(p.y, kFracBits), stride),
                         _mm256_srai_epi32(p.x, kFracBits));
    const __m256i upper =
        _mm256_maddubs_epi16(wx, _mm256_xor_si256(_mm256_i32gather_epi32(top, offset, 1), centre));
    const __m256i lower = _mm256_maddubs_epi16(
        wx, _mm256_xor_si256(_mm256_i32gather_epi32(bottom, offset, 1), centre));
    const __m256i value =
        _mm256_add_epi16(upper, _mm256_mulhrs_epi16(_mm256_sub_epi16(lower, upper), wy));
    const __m256i levels = _mm256_srli_epi16(_mm256_add_epi16(value, rounding), kWeightBits);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                         _mm256_shuffle_epi8(levels, low_bytes), gather_lanes)));
    p.Next();
  }
  return i;
}

int NearestInteriorAvx2(const KernelRaster& src, const RowPositions& row, int first, int last,
                        uint8_t* out) {
  return NearestInterior(src, row, first, last, out);
}

int NearestInteriorAvx2(const KernelRaster& src, const RowPositions& row, int first, int last,
                        float* out) {
  return NearestInterior(src, row, first, last, out);
}

}  // namespace segfeed::augment
