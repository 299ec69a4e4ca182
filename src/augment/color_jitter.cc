#include "augment/color_jitter.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>

namespace segfeed::internal {
namespace {

// Per-channel means on the [0, 1] scale, from exact integer sums so the
// result does not depend on summation order.
std::array<double, 3> ChannelMeans(const RasterView& rgb) {
  std::array<uint64_t, 3> sums{0, 0, 0};
  for (int y = 0; y < rgb.height; ++y) {
    const uint8_t* row = rgb.Row(y);
    // 32-bit partial sums vectorise well and cannot overflow for one row of
    // up to 2^24 pixels.
    uint32_t r = 0, g = 0, b = 0;
    for (int x = 0; x < rgb.width; ++x) {
      r += row[3 * x];
      g += row[3 * x + 1];
      b += row[3 * x + 2];
    }
    sums[0] += r;
    sums[1] += g;
    sums[2] += b;
  }
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

void ApplyColorJitter(const AugmentParams& params, const MutableRasterView& rgb) {
  assert(rgb.channels == 3);
  const bool contrast = params.contrast_factor != 1.0;
  const bool brightness = params.brightness_delta != 0.0;
  const bool hue_saturation = params.saturation_factor != 1.0 || params.hue_delta != 0.0;
  if (!contrast && !brightness && !hue_saturation) return;
  if (rgb.width <= 0 || rgb.height <= 0) return;

  // Contrast then brightness, both per channel and pointwise: one table per
  // channel from level to [0, 1], clamped after each step like the reference.
  std::array<double, 3> means{0, 0, 0};
  if (contrast) means = ChannelMeans(rgb.View());
  std::array<std::array<float, 256>, 3> table;
  for (int c = 0; c < 3; ++c) {
    for (int level = 0; level < 256; ++level) {
      double v = level / 255.0;
      if (contrast) v = Clamp01Double((v - means[c]) * params.contrast_factor + means[c]);
      if (brightness) v = Clamp01Double(v + params.brightness_delta);
      table[c][level] = static_cast<float>(v);
    }
  }

  if (!hue_saturation) {
    std::array<std::array<uint8_t, 256>, 3> levels;
    for (int c = 0; c < 3; ++c)
      for (int level = 0; level < 256; ++level) levels[c][level] = ToLevel(table[c][level]);
    for (int y = 0; y < rgb.height; ++y) {
      uint8_t* row = rgb.Row(y);
      for (int x = 0; x < rgb.width; ++x) {
        row[3 * x] = levels[0][row[3 * x]];
        row[3 * x + 1] = levels[1][row[3 * x + 1]];
        row[3 * x + 2] = levels[2][row[3 * x + 2]];
      }
    }
    return;
  }

  const auto saturation_factor = static_cast<float>(params.saturation_factor);
  const auto hue_shift = static_cast<float>(params.hue_delta * 6.0);
  alignas(64) float r[kChunk], g[kChunk], b[kChunk];
  alignas(64) uint8_t r_out[kChunk], g_out[kChunk], b_out[kChunk];
  for (int y = 0; y < rgb.height; ++y) {
    uint8_t* row = rgb.Row(y);
    for (int x0 = 0; x0 < rgb.width; x0 += kChunk) {
      const int n = std::min(kChunk, rgb.width - x0);
      uint8_t* p = row + 3 * x0;
      for (int i = 0; i < n; ++i) {
        r[i] = table[0][p[3 * i]];
        g[i] = table[1][p[3 * i + 1]];
        b[i] = table[2][p[3 * i + 2]];
      }
      SaturationHueKernel(r, g, b, n, saturation_factor, hue_shift, r_out, g_out, b_out);
      for (int i = 0; i < n; ++i) {
        p[3 * i] = r_out[i];
        p[3 * i + 1] = g_out[i];
        p[3 * i + 2] = b_out[i];
      }
    }
  }
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
