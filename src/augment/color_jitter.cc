#include "augment/color_jitter.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SEGFEED_HAVE_AVX2_PATH 1
#endif

namespace segfeed::internal {
namespace {

// Per-channel means on the [0, 1] scale, from exact integer sums so the
// result does not depend on summation order.
std::array<double, 3> ChannelMeans(const RasterView& rgb) {
  // 48 bytes are 16 whole pixels: byte j of every 48-byte block belongs to
  // channel j % 3. Summing blocks lane by lane vectorises; 16-bit lanes hold
  // up to 257 blocks, so flush them to 64-bit totals every 256 blocks.
  constexpr int kBlock = 48;
  std::array<uint64_t, kBlock> lane_totals{};
  std::array<uint64_t, 3> sums{0, 0, 0};
  const int row_bytes = rgb.width * 3;
  for (int y = 0; y < rgb.height; ++y) {
    const uint8_t* row = rgb.Row(y);
    int x = 0;
    while (x + kBlock <= row_bytes) {
      uint16_t lanes[kBlock] = {};
      for (int blocks = 0; blocks < 256 && x + kBlock <= row_bytes; ++blocks, x += kBlock)
        for (int j = 0; j < kBlock; ++j) lanes[j] = static_cast<uint16_t>(lanes[j] + row[x + j]);
      for (int j = 0; j < kBlock; ++j) lane_totals[j] += lanes[j];
    }
    for (; x < row_bytes; ++x) sums[x % 3] += row[x];
  }
  for (int j = 0; j < kBlock; ++j) sums[j % 3] += lane_totals[j];
  const double count = static_cast<double>(rgb.width) * rgb.height * 255.0;
  return {sums[0] / count, sums[1] / count, sums[2] / count};
}

float Clamp01(float v) { return std::min(std::max(v, 0.0f), 1.0f); }

uint8_t ToLevel(float v) { return static_cast<uint8_t>(static_cast<int>(v * 255.0f + 0.5f)); }

// Pixels per batch of the float kernel: small enough to stay in L1.
constexpr int kChunk = 64;

// Saturation and hue on planar float pixels in [0, 1], rounded to planar
// levels (rounding here keeps the conversion vectorised too). Written
// without branches so the compiler vectorises it; on x86-64 it is also built
// for AVX2 and the best version is picked at load time. Neither version uses
// fused multiply-add or approximate reciprocals, so both give the same bits.
// Not under ThreadSanitizer: the clone resolver runs during relocation,
// before the TSan runtime is up, and its instrumented entry crashes every
// program that loads the library.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
void SaturationHueKernel(const float* __restrict r, const float* __restrict g,
                         const float* __restrict b, int n, float saturation_factor,
                         float hue_shift_sextants, uint8_t* __restrict r_out,
                         uint8_t* __restrict g_out, uint8_t* __restrict b_out) {
  for (int i = 0; i < n; ++i) {
    const float rv = r[i], gv = g[i], bv = b[i];
    const float value = std::max(rv, std::max(gv, bv));
    const float chroma = value - std::min(rv, std::min(gv, bv));
    // s' = min(1, s * factor) with s = chroma / value, as a chroma.
    const float new_chroma = std::min(chroma * saturation_factor, value);
    const float inv = 1.0f / std::max(chroma, 1e-30f);
    // Hue in sextants [0, 6); grey pixels get some hue, but their new
    // chroma is 0 so it does not matter.
    float hue = value == rv ? (gv - bv) * inv
                            : (value == gv ? 2.0f + (bv - rv) * inv : 4.0f + (rv - gv) * inv);
    // hue in [-1, 5], the shift in [-3, 3]: +6 and two wraps land in [0, 6).
    hue += hue_shift_sextants + 6.0f;
    hue = hue >= 6.0f ? hue - 6.0f : hue;
    hue = hue >= 6.0f ? hue - 6.0f : hue;
    // HSV -> RGB: channel n is value - chroma * clamp(min(k, 4 - k), 0, 1)
    // with k = (n + hue) mod 6 and n = 5, 3, 1 for R, G, B.
    // The result lies in [0, value] since new_chroma <= value; the clamp
    // only guards the last bit before rounding.
    float k = 5.0f + hue;
    k = k >= 6.0f ? k - 6.0f : k;
    r_out[i] = ToLevel(Clamp01(
        value - new_chroma * std::min(std::max(std::min(k, 4.0f - k), 0.0f), 1.0f)));
    k = 3.0f + hue;
    k = k >= 6.0f ? k - 6.0f : k;
    g_out[i] = ToLevel(Clamp01(
        value - new_chroma * std::min(std::max(std::min(k, 4.0f - k), 0.0f), 1.0f)));
    k = 1.0f + hue;
    k = k >= 6.0f ? k - 6.0f : k;
    b_out[i] = ToLevel(Clamp01(
        value - new_chroma * std::min(std::max(std::min(k, 4.0f - k), 0.0f), 1.0f)));
  }
}

// ---------------------------------------------------------------------------
// Reference helpers (double, textbook formulas).

struct Hsv {
  double h, s, v;  // h in [0, 1)
};

Hsv RgbToHsv(double r, double g, double b) {
  const double max = std::max({r, g, b});
  const double min = std::min({r, g, b});
  const double delta = max - min;
  Hsv out{0.0, max > 0 ? delta / max : 0.0, max};
  if (delta > 0) {
    double h;
    if (max == r) {
      h = (g - b) / delta;
    } else if (max == g) {
      h = 2.0 + (b - r) / delta;
    } else {
      h = 4.0 + (r - g) / delta;
    }
    h /= 6.0;
    if (h < 0) h += 1.0;
    out.h = h;
  }
  return out;
}

void HsvToRgb(const Hsv& hsv, double* r, double* g, double* b) {
  const double h6 = hsv.h * 6.0;
  int sector = static_cast<int>(std::floor(h6));
  const double f = h6 - sector;
  sector %= 6;
  const double v = hsv.v;
  const double p = v * (1 - hsv.s);
  const double q = v * (1 - hsv.s * f);
  const double t = v * (1 - hsv.s * (1 - f));
  switch (sector) {
    case 0: *r = v; *g = t; *b = p; break;
    case 1: *r = q; *g = v; *b = p; break;
    case 2: *r = p; *g = v; *b = t; break;
    case 3: *r = p; *g = q; *b = v; break;
    case 4: *r = t; *g = p; *b = v; break;
    default: *r = v; *g = p; *b = q; break;
  }
}

double Clamp01Double(double v) { return std::min(std::max(v, 0.0), 1.0); }

}  // namespace

namespace {

// Contrast then brightness, both per channel and pointwise: one table per
// channel from level to [0, 1], clamped after each step like the reference.
struct ChannelTables {
  std::array<std::array<float, 256>, 3> unit;     // for saturation and hue
  std::array<std::array<uint8_t, 256>, 3> level;  // when those are off
};

void FillTables(const AugmentParams& params, const RasterView& rgb, ChannelTables* tables) {
  const bool contrast = params.contrast_factor != 1.0;
  const bool brightness = params.brightness_delta != 0.0;
  std::array<double, 3> means{0, 0, 0};
  if (contrast) means = ChannelMeans(rgb);
  for (int c = 0; c < 3; ++c) {
    for (int level = 0; level < 256; ++level) {
      double v = level / 255.0;
      if (contrast) v = Clamp01Double((v - means[c]) * params.contrast_factor + means[c]);
      if (brightness) v = Clamp01Double(v + params.brightness_delta);
      tables->unit[c][level] = static_cast<float>(v);
      tables->level[c][level] = ToLevel(tables->unit[c][level]);
    }
  }
}

#ifdef SEGFEED_HAVE_AVX2_PATH
// Deinterleaves 8 pixels per step into planar floats through the tables
// (gathers from L1); returns how many pixels it did (a multiple of 8). The
// values are table entries, so they equal the scalar path's bit for bit.
__attribute__((target("avx2"))) int LoadUnitChunkAvx2(const uint8_t* pixels, int count,
                                                      const ChannelTables& tables, float* r,
                                                      float* g, float* b) {
  // Byte k of 24 interleaved bytes, channel c: pixel (k - c) / 3.
  const __m128i r_low = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i r_high = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i g_low = _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i g_high = _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i b_low = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i b_high = _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, -1, -1, -1, -1, -1, -1, -1, -1);
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    const uint8_t* p = pixels + 3 * i;
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i high = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 16));
    const __m128i rv = _mm_or_si128(_mm_shuffle_epi8(low, r_low), _mm_shuffle_epi8(high, r_high));
    const __m128i gv = _mm_or_si128(_mm_shuffle_epi8(low, g_low), _mm_shuffle_epi8(high, g_high));
    const __m128i bv = _mm_or_si128(_mm_shuffle_epi8(low, b_low), _mm_shuffle_epi8(high, b_high));
    _mm256_storeu_ps(r + i, _mm256_i32gather_ps(tables.unit[0].data(), _mm256_cvtepu8_epi32(rv), 4));
    _mm256_storeu_ps(g + i, _mm256_i32gather_ps(tables.unit[1].data(), _mm256_cvtepu8_epi32(gv), 4));
    _mm256_storeu_ps(b + i, _mm256_i32gather_ps(tables.unit[2].data(), _mm256_cvtepu8_epi32(bv), 4));
  }
  return i;
}

