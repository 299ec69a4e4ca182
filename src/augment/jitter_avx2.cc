// The colour jitter's AVX2 kernels (declared in jitter_kernels.h): the
// fixed-point one, 16 pixels a step, the float32 one, 8 pixels a step, and
// the linear model's matrix, 16 pixels a step, each the same operations as
// its one-pixel version. This file is compiled
// with -mavx2 and without FMA (a fused multiply-add would round the float32
// path differently from the one-pixel code); it follows the rules in
// simd_dispatch.h, and its callers run it only where CpuHasAvx2().

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "augment/jitter_kernels.h"

namespace segfeed::augment {
namespace {

inline __m128i Load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

inline __m256i Clamp16(__m256i v) {
  return _mm256_min_epi16(_mm256_max_epi16(v, _mm256_setzero_si256()), _mm256_set1_epi16(kWhite));
}

// A table in both 128-bit lanes: _mm256_shuffle_epi8 of it by a vector
// holding each lane's code in both bytes of each word gives word masks.
inline __m256i LoadTable(const uint8_t* table) {
  return _mm256_broadcastsi128_si256(Load16(table));
}

inline __m256 Clamp01Avx2(__m256 v) {
  return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
}

inline __m256 HsvChannelAvx2(float n, __m256 value, __m256 chroma, __m256 hue) {
  const __m256 six = _mm256_set1_ps(6.0f);
  __m256 k = _mm256_add_ps(_mm256_set1_ps(n), hue);
  k = _mm256_blendv_ps(k, _mm256_sub_ps(k, six), _mm256_cmp_ps(k, six, _CMP_GE_OQ));
  const __m256 f = _mm256_min_ps(
      _mm256_max_ps(_mm256_min_ps(k, _mm256_sub_ps(_mm256_set1_ps(4.0f), k)), _mm256_setzero_ps()),
      _mm256_set1_ps(1.0f));
  return _mm256_sub_ps(value, _mm256_mul_ps(chroma, f));
}

// 16 pixels' bytes of channel `c` from three 16-byte loads of RGB pixels.
inline __m128i DeinterleaveAvx2(const __m128i loads[3], int c) {
  __m128i bytes = _mm_setzero_si128();
  for (int load = 0; load < 3; ++load)
    bytes =
        _mm_or_si128(bytes, _mm_shuffle_epi8(loads[load], Load16(kDeinterleave.lanes[c][load])));
  return bytes;
}

// The matrix as vectors: [output channel][coefficient], and the shift.
struct MatrixRowsAvx2 {
  __m256i m[3][4];
  __m128i shift;
};

inline MatrixRowsAvx2 LoadMatrixAvx2(const FixedColourMatrix& matrix) {
  MatrixRowsAvx2 rows;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 4; ++k) rows.m[c][k] = _mm256_set1_epi32(matrix.m[4 * c + k]);
  rows.shift = _mm_cvtsi32_si128(matrix.shift);
  return rows;
}

// One output channel of 8 pixels, shifted but not clamped.
inline __m256i MatrixRowAvx2(const __m256i row[4], __m128i shift, const __m256i in[3]) {
  __m256i sum = _mm256_add_epi32(_mm256_mullo_epi32(row[0], in[0]), row[3]);
  sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(row[1], in[1]));
  sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(row[2], in[2]));
  return _mm256_sra_epi32(sum, shift);
}

// 16 pixels, 16 bytes of each input channel, to the three output channels.
// The two saturating packs are the one-pixel code's clamp to 0..255: a
// value outside int16 keeps its sign, and uint8 saturation does the rest.
inline void ColourMatrixStepAvx2(const MatrixRowsAvx2& rows, const __m128i in[3], uint8_t* out0,
                                 uint8_t* out1, uint8_t* out2) {
  const __m256i low[3] = {_mm256_cvtepu8_epi32(in[0]), _mm256_cvtepu8_epi32(in[1]),
                          _mm256_cvtepu8_epi32(in[2])};
  const __m256i high[3] = {_mm256_cvtepu8_epi32(_mm_srli_si128(in[0], 8)),
                           _mm256_cvtepu8_epi32(_mm_srli_si128(in[1], 8)),
                           _mm256_cvtepu8_epi32(_mm_srli_si128(in[2], 8))};
  uint8_t* const outs[3] = {out0, out1, out2};
  for (int c = 0; c < 3; ++c) {
    // Words l0-3 h0-3 | l4-7 h4-7, quadwords reordered to l0-7 h0-7.
    const __m256i words =
        _mm256_permute4x64_epi64(_mm256_packs_epi32(MatrixRowAvx2(rows.m[c], rows.shift, low),
                                                    MatrixRowAvx2(rows.m[c], rows.shift, high)),
                                 0xD8);
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(outs[c]),
        _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1)));
  }
}

