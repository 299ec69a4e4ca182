#include "augment/output_conversion.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include <opencv2/core.hpp>

#include "augment/simd_dispatch.h"

namespace segfeed::internal {
namespace {

template <typename T>
T* At(void* base, ptrdiff_t offset_bytes) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(base) + offset_bytes);
}

// One row per call. The two common shapes (interleaved NHWC pixels, planar
// NCHW) get loops the compiler can unroll; anything else takes the general
// strided loop. `table` maps a level to its output value.
template <typename T, typename Table>
void ConvertRow(const uint8_t* src, int width, T* row, ptrdiff_t x_stride_bytes,
                ptrdiff_t channel_stride_bytes, const Table& table) {
  const auto& t0 = table[0];
  const auto& t1 = table[1];
  const auto& t2 = table[2];
  if (x_stride_bytes == 3 * static_cast<ptrdiff_t>(sizeof(T)) &&
      channel_stride_bytes == static_cast<ptrdiff_t>(sizeof(T))) {
    for (int x = 0; x < width; ++x) {
      row[3 * x] = t0[src[3 * x]];
      row[3 * x + 1] = t1[src[3 * x + 1]];
      row[3 * x + 2] = t2[src[3 * x + 2]];
    }
  } else if (x_stride_bytes == static_cast<ptrdiff_t>(sizeof(T))) {
    T* plane0 = row;
    T* plane1 = At<T>(row, channel_stride_bytes);
    T* plane2 = At<T>(row, 2 * channel_stride_bytes);
    for (int x = 0; x < width; ++x) {
      plane0[x] = t0[src[3 * x]];
      plane1[x] = t1[src[3 * x + 1]];
      plane2[x] = t2[src[3 * x + 2]];
    }
  } else {
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        *At<T>(row, x * x_stride_bytes + c * channel_stride_bytes) = table[c][src[3 * x + c]];
  }
}

// Packed mask rows between distinct buffers. `__restrict` lets the compiler
// vectorise: without it, uint8_t stores may alias the source and the loop
// stays scalar.
template <typename T>
void BinarizeRow(const uint8_t* __restrict src, int width, T* __restrict dst) {
  for (int x = 0; x < width; ++x) dst[x] = src[x] != 0 ? T{1} : T{0};
}

// The same in place (one pointer, so no aliasing question): for uint8,
// min(v, 1) is exactly (v != 0).
void BinarizeRowInPlace(uint8_t* row, int width) {
  for (int x = 0; x < width; ++x) row[x] = std::min<uint8_t>(row[x], 1);
}

struct IdentityTable {
  struct Channel {
    uint8_t operator[](uint8_t v) const { return v; }
  };
  Channel channels[3];
  const Channel& operator[](int c) const { return channels[c]; }
};

template <typename T, typename Table>
void ConvertImageWith(const RasterView& rgb, const StridedImage& dst, const Table& table) {
  for (int y = 0; y < rgb.height; ++y) {
    ConvertRow(rgb.Row(y), rgb.width, At<T>(dst.data, y * dst.y_stride_bytes), dst.x_stride_bytes,
               dst.channel_stride_bytes, table);
  }
}

// Byte positions that interleave 8 planar pixels (r0..r7 in bytes 0-7 and
// g0..g7 in bytes 8-15 of `rg`, b0..b7 in bytes 0-7 of `b`) into 24 bytes
// r0 g0 b0 r1 ...; -1 leaves a zero for the other source to fill.
struct InterleaveShuffles {
  int8_t rg_low[16], b_low[16], rg_high[16], b_high[16];
};
constexpr InterleaveShuffles MakeInterleaveShuffles() {
  InterleaveShuffles s{};
  for (int out = 0; out < 24; ++out) {
    const int pixel = out / 3, channel = out % 3;
    int8_t* rg = out < 16 ? s.rg_low : s.rg_high;
    int8_t* b = out < 16 ? s.b_low : s.b_high;
    const int lane = out % 16;
    rg[lane] = channel == 2 ? -1 : static_cast<int8_t>(channel * 8 + pixel);
    b[lane] = channel == 2 ? static_cast<int8_t>(pixel) : -1;
  }
  for (int lane = 8; lane < 16; ++lane) s.rg_high[lane] = s.b_high[lane] = -1;
  return s;
}
constexpr InterleaveShuffles kInterleave = MakeInterleaveShuffles();

