#include "augment/color_jitter.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <optional>

#include "augment/jitter_fixed_point.h"
#include "augment/jitter_kernels.h"
#include "augment/simd_dispatch.h"

namespace segfeed::augment {

ChannelSums RgbChannelSums(const RasterView& rgb) {
  // 48 bytes are 16 whole pixels: byte j of every 48-byte block belongs to
  // channel j % 3. Summing blocks lane by lane vectorises; 16-bit lanes hold
  // up to 257 blocks, so flush them to 64-bit totals every 256 blocks.
  constexpr int kBlock = 48;
  std::array<uint64_t, kBlock> lane_totals{};
  ChannelSums sums{0, 0, 0};
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
  return sums;
}

namespace {

// Means on the [0, 1] scale from exact sums over a width x height raster.
std::array<double, 3> MeansFromSums(const ChannelSums& sums, int width, int height) {
  const double count = static_cast<double>(width) * height * 255.0;
  return {sums[0] / count, sums[1] / count, sums[2] / count};
}

// Per-channel means on the [0, 1] scale, from exact integer sums so the
// result does not depend on summation order.
std::array<double, 3> ChannelMeans(const RasterView& rgb) {
  return MeansFromSums(RgbChannelSums(rgb), rgb.width, rgb.height);
}

// Pixels per chunk handed to the sink: small enough to stay in L1 (3 bytes
// of levels and at most 12 bytes of output per pixel: 7.5 KiB), large
// enough that the kernels' per-call set-up (constants, tables) is paid once
// per 512-pixel output row. 64 cost 12% more in jitter_bench, 256 1-2%.
constexpr int kChunk = 512;

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
    case 0:
      *r = v;
      *g = t;
      *b = p;
      break;
    case 1:
      *r = q;
      *g = v;
      *b = p;
      break;
    case 2:
      *r = p;
      *g = v;
      *b = t;
      break;
    case 3:
      *r = p;
      *g = q;
      *b = v;
      break;
    case 4:
      *r = t;
      *g = p;
      *b = v;
      break;
    default:
      *r = v;
      *g = p;
      *b = q;
      break;
  }
}

double Clamp01Double(double v) { return std::min(std::max(v, 0.0), 1.0); }

}  // namespace