bool HaveAvx2() { return __builtin_cpu_supports("avx2"); }
#endif

void LoadUnitChunk(const uint8_t* p, int count, const ChannelTables& tables, float* r, float* g,
                   float* b) {
  int i = 0;
#ifdef SEGFEED_HAVE_AVX2_PATH
  if (HaveAvx2()) i = LoadUnitChunkAvx2(p, count, tables, r, g, b);
#endif
  for (; i < count; ++i) {
    r[i] = tables.unit[0][p[3 * i]];
    g[i] = tables.unit[1][p[3 * i + 1]];
    b[i] = tables.unit[2][p[3 * i + 2]];
  }
}

// Runs the jitter over `rgb` a chunk at a time and hands each chunk's levels,
// planar, to sink(y, x0, count, r, g, b). The sink may overwrite the chunk it
// is given (the chunk has been read by then) but nothing after it. Returns
// false, without calling the sink, when the parameters are the identity.
template <typename Sink>
bool JitterToLevels(const AugmentParams& params, const RasterView& rgb, Sink&& sink) {
  assert(rgb.channels == 3);
  const bool hue_saturation = params.saturation_factor != 1.0 || params.hue_delta != 0.0;
  if (params.contrast_factor == 1.0 && params.brightness_delta == 0.0 && !hue_saturation)
    return false;
  if (rgb.width <= 0 || rgb.height <= 0) return true;

  ChannelTables tables;
  FillTables(params, rgb, &tables);
  const auto saturation_factor = static_cast<float>(params.saturation_factor);
  const auto hue_shift = static_cast<float>(params.hue_delta * 6.0);
  alignas(64) float r[kChunk], g[kChunk], b[kChunk];
  alignas(64) uint8_t r_out[kChunk], g_out[kChunk], b_out[kChunk];
  for (int y = 0; y < rgb.height; ++y) {
    const uint8_t* row = rgb.Row(y);
    for (int x0 = 0; x0 < rgb.width; x0 += kChunk) {
      const int n = std::min(kChunk, rgb.width - x0);
      const uint8_t* p = row + 3 * x0;
      if (hue_saturation) {
        LoadUnitChunk(p, n, tables, r, g, b);
        SaturationHueKernel(r, g, b, n, saturation_factor, hue_shift, r_out, g_out, b_out);
      } else {
        for (int i = 0; i < n; ++i) {
          r_out[i] = tables.level[0][p[3 * i]];
          g_out[i] = tables.level[1][p[3 * i + 1]];
          b_out[i] = tables.level[2][p[3 * i + 2]];
        }
      }
      sink(y, x0, n, r_out, g_out, b_out);
    }
  }
  return true;
}

}  // namespace