#ifdef SEGFEED_HAVE_AVX2_PATH
// Interleaves 8 pixels of planar levels: `low` gets output bytes 0-15,
// the low half of `high` bytes 16-23.
__attribute__((target("avx2"))) inline void InterleaveLevels8(const uint8_t* r, const uint8_t* g,
                                                              const uint8_t* b, __m128i* low,
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
__attribute__((target("avx2"))) inline __m256 LevelsToFloat(__m128i levels, bool normalize,
                                                            __m256 mean, __m256 std) {
  __m256 v =
      _mm256_div_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(levels)), _mm256_set1_ps(255.0f));
  if (normalize) v = _mm256_div_ps(_mm256_sub_ps(v, mean), std);
  return v;
}

// Packed float32 NHWC: interleave the levels as bytes, then convert 8
// consecutive values at a time (their channels repeat every 3 vectors).
// Returns how many pixels it wrote (a multiple of 8); the caller does the rest.
__attribute__((target("avx2"))) int Float32NhwcSpanAvx2(const uint8_t* r, const uint8_t* g,
                                                        const uint8_t* b, int count,
                                                        const OutputOptions& options, float* out) {
  const bool normalize = options.normalize;
  const auto& m = options.mean;
  const auto& d = options.std;
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

// float32 NCHW: one plane per channel, `plane_floats` apart.
__attribute__((target("avx2"))) int Float32NchwSpanAvx2(const uint8_t* r, const uint8_t* g,
                                                        const uint8_t* b, int count,
                                                        const OutputOptions& options, float* out,
                                                        ptrdiff_t plane_floats) {
  const uint8_t* levels[3] = {r, g, b};
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int c = 0; c < 3; ++c) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(levels[c] + i));
      _mm256_storeu_ps(out + c * plane_floats + i,
                       LevelsToFloat(bytes, options.normalize, _mm256_set1_ps(options.mean[c]),
                                     _mm256_set1_ps(options.std[c])));
    }
  }
  return i;
}

// Packed uint8 NHWC: the interleaved bytes are the output.
__attribute__((target("avx2"))) int Uint8NhwcSpanAvx2(const uint8_t* r, const uint8_t* g,
                                                      const uint8_t* b, int count, uint8_t* out) {
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i low, high;
    InterleaveLevels8(r + i, g + i, b + i, &low, &high);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * i), low);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 3 * i + 16), high);
  }
  return i;
}

SEGFEED_AVX512_BEGIN

// 16 levels to float32: level / 255 as a multiply by the rounded reciprocal
// and one FMA correction step (q + (level - q * 255) / 255), which gives the
// correctly rounded quotient, so exactly the table's float32 division, for
// every level 0-255 (OutputConversionTest checks all of them), at a fraction
// of the cost of vdivps. Then (v - mean) / std as in the table; mean 0 and
// std 1 change nothing, so they are skipped.
__attribute__((target(SEGFEED_AVX512_TARGET))) inline __m512 LevelsToFloat16(__m128i levels,
                                                                             bool normalize,
                                                                             __m512 mean,
                                                                             __m512 std) {
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
// Left unset without normalisation, which does not read them.
__attribute__((target(SEGFEED_AVX512_TARGET))) inline void NormalizeLanes(
    const OutputOptions& options, __m512 mean[3], __m512 std[3]) {
  if (!options.normalize) {
    for (int run = 0; run < 3; ++run) mean[run] = std[run] = _mm512_setzero_ps();
    return;
  }
  alignas(64) float mean_lanes[3][16], std_lanes[3][16];
  for (int run = 0; run < 3; ++run) {
    for (int j = 0; j < 16; ++j) {
      mean_lanes[run][j] = options.mean[(run + j) % 3];
      std_lanes[run][j] = options.std[(run + j) % 3];
    }
  }
  for (int run = 0; run < 3; ++run) {
    mean[run] = _mm512_load_ps(mean_lanes[run]);
    std[run] = _mm512_load_ps(std_lanes[run]);
  }
}

// Float32NhwcSpanAvx2 with 16 pixels a step: the interleaved bytes of two
// 8-pixel groups, regrouped into three runs of 16 values.
__attribute__((target(SEGFEED_AVX512_TARGET))) int Float32NhwcSpanAvx512(
    const uint8_t* r, const uint8_t* g, const uint8_t* b, int count, const OutputOptions& options,
    float* out) {
  const bool normalize = options.normalize;
  __m512 mean[3], std[3];
  NormalizeLanes(options, mean, std);
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

// Float32NchwSpanAvx2 with 16 pixels a step.
__attribute__((target(SEGFEED_AVX512_TARGET))) int Float32NchwSpanAvx512(
    const uint8_t* r, const uint8_t* g, const uint8_t* b, int count, const OutputOptions& options,
    float* out, ptrdiff_t plane_floats) {
  const uint8_t* levels[3] = {r, g, b};
  const __m512 mean[3] = {_mm512_set1_ps(options.mean[0]), _mm512_set1_ps(options.mean[1]),
                          _mm512_set1_ps(options.mean[2])};
  const __m512 std[3] = {_mm512_set1_ps(options.std[0]), _mm512_set1_ps(options.std[1]),
                         _mm512_set1_ps(options.std[2])};
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    for (int c = 0; c < 3; ++c) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(levels[c] + i));
      _mm512_storeu_ps(out + c * plane_floats + i,
                       LevelsToFloat16(bytes, options.normalize, mean[c], std[c]));
    }
  }
  return i;
}

