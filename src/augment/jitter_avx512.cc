// The fixed-point colour jitter's AVX-512 kernel (declared in
// jitter_kernels.h): FixedPointJitterAvx2 with 32 words per vector, the same
// integer operations, so the same bits. This file is compiled for AVX-512
// F, BW, VL and DQ (and FMA); it follows the rules in simd_dispatch.h, and
// jitter_fixed_point.cc calls it only where CpuHasAvx512().

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "augment/jitter_kernels.h"

namespace segfeed::augment {
namespace {

inline __m128i Load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

// Levels * 64 clamped to [0, kWhite], 32 words.
inline __m512i Clamp32(__m512i v) {
  return _mm512_min_epi16(_mm512_max_epi16(v, _mm512_setzero_si512()), _mm512_set1_epi16(kWhite));
}

}  // namespace

// Where FixedPointJitterAvx2 blends on byte masks, this keeps the same
// selections in mask registers: a word's role bits are tested directly
// instead of shifted into bit 7.
//
// One function of about 100 lines on purpose, over the 90 the rest of src/
// keeps to: it is one loop body over 32 pixels (load and deinterleave,
// contrast and brightness, the HSV rotation, store), and its broadcast
// constants, shuffle tables and per-pixel vectors stay in zmm registers
// across iterations. Split into helpers, they would be passed by value and
// stay in registers only as long as the inliner agrees, and the kernel's
// instructions would depend on that, for no reader's gain.
// NOLINTNEXTLINE(readability-function-size): the exception named above
int FixedPointJitterAvx512(const FixedPointJitterConstants& k, const uint8_t* p, int count,
                           uint8_t* r_out, uint8_t* g_out, uint8_t* b_out) {
  const __m512i contrast = _mm512_set1_epi16(k.contrast_q15);
  const __m512i brightness = _mm512_set1_epi16(k.brightness);
  const __m512i saturation = _mm512_set1_epi16(k.saturation_q15);
  const __m512i shift_fraction = _mm512_set1_epi16(k.shift_fraction_q15);
  const __m512i shift_whole = _mm512_set1_epi16(k.shift_whole_plus_2);
  const __m512i half_level = _mm512_set1_epi16(kOneLevel / 2);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi16(1);
  const __m512i is_max = _mm512_set1_epi16(kIsMax);
  const __m512i is_min = _mm512_set1_epi16(kIsMin);
  const __m512i is_even = _mm512_set1_epi16(kIsEven);
  // Locals, not fields of `k` (see FixedPointJitterAvx2).
  const bool contrast_on = k.contrast, saturation_hue = k.saturation_hue;
  const bool scale_chroma = k.scale_chroma;
  const __m512i means[3] = {_mm512_set1_epi16(k.mean[0]), _mm512_set1_epi16(k.mean[1]),
                            _mm512_set1_epi16(k.mean[2])};
  const __m512i tables[3] = {_mm512_broadcast_i32x4(Load16(kChannelTables.role[0])),
                             _mm512_broadcast_i32x4(Load16(kChannelTables.role[1])),
                             _mm512_broadcast_i32x4(Load16(kChannelTables.role[2]))};
  // The deinterleave shuffles of FixedPointJitterAvx2 in both 128-bit lanes: the low
  // lane takes pixels 0-15, the high lane pixels 16-31.
  __m256i shuffles[3][3];
  for (int c = 0; c < 3; ++c)
    for (int load = 0; load < 3; ++load)
      shuffles[c][load] = _mm256_broadcastsi128_si256(Load16(kDeinterleave.lanes[c][load]));
  int i = 0;
  for (; i + 32 <= count; i += 32) {
    const uint8_t* q = p + 3 * i;
    __m256i loads[3];
    for (int load = 0; load < 3; ++load)
      loads[load] = _mm256_inserti128_si256(_mm256_castsi128_si256(Load16(q + 16 * load)),
                                            Load16(q + 48 + 16 * load), 1);
    __m512i v[3];
    for (int c = 0; c < 3; ++c) {
      __m256i bytes = _mm256_setzero_si256();
      for (int load = 0; load < 3; ++load)
        bytes = _mm256_or_si256(bytes, _mm256_shuffle_epi8(loads[load], shuffles[c][load]));
      v[c] = _mm512_slli_epi16(_mm512_cvtepu8_epi16(bytes), 6);
      if (contrast_on) {
        v[c] = Clamp32(_mm512_add_epi16(
            means[c], _mm512_mulhrs_epi16(_mm512_sub_epi16(v[c], means[c]), contrast)));
      }
      v[c] = Clamp32(_mm512_add_epi16(v[c], brightness));
    }
    if (saturation_hue) {
      const __m512i r = v[0], g = v[1], b = v[2];
      const __m512i value = _mm512_max_epi16(r, _mm512_max_epi16(g, b));
      const __m512i least = _mm512_min_epi16(r, _mm512_min_epi16(g, b));
      const __m512i middle =
          _mm512_max_epi16(_mm512_min_epi16(r, g), _mm512_min_epi16(_mm512_max_epi16(r, g), b));
      const __m512i chroma = _mm512_sub_epi16(value, least);
      const __m512i rise = _mm512_sub_epi16(middle, least);
      const __mmask32 red_max = _mm512_cmpeq_epi16_mask(value, r);
      const __mmask32 green_max = _mm512_mask_cmpeq_epi16_mask(~red_max, value, g);
      const __mmask32 blue_max = ~(red_max | green_max);
      const __mmask32 falling = (red_max & _mm512_cmpgt_epi16_mask(b, g)) |
                                (green_max & _mm512_cmpgt_epi16_mask(r, b)) |
                                (blue_max & _mm512_cmpgt_epi16_mask(g, r));
      // base: 0 where red is largest, 2 where green is, else 4.
      __m512i base = _mm512_mask_mov_epi16(_mm512_set1_epi16(4), green_max, _mm512_set1_epi16(2));
      base = _mm512_mask_mov_epi16(base, red_max, zero);
      const __m512i position = _mm512_mask_sub_epi16(rise, falling, chroma, rise);
      const __m512i shifted =
          _mm512_add_epi16(position, _mm512_mulhrs_epi16(chroma, shift_fraction));
      const __mmask32 no_wrap = _mm512_cmpgt_epi16_mask(chroma, shifted);
      const __m512i new_position = _mm512_mask_sub_epi16(shifted, ~no_wrap, shifted, chroma);
      __m512i code = _mm512_add_epi16(base, shift_whole);
      code = _mm512_mask_sub_epi16(code, falling, code, one);
      code = _mm512_mask_sub_epi16(code, no_wrap, code, one);
      // Codes are below 16, so a byte shuffle within each 128-bit lane
      // looks them up; the low byte of each word is the answer.
      const __m512i roles[3] = {_mm512_shuffle_epi8(tables[0], code),
                                _mm512_shuffle_epi8(tables[1], code),
                                _mm512_shuffle_epi8(tables[2], code)};
      const __mmask32 even = _mm512_test_epi16_mask(roles[0], is_even);
      const __m512i new_rise =
          _mm512_mask_mov_epi16(_mm512_sub_epi16(chroma, new_position), even, new_position);
      __m512i low, mid;
      if (scale_chroma) {
        low = _mm512_sub_epi16(value, _mm512_mulhrs_epi16(chroma, saturation));
        mid = _mm512_add_epi16(low, _mm512_mulhrs_epi16(new_rise, saturation));
      } else {
        low = least;  // value - chroma
        mid = _mm512_add_epi16(low, new_rise);
      }
      for (int c = 0; c < 3; ++c) {
        v[c] = _mm512_mask_mov_epi16(mid, _mm512_test_epi16_mask(roles[c], is_max), value);
        v[c] = _mm512_mask_mov_epi16(v[c], _mm512_test_epi16_mask(roles[c], is_min), low);
      }
    }
    // Levels are 0..255 after the shift: truncating words to bytes is exact.
    uint8_t* outs[3] = {r_out, g_out, b_out};
    for (int c = 0; c < 3; ++c) {
      const __m512i levels = _mm512_srli_epi16(_mm512_add_epi16(v[c], half_level), 6);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(outs[c] + i), _mm512_cvtepi16_epi8(levels));
    }
  }
  return i;
}

}  // namespace segfeed::augment