void ApplyColorJitter(const AugmentParams& params, const MutableRasterView& rgb) {
  JitterToLevels(params, rgb.View(),
                 [&rgb](int y, int x0, int n, const uint8_t* r, const uint8_t* g,
                        const uint8_t* b) {
                   uint8_t* p = rgb.Row(y) + 3 * x0;
                   for (int i = 0; i < n; ++i) {
                     p[3 * i] = r[i];
                     p[3 * i + 1] = g[i];
                     p[3 * i + 2] = b[i];
                   }
                 });
}

bool ApplyColorJitterAndConvert(const AugmentParams& params, const RasterView& rgb,
                                const OutputConverter& converter, const StridedImage& dst) {
  return JitterToLevels(params, rgb,
                     [&](int y, int x0, int n, const uint8_t* r, const uint8_t* g,
                         const uint8_t* b) { converter.ConvertPlanarSpan(r, g, b, n, dst, y, x0); });
}

void ApplyColorJitterReference(const AugmentParams& params, const MutableRasterView& rgb) {
  assert(rgb.channels == 3);
  if (rgb.width <= 0 || rgb.height <= 0) return;
  const std::array<double, 3> means = ChannelMeans(rgb.View());
  for (int y = 0; y < rgb.height; ++y) {
    uint8_t* row = rgb.Row(y);
    for (int x = 0; x < rgb.width; ++x) {
      uint8_t* px = row + 3 * x;
      double c[3];
      for (int i = 0; i < 3; ++i) {
        c[i] = px[i] / 255.0;
        c[i] = Clamp01Double((c[i] - means[i]) * params.contrast_factor + means[i]);
        c[i] = Clamp01Double(c[i] + params.brightness_delta);
      }
      Hsv hsv = RgbToHsv(c[0], c[1], c[2]);
      hsv.s = Clamp01Double(hsv.s * params.saturation_factor);
      HsvToRgb(hsv, &c[0], &c[1], &c[2]);
      for (double& v : c) v = Clamp01Double(v);
      hsv = RgbToHsv(c[0], c[1], c[2]);
      hsv.h = hsv.h + params.hue_delta;
      hsv.h -= std::floor(hsv.h);
      HsvToRgb(hsv, &c[0], &c[1], &c[2]);
      for (int i = 0; i < 3; ++i) px[i] = static_cast<uint8_t>(std::lround(Clamp01Double(c[i]) * 255.0));
    }
  }
}

}  // namespace segfeed::internal
