// The fixed-point warp's AVX-512 kernels (declared in warp_kernels.h): the
// AVX2 kernels of warp_avx2.cc with 16 pixels a step, same arithmetic, so
// the same bytes. This file is compiled for AVX-512 F, BW, VL and DQ (and
// FMA): it follows the rules in simd_dispatch.h, and warp_scalar.cc calls it
// only where CpuHasAvx512().

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "augment/warp_kernels.h"

namespace segfeed::augment {
namespace {

// BilinearFour of warp_avx2.cc on 8 pixels, one per qword.
inline __m512i BilinearEight(__m512i top, __m512i bottom, __m512i wx, __m512i wy) {
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

// `dwords` plus the 32 words of `words` widened, word w to dword w % 16.
inline __m512i AddWordsToDwords16(__m512i dwords, __m512i words) {
  return _mm512_add_epi32(
      dwords, _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(words)),
                               _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(words, 1))));
}

// Eight dwords' low words, each repeated through a qword.
inline __m512i SpreadWords8(__m256i dwords) {
  const __m512i spread =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9));
  return _mm512_shuffle_epi8(_mm512_cvtepu32_epi64(dwords), spread);
}

// Asks for the cache lines of the taps of pixel `i` of `row` (both rows);
// the copy in warp_avx2.cc explains it.
inline void PrefetchTaps(const KernelRaster& src, const RowPositions& row, int i) {
  const int32_t x = row.x + row.x_step * i, y = row.y + row.y_step * i;
  const uintptr_t top =
      reinterpret_cast<uintptr_t>(src.data) +
      static_cast<uintptr_t>((y >> kFracBits) * src.stride + 3 * (x >> kFracBits));
  __builtin_prefetch(reinterpret_cast<const void*>(top));
  __builtin_prefetch(reinterpret_cast<const void*>(top + static_cast<uintptr_t>(src.stride)));
}

// 16 pixels a step; the same caller guarantee as NearestInteriorAvx2.
template <typename T>
int NearestInterior(const KernelRaster& src, const RowPositions& row, int first, int last, T* out) {
  const __m512i lane_pixels =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i x = _mm512_add_epi32(_mm512_set1_epi32(row.x + row.x_step * first),
                               _mm512_mullo_epi32(lane_pixels, _mm512_set1_epi32(row.x_step)));
  __m512i y = _mm512_add_epi32(_mm512_set1_epi32(row.y + row.y_step * first),
                               _mm512_mullo_epi32(lane_pixels, _mm512_set1_epi32(row.y_step)));
  const __m512i x_step16 = _mm512_set1_epi32(row.x_step * 16);
  const __m512i y_step16 = _mm512_set1_epi32(row.y_step * 16);
  const __m512i stride = _mm512_set1_epi32(static_cast<int32_t>(src.stride));
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

}  // namespace

// BilinearInteriorAvx2 with 16 pixels a step: two groups of eight pixels
// gather their taps, and packing the two results per 128-bit lane leaves
// pixels 4k..4k+3 in lane k when the groups are 0 1 4 5 8 9 12 13 and
// 2 3 6 7 10 11 14 15.
int BilinearInteriorAvx512(const KernelRaster& src, const RowPositions& row,
                           const RowPositions& ahead, int first, int last, uint8_t* out,
                           uint64_t* sums) {
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
    sums[c] += uint64_t{totals[c]} + totals[c + 4] + totals[c + 8] + totals[c + 12];
  return i;
}

int NearestInteriorAvx512(const KernelRaster& src, const RowPositions& row, int first, int last,
                          uint8_t* out) {
  return NearestInterior(src, row, first, last, out);
}

int NearestInteriorAvx512(const KernelRaster& src, const RowPositions& row, int first, int last,
                          float* out) {
  return NearestInterior(src, row, first, last, out);
}

}  // namespace segfeed::augment
