// The output conversion's AVX2 kernels (declared in conversion_kernels.h).
// This file is compiled with -mavx2 and without FMA, so the float32 values
// are the tables' correctly rounded division; it follows the rules in
// simd_dispatch.h, and output_conversion.cc calls it only where
// CpuHasAvx2().

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "augment/conversion_kernels.h"

namespace segfeed::augment {
namespace {

// Interleaves 8 pixels of planar levels: `low` gets output bytes 0-15,
// the low half of `high` bytes 16-23. (conversion_avx512.cc has its own
// copy: the ISA files share no inline code.)
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

// float32 values of 8 levels: (level / 255 - mean) / std in float32, the
// table's formula (mean 0 and std 1 change nothing, so they are skipped).
inline __m256 LevelsToFloat(__m128i levels, bool normalize, __m256 mean, __m256 std) {
  __m256 v =
      _mm256_div_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(levels)), _mm256_set1_ps(255.0f));
  if (normalize) v = _mm256_div_ps(_mm256_sub_ps(v, mean), std);
  return v;
}

}  // namespace

// Packed float32 NHWC: interleave the levels as bytes, then convert 8
// consecutive values at a time (their channels repeat every 3 vectors).
int Float32NhwcSpanAvx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                        const FloatConversion& conversion, float* out) {
  const bool normalize = conversion.normalize;
  const auto& m = conversion.mean;
  const auto& d = conversion.std;
  const __m256 mean[3] = {_mm256_setr_ps(m[0], m[1], m[2], m[0], m[1], m[2], m[0], m[1]),
                          _mm256_setr_ps(m[2], m[0], m[1], m[2], m[0], m[1], m[2], m[0]),
                          _mm256_setr_ps(m[1], m[2], m[0], m[1], m[2], m[0], m[1], m[2])};
  const __m256 std[3] = {_mm256_setr_ps(d[0], d[1], d[2], d[0], d[1], d[2], d[0], d[1]),
                         _mm256_setr_ps(d[2], d[0], d[1], d[2], d[0], d[1], d[2], d[0]),
                         _mm256_setr_ps(d[1], d[2], d[0], d[1], d[2], d[0], d[1], d[2])};
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i low, high;
    InterleaveLevels8(r + i, g + i, b + i, &low, &high);
    float* dst = out + 3 * i;
    _mm256_storeu_ps(dst, LevelsToFloat(low, normalize, mean[0], std[0]));
    _mm256_storeu_ps(dst + 8, LevelsToFloat(_mm_srli_si128(low, 8), normalize, mean[1], std[1]));
    _mm256_storeu_ps(dst + 16, LevelsToFloat(high, normalize, mean[2], std[2]));
  }
  return i;
}

int Float32NchwSpanAvx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                        const FloatConversion& conversion, float* out, ptrdiff_t plane_floats) {
  const uint8_t* levels[3] = {r, g, b};
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int c = 0; c < 3; ++c) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(levels[c] + i));
      _mm256_storeu_ps(
          out + c * plane_floats + i,
          LevelsToFloat(bytes, conversion.normalize, _mm256_set1_ps(conversion.mean[c]),
                        _mm256_set1_ps(conversion.std[c])));
    }
  }
  return i;
}

// Packed uint8 NHWC: the interleaved bytes are the output.
int Uint8NhwcSpanAvx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                      uint8_t* out) {
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i low, high;
    InterleaveLevels8(r + i, g + i, b + i, &low, &high);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * i), low);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 3 * i + 16), high);
  }
  return i;
}

// Label ids, 8 (int32) or 4 (int64) widened per step; a step whose ids
// include the ignore value blends in the ignore index.
int LabelInt32SpanAvx2(const uint8_t* ids, int count, uint8_t ignore_value, int32_t ignore_index,
                       int32_t* out) {
  const __m256i ignore = _mm256_set1_epi32(ignore_value);
  const __m256i index = _mm256_set1_epi32(ignore_index);
  int x = 0;
  for (; x + 8 <= count; x += 8) {
    const __m256i v =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(ids + x)));
    const __m256i labels = _mm256_blendv_epi8(v, index, _mm256_cmpeq_epi32(v, ignore));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), labels);
  }
  return x;
}

int LabelInt64SpanAvx2(const uint8_t* ids, int count, uint8_t ignore_value, int64_t ignore_index,
                       int64_t* out) {
  const __m256i ignore = _mm256_set1_epi64x(ignore_value);
  const __m256i index = _mm256_set1_epi64x(ignore_index);
  int x = 0;
  for (; x + 16 <= count; x += 16) {
    const __m128i sixteen = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ids + x));
    for (int quarter = 0; quarter < 4; ++quarter) {
      // The quarter's 4 ids moved to the low lanes (the shift takes a constant).
      const __m128i four = quarter == 0   ? sixteen
                           : quarter == 1 ? _mm_srli_si128(sixteen, 4)
                           : quarter == 2 ? _mm_srli_si128(sixteen, 8)
                                          : _mm_srli_si128(sixteen, 12);
      const __m256i v = _mm256_cvtepu8_epi64(four);
      const __m256i labels = _mm256_blendv_epi8(v, index, _mm256_cmpeq_epi64(v, ignore));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x + 4 * quarter), labels);
    }
  }
  return x;
}

}  // namespace segfeed::augment
