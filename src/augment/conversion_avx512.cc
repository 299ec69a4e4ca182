// The output conversion's AVX-512 kernels (declared in conversion_kernels.h):
// 16 values a step. This file is compiled for AVX-512 F, BW, VL and DQ and
// FMA, which LevelsToFloat16 uses on purpose; it follows the rules in
// simd_dispatch.h, and output_conversion.cc calls it only where
// CpuHasAvx512().

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "augment/conversion_kernels.h"

namespace segfeed::augment {
namespace {

// InterleaveLevels8 of conversion_avx2.cc: 8 pixels of planar levels, output
// bytes 0-15 to `low`, bytes 16-23 to the low half of `high`.
inline void InterleaveLevels8(const uint8_t* r, const uint8_t* g, const uint8_t* b, __m128i* low,
                              __m128i* high) {
  const __m128i rg = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r)),
                                        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(g)));
  const __m128i bb = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b));
  auto load = [](const int8_t* lanes) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(lanes));
  };
  *low = _mm_or_si128(_mm_shuffle_epi8(rg, load(kInterleave.rg_low)),
                      _mm_shuffle_epi8(bb, load(kInterleave.b_low)));
  *high = _mm_or_si128(_mm_shuffle_epi8(rg, load(kInterleave.rg_high)),
                       _mm_shuffle_epi8(bb, load(kInterleave.b_high)));
}

// 16 levels to float32: level / 255 as a multiply by the rounded reciprocal
// and one FMA correction step (q + (level - q * 255) / 255), which gives the
// correctly rounded quotient, so exactly the table's float32 division, for
// every level 0-255 (OutputConversionTest checks all of them), at a fraction
// of the cost of vdivps. Then (v - mean) / std as in the table; mean 0 and
// std 1 change nothing, so they are skipped.
inline __m512 LevelsToFloat16(__m128i levels, bool normalize, __m512 mean, __m512 std) {
  const __m512 x = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(levels));
  const __m512 divisor = _mm512_set1_ps(255.0f);
  const __m512 reciprocal = _mm512_set1_ps(1.0f / 255.0f);
  const __m512 q = _mm512_mul_ps(x, reciprocal);
  __m512 v = _mm512_fmadd_ps(_mm512_fnmadd_ps(q, divisor, x), reciprocal, q);
  if (normalize) v = _mm512_div_ps(_mm512_sub_ps(v, mean), std);
  return v;
}

// Mean and std per lane for 48 interleaved values, where value j belongs to
// channel j % 3: runs of 16 values start at channel 0, 1 and 2 in turn.
// Left zero without normalisation, which does not read them.
inline void NormalizeLanes(const FloatConversion& conversion, __m512 mean[3], __m512 std[3]) {
  if (!conversion.normalize) {
    for (int run = 0; run < 3; ++run) mean[run] = std[run] = _mm512_setzero_ps();
    return;
  }
  alignas(64) float mean_lanes[3][16], std_lanes[3][16];
  for (int run = 0; run < 3; ++run) {
    for (int j = 0; j < 16; ++j) {
      mean_lanes[run][j] = conversion.mean[(run + j) % 3];
      std_lanes[run][j] = conversion.std[(run + j) % 3];
    }
  }
  for (int run = 0; run < 3; ++run) {
    mean[run] = _mm512_load_ps(mean_lanes[run]);
    std[run] = _mm512_load_ps(std_lanes[run]);
  }
}

}  // namespace

// Float32NhwcSpanAvx2 with 16 pixels a step: the interleaved bytes of two
// 8-pixel groups, regrouped into three runs of 16 values.
int Float32NhwcSpanAvx512(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                          const FloatConversion& conversion, float* out) {
  const bool normalize = conversion.normalize;
  __m512 mean[3], std[3];
  NormalizeLanes(conversion, mean, std);
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    __m128i low0, high0, low1, high1;  // values 0-15, 16-23, 24-39, 40-47
    InterleaveLevels8(r + i, g + i, b + i, &low0, &high0);
    InterleaveLevels8(r + i + 8, g + i + 8, b + i + 8, &low1, &high1);
    float* dst = out + 3 * i;
    _mm512_storeu_ps(dst, LevelsToFloat16(low0, normalize, mean[0], std[0]));
    _mm512_storeu_ps(dst + 16,
                     LevelsToFloat16(_mm_unpacklo_epi64(high0, low1), normalize, mean[1], std[1]));
    _mm512_storeu_ps(dst + 32,
                     LevelsToFloat16(_mm_alignr_epi8(high1, low1, 8), normalize, mean[2], std[2]));
  }
  return i;
}

int Float32NchwSpanAvx512(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                          const FloatConversion& conversion, float* out, ptrdiff_t plane_floats) {
  const uint8_t* levels[3] = {r, g, b};
  const __m512 mean[3] = {_mm512_set1_ps(conversion.mean[0]), _mm512_set1_ps(conversion.mean[1]),
                          _mm512_set1_ps(conversion.mean[2])};
  const __m512 std[3] = {_mm512_set1_ps(conversion.std[0]), _mm512_set1_ps(conversion.std[1]),
                         _mm512_set1_ps(conversion.std[2])};
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    for (int c = 0; c < 3; ++c) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(levels[c] + i));
      _mm512_storeu_ps(out + c * plane_floats + i,
                       LevelsToFloat16(bytes, conversion.normalize, mean[c], std[c]));
    }
  }
  return i;
}

// The bytes are already in output order, so each run of 16 is one
// conversion (channels repeat every 3 runs, as in Float32NhwcSpanAvx512).
int Float32NhwcRowAvx512(const uint8_t* rgb, int count, const FloatConversion& conversion,
                         float* out) {
  const bool normalize = conversion.normalize;
  __m512 mean[3], std[3];
  NormalizeLanes(conversion, mean, std);
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    for (int run = 0; run < 3; ++run) {
      const int value = 3 * i + 16 * run;
      const __m128i levels = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rgb + value));
      _mm512_storeu_ps(out + value, LevelsToFloat16(levels, normalize, mean[run], std[run]));
    }
  }
  return i;
}

}  // namespace segfeed::augment