// Interleaved RGB levels (`count` pixels) to packed float32 NHWC, 16
// values a step: the bytes are already in output order, so each run of 16
// is one conversion (channels repeat every 3 runs, as in
// Float32NhwcSpanAvx512). Returns the pixels it wrote, a multiple of 16.
__attribute__((target(SEGFEED_AVX512_TARGET))) int Float32NhwcRowAvx512(
    const uint8_t* rgb, int count, const OutputOptions& options, float* out) {
  const bool normalize = options.normalize;
  __m512 mean[3], std[3];
  NormalizeLanes(options, mean, std);
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

SEGFEED_AVX512_END

#endif

// Planar levels to any strided destination through per-channel tables.
template <typename T, typename Table>
void PlanarSpanScalar(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count, T* row,
                      ptrdiff_t x_stride_bytes, ptrdiff_t channel_stride_bytes,
                      const Table& table) {
  for (int i = 0; i < count; ++i) {
    T* pixel = At<T>(row, i * x_stride_bytes);
    pixel[0] = table[0][r[i]];
    *At<T>(pixel, channel_stride_bytes) = table[1][g[i]];
    *At<T>(pixel, 2 * channel_stride_bytes) = table[2][b[i]];
  }
}

}  // namespace

void OutputConverter::ConvertPlanarSpan(const uint8_t* r, const uint8_t* g, const uint8_t* b,
                                        int count, const StridedImage& dst, int y, int x0) const {
  auto* row = static_cast<uint8_t*>(dst.data) + y * dst.y_stride_bytes + x0 * dst.x_stride_bytes;
  int done = 0;
  switch (options_.image_dtype) {
    case ElementType::kUint8:
#ifdef SEGFEED_HAVE_AVX2_PATH
      if (dst.x_stride_bytes == 3 && dst.channel_stride_bytes == 1 && CpuHasAvx2())
        done = Uint8NhwcSpanAvx2(r, g, b, count, row);
#endif
      PlanarSpanScalar(r + done, g + done, b + done, count - done, row + done * dst.x_stride_bytes,
                       dst.x_stride_bytes, dst.channel_stride_bytes, IdentityTable{});
      return;
    case ElementType::kFloat16:
      PlanarSpanScalar(r, g, b, count, reinterpret_cast<uint16_t*>(row), dst.x_stride_bytes,
                       dst.channel_stride_bytes, float16_table_);
      return;
    case ElementType::kFloat32:
#ifdef SEGFEED_HAVE_AVX2_PATH
      if (dst.x_stride_bytes == 12 && dst.channel_stride_bytes == 4 && CpuHasAvx2()) {
        auto* floats = reinterpret_cast<float*>(row);
        if (CpuHasAvx512()) done = Float32NhwcSpanAvx512(r, g, b, count, options_, floats);
        done += Float32NhwcSpanAvx2(r + done, g + done, b + done, count - done, options_,
                                    floats + 3 * done);
      } else if (dst.x_stride_bytes == 4 && dst.channel_stride_bytes % 4 == 0 && CpuHasAvx2()) {
        auto* floats = reinterpret_cast<float*>(row);
        const ptrdiff_t plane_floats = dst.channel_stride_bytes / 4;
        if (CpuHasAvx512())
          done = Float32NchwSpanAvx512(r, g, b, count, options_, floats, plane_floats);
        done += Float32NchwSpanAvx2(r + done, g + done, b + done, count - done, options_,
                                    floats + done, plane_floats);
      }
#endif
      PlanarSpanScalar(r + done, g + done, b + done, count - done,
                       reinterpret_cast<float*>(row + done * dst.x_stride_bytes),
                       dst.x_stride_bytes, dst.channel_stride_bytes, float32_table_);
      return;
  }
}