namespace {

// The float32 path (factors above 1) runs a fixed sequence of operations, the
// same in the scalar and the AVX2 code (jitter_avx2.cc), so both give the
// same bits. No fused multiply-add (neither this file nor jitter_avx2.cc is
// compiled with FMA) and no approximate reciprocals. MaxPs/MinPs are
// maxps/minps exactly (the second operand unless the first is strictly
// larger/smaller), so even signed zeros agree.
inline float MaxPs(float a, float b) { return a > b ? a : b; }
inline float MinPs(float a, float b) { return a < b ? a : b; }

// Per-sample constants: FloatJitterConstants (jitter_kernels.h).
FloatJitterConstants MakeConstants(const AugmentParams& params,
                                   const std::array<double, 3>& means) {
  FloatJitterConstants k{};
  for (int c = 0; c < 3; ++c) {
    k.gain[c] = static_cast<float>(params.contrast_factor / 255.0);
    k.offset[c] = static_cast<float>(means[c] * (1.0 - params.contrast_factor));
  }
  k.brightness = static_cast<float>(params.brightness_delta);
  k.hue_saturation = params.saturation_factor != 1.0 || params.hue_delta != 0.0;
  k.saturation_factor = static_cast<float>(params.saturation_factor);
  k.hue_shift_plus_6 = static_cast<float>(params.hue_delta * 6.0) + 6.0f;
  return k;
}

inline float ContrastBrightness(int level, float gain, float offset, float brightness) {
  float v = static_cast<float>(level) * gain + offset;
  v = MinPs(MaxPs(v, 0.0f), 1.0f);
  v = v + brightness;
  return MinPs(MaxPs(v, 0.0f), 1.0f);
}

inline uint8_t ToLevel(float v) {
  return static_cast<uint8_t>(static_cast<int>(v * 255.0f + 0.5f));
}

// Channel n (5, 3, 1 for R, G, B) of HSV -> RGB at value V, chroma C and
// hue h in sextants [0, 6): V - C * clamp(min(k, 4 - k), 0, 1) with
// k = (n + h) mod 6. The result lies in [0, V]: C <= V and the clamp keeps
// the product <= C, so no clamp is needed before rounding.
inline float HsvChannel(float n, float value, float chroma, float hue) {
  float k = n + hue;
  k = k >= 6.0f ? k - 6.0f : k;
  return value - chroma * MinPs(MaxPs(MinPs(k, 4.0f - k), 0.0f), 1.0f);
}

// Saturation and hue together (they commute: saturation keeps hue and
// value, hue keeps saturation and value). s' = min(1, s * factor) with
// s = chroma / value is a new chroma min(chroma * factor, value).
inline void SaturationHue(const FloatJitterConstants& k, float* r, float* g, float* b) {
  const float value = MaxPs(*r, MaxPs(*g, *b));
  const float chroma = value - MinPs(*r, MinPs(*g, *b));
  const float new_chroma = MinPs(chroma * k.saturation_factor, value);
  const float inv = 1.0f / MaxPs(chroma, 1e-30f);
  // Hue in sextants [-1, 5]; grey pixels get some hue, but their new chroma
  // is 0 so it does not matter. + shift + 6 and two wraps land in [0, 6).
  const float hue_r = (*g - *b) * inv;
  const float hue_g = 2.0f + (*b - *r) * inv;
  const float hue_b = 4.0f + (*r - *g) * inv;
  float hue = value == *r ? hue_r : (value == *g ? hue_g : hue_b);
  hue = hue + k.hue_shift_plus_6;
  hue = hue >= 6.0f ? hue - 6.0f : hue;
  hue = hue >= 6.0f ? hue - 6.0f : hue;
  *r = HsvChannel(5.0f, value, new_chroma, hue);
  *g = HsvChannel(3.0f, value, new_chroma, hue);
  *b = HsvChannel(1.0f, value, new_chroma, hue);
}

// Pixels [first, count) of a chunk, one at a time.
void JitterPixelsScalar(const FloatJitterConstants& k, const uint8_t* p, int first, int count,
                        uint8_t* r_out, uint8_t* g_out, uint8_t* b_out) {
  for (int i = first; i < count; ++i) {
    float r = ContrastBrightness(p[3 * i], k.gain[0], k.offset[0], k.brightness);
    float g = ContrastBrightness(p[3 * i + 1], k.gain[1], k.offset[1], k.brightness);
    float b = ContrastBrightness(p[3 * i + 2], k.gain[2], k.offset[2], k.brightness);
    if (k.hue_saturation) SaturationHue(k, &r, &g, &b);
    r_out[i] = ToLevel(r);
    g_out[i] = ToLevel(g);
    b_out[i] = ToLevel(b);
  }
}

// Runs the jitter over `rgb` a chunk at a time and hands each chunk's levels,
// planar, to sink(y, x0, count, r, g, b). The sink may overwrite the chunk it
// is given (the chunk has been read by then) but nothing after it. Returns
// false, without calling the sink, when the parameters are the identity.
// `sums`, when given, are the exact channel sums of `rgb` (see
// WarpImageAndMask), which saves the pass that would compute them.
template <typename Sink>
bool JitterToLevels(const AugmentParams& params, const RasterView& rgb, const ChannelSums* sums,
                    Sink&& sink) {
  assert(rgb.channels == 3);
  if (params.contrast_factor == 1.0 && params.brightness_delta == 0.0 &&
      params.saturation_factor == 1.0 && params.hue_delta == 0.0)
    return false;
  if (rgb.width <= 0 || rgb.height <= 0) return true;

  std::array<double, 3> means{0, 0, 0};
  if (params.contrast_factor != 1.0)
    means = sums != nullptr ? MeansFromSums(*sums, rgb.width, rgb.height) : ChannelMeans(rgb);
  const std::optional<FixedPointJitter> fixed_point = FixedPointJitter::For(params, means);
  const FloatJitterConstants constants =
      fixed_point ? FloatJitterConstants{} : MakeConstants(params, means);
  const bool avx2 = CpuHasAvx2();
  const bool avx512 = CpuHasAvx512();
  alignas(64) uint8_t r_out[kChunk], g_out[kChunk], b_out[kChunk];
  for (int y = 0; y < rgb.height; ++y) {
    const uint8_t* row = rgb.Row(y);
    for (int x0 = 0; x0 < rgb.width; x0 += kChunk) {
      const int n = std::min(kChunk, rgb.width - x0);
      const uint8_t* p = row + 3 * x0;
      if (fixed_point) {
        int done = avx512 ? fixed_point->RunAvx512(p, n, r_out, g_out, b_out) : 0;
        if (avx2)
          done += fixed_point->RunAvx2(p + 3 * done, n - done, r_out + done, g_out + done,
                                       b_out + done);
        fixed_point->RunScalar(p, done, n, r_out, g_out, b_out);
      } else {
        int done = 0;
#ifdef SEGFEED_HAVE_SIMD_KERNELS
        if (avx2) done = FloatJitterAvx2(constants, p, n, r_out, g_out, b_out);
#endif
        JitterPixelsScalar(constants, p, done, n, r_out, g_out, b_out);
      }
      sink(y, x0, n, r_out, g_out, b_out);
    }
  }
  return true;
}

}  // namespace

void ApplyColorJitter(const AugmentParams& params, const MutableRasterView& rgb) {
  JitterToLevels(
      params, rgb.View(), nullptr,
      [&rgb](int y, int x0, int n, const uint8_t* r, const uint8_t* g, const uint8_t* b) {
        uint8_t* p = rgb.Row(y) + 3 * x0;
        for (int i = 0; i < n; ++i) {
          p[3 * i] = r[i];
          p[3 * i + 1] = g[i];
          p[3 * i + 2] = b[i];
        }
      });
}

bool ApplyColorJitterAndConvert(const AugmentParams& params, const RasterView& rgb,
                                const OutputConverter& converter, const StridedImage& dst,
                                const ChannelSums* channel_sums) {
  return JitterToLevels(
      params, rgb, channel_sums,
      [&](int y, int x0, int n, const uint8_t* r, const uint8_t* g, const uint8_t* b) {
        converter.ConvertPlanarSpan(r, g, b, n, dst, y, x0);
      });
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
      for (int i = 0; i < 3; ++i)
        px[i] = static_cast<uint8_t>(std::lround(Clamp01Double(c[i]) * 255.0));
    }
  }
}

}  // namespace segfeed::augment