inline __m256i ToLevelAvx2(__m256 v) {
  return _mm256_cvttps_epi32(
      _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(255.0f)), _mm256_set1_ps(0.5f)));
}

}  // namespace

int FixedPointJitterAvx2(const FixedPointJitterConstants& k, const uint8_t* p, int count,
                         uint8_t* r_out, uint8_t* g_out, uint8_t* b_out) {
  const __m256i contrast = _mm256_set1_epi16(k.contrast_q15);
  const __m256i brightness = _mm256_set1_epi16(k.brightness);
  const __m256i saturation = _mm256_set1_epi16(k.saturation_q15);
  const __m256i shift_fraction = _mm256_set1_epi16(k.shift_fraction_q15);
  const __m256i shift_whole = _mm256_set1_epi16(k.shift_whole_plus_2);
  const __m256i half_level = _mm256_set1_epi16(kOneLevel / 2);
  // Locals, not fields of `k`: stores through the uint8_t outputs may
  // alias `k` as far as the compiler knows, which would reload every field
  // after every store.
  const bool contrast_on = k.contrast, saturation_hue = k.saturation_hue;
  const bool scale_chroma = k.scale_chroma;
  const __m256i means[3] = {_mm256_set1_epi16(k.mean[0]), _mm256_set1_epi16(k.mean[1]),
                            _mm256_set1_epi16(k.mean[2])};
  const __m256i tables[3] = {LoadTable(kChannelTables.role[0]), LoadTable(kChannelTables.role[1]),
                             LoadTable(kChannelTables.role[2])};
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i loads[3] = {Load16(p + 3 * i), Load16(p + 3 * i + 16), Load16(p + 3 * i + 32)};
    __m256i v[3];
    for (int c = 0; c < 3; ++c) {
      v[c] = _mm256_slli_epi16(_mm256_cvtepu8_epi16(DeinterleaveAvx2(loads, c)), 6);
      if (contrast_on) {
        v[c] = Clamp16(_mm256_add_epi16(
            means[c], _mm256_mulhrs_epi16(_mm256_sub_epi16(v[c], means[c]), contrast)));
      }
      v[c] = Clamp16(_mm256_add_epi16(v[c], brightness));
    }
    if (saturation_hue) {
      const __m256i r = v[0], g = v[1], b = v[2];
      const __m256i value = _mm256_max_epi16(r, _mm256_max_epi16(g, b));
      const __m256i least = _mm256_min_epi16(r, _mm256_min_epi16(g, b));
      const __m256i middle =
          _mm256_max_epi16(_mm256_min_epi16(r, g), _mm256_min_epi16(_mm256_max_epi16(r, g), b));
      const __m256i chroma = _mm256_sub_epi16(value, least);
      const __m256i rise = _mm256_sub_epi16(middle, least);
      const __m256i red_max = _mm256_cmpeq_epi16(value, r);
      const __m256i green_max = _mm256_andnot_si256(red_max, _mm256_cmpeq_epi16(value, g));
      const __m256i falling = _mm256_blendv_epi8(
          _mm256_blendv_epi8(_mm256_cmpgt_epi16(g, r), _mm256_cmpgt_epi16(r, b), green_max),
          _mm256_cmpgt_epi16(b, g), red_max);
      // base = 4, minus 4 where red is largest, minus 2 where green is.
      const __m256i base =
          _mm256_add_epi16(_mm256_set1_epi16(4),
                           _mm256_or_si256(_mm256_and_si256(red_max, _mm256_set1_epi16(-4)),
                                           _mm256_and_si256(green_max, _mm256_set1_epi16(-2))));
      const __m256i position = _mm256_blendv_epi8(rise, _mm256_sub_epi16(chroma, rise), falling);
      const __m256i shifted =
          _mm256_add_epi16(position, _mm256_mulhrs_epi16(chroma, shift_fraction));
      const __m256i no_wrap = _mm256_cmpgt_epi16(chroma, shifted);
      const __m256i new_position = _mm256_sub_epi16(shifted, _mm256_andnot_si256(no_wrap, chroma));
      // Masks are -1 where true: adding them subtracts 1.
      const __m256i code =
          _mm256_add_epi16(_mm256_add_epi16(base, shift_whole), _mm256_add_epi16(falling, no_wrap));
      const __m256i code2 = _mm256_or_si256(code, _mm256_slli_epi16(code, 8));
      // Each lane's table byte in both bytes of the word, so that shifting
      // the word moves bit 6 (or 5) of each byte to its bit 7.
      const __m256i roles[3] = {_mm256_shuffle_epi8(tables[0], code2),
                                _mm256_shuffle_epi8(tables[1], code2),
                                _mm256_shuffle_epi8(tables[2], code2)};
      const __m256i new_rise = _mm256_blendv_epi8(_mm256_sub_epi16(chroma, new_position),
                                                  new_position, _mm256_slli_epi16(roles[0], 2));
      __m256i low, mid;
      if (scale_chroma) {
        low = _mm256_sub_epi16(value, _mm256_mulhrs_epi16(chroma, saturation));
        mid = _mm256_add_epi16(low, _mm256_mulhrs_epi16(new_rise, saturation));
      } else {
        low = least;  // value - chroma
        mid = _mm256_add_epi16(low, new_rise);
      }
      for (int c = 0; c < 3; ++c) {
        v[c] = _mm256_blendv_epi8(mid, value, roles[c]);
        v[c] = _mm256_blendv_epi8(v[c], low, _mm256_slli_epi16(roles[c], 1));
      }
    }
    for (__m256i& channel : v)
      channel = _mm256_srli_epi16(_mm256_add_epi16(channel, half_level), 6);
    // packus works per 128-bit lane: r0-7 g0-7 | r8-15 g8-15, then qwords
    // reordered to r0-15 | g0-15.
    const __m256i rg = _mm256_permute4x64_epi64(_mm256_packus_epi16(v[0], v[1]), 0xD8);
    const __m256i bb = _mm256_permute4x64_epi64(_mm256_packus_epi16(v[2], v[2]), 0xD8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r_out + i), _mm256_castsi256_si128(rg));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(g_out + i), _mm256_extracti128_si256(rg, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(b_out + i), _mm256_castsi256_si128(bb));
  }
  return i;
}