OutputConverter::OutputConverter(const OutputOptions& options) : options_(options) {
  ValidateOutputOptions(options_);
  for (int c = 0; c < 3; ++c) {
    const float mean = options_.normalize ? options_.mean[c] : 0.0f;
    const float std = options_.normalize ? options_.std[c] : 1.0f;
    for (int level = 0; level < 256; ++level) {
      // The documented formula, in float32, in this order.
      const float value = (static_cast<float>(level) / 255.0f - mean) / std;
      float32_table_[c][level] = value;
      float16_table_[c][level] = cv::float16_t(value).bits();
    }
  }
}

StridedImage OutputConverter::DenseImage(void* data, int width, int height) const {
  const ptrdiff_t element = ElementBytes(options_.image_dtype);
  if (options_.layout == Layout::kNHWC) return {data, width * 3 * element, 3 * element, element};
  return {data, width * element, element, static_cast<ptrdiff_t>(width) * height * element};
}

StridedMask OutputConverter::DenseMask(void* data, int width) const {
  const ptrdiff_t element = ElementBytes(options_.mask_dtype);
  return {data, width * element, element};
}

void OutputConverter::ConvertImage(const RasterView& rgb, const StridedImage& dst) const {
  assert(rgb.channels == 3);
  switch (options_.image_dtype) {
    case ElementType::kUint8:
      if (dst.x_stride_bytes == 3 && dst.channel_stride_bytes == 1) {
        // Same layout as the source: plain row copies (nothing when in place).
        for (int y = 0; y < rgb.height; ++y) {
          uint8_t* row = At<uint8_t>(dst.data, y * dst.y_stride_bytes);
          if (row != rgb.Row(y)) std::memcpy(row, rgb.Row(y), static_cast<size_t>(rgb.width) * 3);
        }
        return;
      }
      ConvertImageWith<uint8_t>(rgb, dst, IdentityTable{});
      return;
    case ElementType::kFloat16:
      ConvertImageWith<uint16_t>(rgb, dst, float16_table_);
      return;
    case ElementType::kFloat32:
#ifdef SEGFEED_HAVE_AVX2_PATH
      if (dst.x_stride_bytes == 12 && dst.channel_stride_bytes == 4 && CpuHasAvx512()) {
        // Without jitter (--no-augment, identity parameters) the image comes
        // here: the same values as the table, 16 at a time.
        for (int y = 0; y < rgb.height; ++y) {
          const uint8_t* src = rgb.Row(y);
          float* row = At<float>(dst.data, y * dst.y_stride_bytes);
          const int done = Float32NhwcRowAvx512(src, rgb.width, options_, row);
          ConvertRow(src + 3 * done, rgb.width - done, row + 3 * done, dst.x_stride_bytes,
                     dst.channel_stride_bytes, float32_table_);
        }
        return;
      }
#endif
      ConvertImageWith<float>(rgb, dst, float32_table_);
      return;
  }
}

void OutputConverter::ConvertMask(const RasterView& mask, const StridedMask& dst) const {
  assert(mask.channels == 1);
  for (int y = 0; y < mask.height; ++y) {
    const uint8_t* src = mask.Row(y);
    if (options_.mask_dtype == ElementType::kUint8) {
      uint8_t* row = At<uint8_t>(dst.data, y * dst.y_stride_bytes);
      if (dst.x_stride_bytes == 1 && row == src) {
        BinarizeRowInPlace(row, mask.width);
      } else if (dst.x_stride_bytes == 1) {
        BinarizeRow(src, mask.width, row);
      } else {
        for (int x = 0; x < mask.width; ++x) row[x * dst.x_stride_bytes] = src[x] != 0;
      }
    } else {
      float* row = At<float>(dst.data, y * dst.y_stride_bytes);
      if (dst.x_stride_bytes == 4) {
        BinarizeRow(src, mask.width, row);
      } else {
        for (int x = 0; x < mask.width; ++x)
          *At<float>(row, x * dst.x_stride_bytes) = src[x] != 0 ? 1.0f : 0.0f;
      }
    }
  }
}

}  // namespace segfeed::internal