// The float32 path, 8 pixels a step, the same operations in the same order
// as JitterPixelsScalar (color_jitter.cc).
int FloatJitterAvx2(const FloatJitterConstants& k, const uint8_t* p, int count, uint8_t* r_out,
                    uint8_t* g_out, uint8_t* b_out) {
  // Byte j of 24 interleaved bytes belongs to channel j % 3, pixel j / 3.
  const __m128i r_low = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i r_high =
      _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i g_low = _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i g_high = _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i b_low = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i b_high = _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256 brightness = _mm256_set1_ps(k.brightness);
  const __m256 gain[3] = {_mm256_set1_ps(k.gain[0]), _mm256_set1_ps(k.gain[1]),
                          _mm256_set1_ps(k.gain[2])};
  const __m256 offset[3] = {_mm256_set1_ps(k.offset[0]), _mm256_set1_ps(k.offset[1]),
                            _mm256_set1_ps(k.offset[2])};
  const __m256 saturation = _mm256_set1_ps(k.saturation_factor);
  const __m256 shift = _mm256_set1_ps(k.hue_shift_plus_6);
  const __m256 six = _mm256_set1_ps(6.0f);
  const __m256i planar = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    const uint8_t* q = p + 3 * i;
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const __m128i high = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + 16));
    const __m128i bytes[3] = {
        _mm_or_si128(_mm_shuffle_epi8(low, r_low), _mm_shuffle_epi8(high, r_high)),
        _mm_or_si128(_mm_shuffle_epi8(low, g_low), _mm_shuffle_epi8(high, g_high)),
        _mm_or_si128(_mm_shuffle_epi8(low, b_low), _mm_shuffle_epi8(high, b_high))};
    __m256 v[3];
    for (int c = 0; c < 3; ++c) {
      const __m256 level = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes[c]));
      v[c] = Clamp01Avx2(_mm256_add_ps(_mm256_mul_ps(level, gain[c]), offset[c]));
      v[c] = Clamp01Avx2(_mm256_add_ps(v[c], brightness));
    }
    if (k.hue_saturation) {
      const __m256 r = v[0], g = v[1], b = v[2];
      const __m256 value = _mm256_max_ps(r, _mm256_max_ps(g, b));
      const __m256 chroma = _mm256_sub_ps(value, _mm256_min_ps(r, _mm256_min_ps(g, b)));
      const __m256 new_chroma = _mm256_min_ps(_mm256_mul_ps(chroma, saturation), value);
      const __m256 inv =
          _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_max_ps(chroma, _mm256_set1_ps(1e-30f)));
      const __m256 hue_r = _mm256_mul_ps(_mm256_sub_ps(g, b), inv);
      const __m256 hue_g =
          _mm256_add_ps(_mm256_set1_ps(2.0f), _mm256_mul_ps(_mm256_sub_ps(b, r), inv));
      const __m256 hue_b =
          _mm256_add_ps(_mm256_set1_ps(4.0f), _mm256_mul_ps(_mm256_sub_ps(r, g), inv));
      __m256 hue = _mm256_blendv_ps(hue_b, hue_g, _mm256_cmp_ps(value, g, _CMP_EQ_OQ));
      hue = _mm256_blendv_ps(hue, hue_r, _mm256_cmp_ps(value, r, _CMP_EQ_OQ));
      hue = _mm256_add_ps(hue, shift);
      hue = _mm256_blendv_ps(hue, _mm256_sub_ps(hue, six), _mm256_cmp_ps(hue, six, _CMP_GE_OQ));
      hue = _mm256_blendv_ps(hue, _mm256_sub_ps(hue, six), _mm256_cmp_ps(hue, six, _CMP_GE_OQ));
      v[0] = HsvChannelAvx2(5.0f, value, new_chroma, hue);
      v[1] = HsvChannelAvx2(3.0f, value, new_chroma, hue);
      v[2] = HsvChannelAvx2(1.0f, value, new_chroma, hue);
    }
    // Levels to bytes: r0-3 g0-3 b0-3 b0-3 | r4-7 g4-7 b4-7 b4-7, then
    // dwords reordered to r0-7 g0-7 b0-7.
    const __m256i rg = _mm256_packus_epi32(ToLevelAvx2(v[0]), ToLevelAvx2(v[1]));
    const __m256i bb = _mm256_packus_epi32(ToLevelAvx2(v[2]), ToLevelAvx2(v[2]));
    const __m256i levels = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(rg, bb), planar);
    const __m128i rg_levels = _mm256_castsi256_si128(levels);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(r_out + i), rg_levels);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(g_out + i), _mm_srli_si128(rg_levels, 8));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(b_out + i), _mm256_extracti128_si256(levels, 1));
  }
  return i;
}

int ColourMatrixPlanarAvx2(const FixedColourMatrix& matrix, const uint8_t* in0, const uint8_t* in1,
                           const uint8_t* in2, int count, uint8_t* out0, uint8_t* out1,
                           uint8_t* out2) {
  const MatrixRowsAvx2 rows = LoadMatrixAvx2(matrix);
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i in[3] = {Load16(in0 + i), Load16(in1 + i), Load16(in2 + i)};
    ColourMatrixStepAvx2(rows, in, out0 + i, out1 + i, out2 + i);
  }
  return i;
}

int ColourMatrixInterleavedAvx2(const FixedColourMatrix& matrix, const uint8_t* p, int count,
                                uint8_t* out0, uint8_t* out1, uint8_t* out2) {
  const MatrixRowsAvx2 rows = LoadMatrixAvx2(matrix);
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i loads[3] = {Load16(p + 3 * i), Load16(p + 3 * i + 16), Load16(p + 3 * i + 32)};
    const __m128i in[3] = {DeinterleaveAvx2(loads, 0), DeinterleaveAvx2(loads, 1),
                           DeinterleaveAvx2(loads, 2)};
    ColourMatrixStepAvx2(rows, in, out0 + i, out1 + i, out2 + i);
  }
  return i;
}

}  // namespace segfeed::augment
