#include "augment/jitter_fixed_point.h"

#include <algorithm>
#include <cmath>

#include "augment/simd_dispatch.h"

namespace segfeed::augment {
namespace {

constexpr int kQ15 = 1 << 15;

int16_t ToQ15(double fraction) {
  return static_cast<int16_t>(std::min<long>(kQ15 - 1, std::lround(fraction * kQ15)));
}

// _mm256_mulhrs_epi16 on one lane: round(a * b / 2^15), ties up.
inline int MulHrs(int a, int b) { return (a * b + (1 << 14)) >> 15; }

inline int Clamp(int v) { return std::min(std::max(v, 0), kWhite); }

}  // namespace

std::optional<FixedPointJitter> FixedPointJitter::For(const AugmentParams& params,
                                                      const std::array<double, 3>& means) {
  if (params.contrast_factor > 1.0 || params.saturation_factor > 1.0) return std::nullopt;
  FixedPointJitter jitter;
  FixedPointJitterConstants& k = jitter.k_;
  k.contrast = params.contrast_factor != 1.0;
  for (int c = 0; c < 3; ++c) k.mean[c] = static_cast<int16_t>(std::lround(means[c] * kWhite));
  k.contrast_q15 = ToQ15(params.contrast_factor);
  k.brightness = static_cast<int16_t>(std::lround(params.brightness_delta * kWhite));
  k.saturation_hue = params.saturation_factor != 1.0 || params.hue_delta != 0.0;
  k.scale_chroma = params.saturation_factor < 1.0;
  k.saturation_q15 = ToQ15(params.saturation_factor);
  // The hue shift in sextants, in [0, 6): whole part and Q15 fraction.
  const double sextants = params.hue_delta * 6.0;
  const double shift = sextants - 6.0 * std::floor(sextants / 6.0);
  int whole = static_cast<int>(std::floor(shift));
  long fraction = std::lround((shift - whole) * kQ15);
  if (fraction == kQ15) {
    fraction = 0;
    ++whole;
  }
  k.shift_fraction_q15 = static_cast<int16_t>(fraction);
  k.shift_whole_plus_2 = static_cast<int16_t>(whole % 6 + 2);
  return jitter;
}

void FixedPointJitter::RunScalar(const uint8_t* p, int first, int count, uint8_t* r_out,
                                 uint8_t* g_out, uint8_t* b_out) const {
  const FixedPointJitterConstants& k = k_;
  for (int i = first; i < count; ++i) {
    int v[3];
    for (int c = 0; c < 3; ++c) {
      v[c] = p[3 * i + c] * kOneLevel;
      if (k.contrast) v[c] = Clamp(k.mean[c] + MulHrs(v[c] - k.mean[c], k.contrast_q15));
      v[c] = Clamp(v[c] + k.brightness);
    }
    if (k.saturation_hue) {
      const int r = v[0], g = v[1], b = v[2];
      const int value = std::max(r, std::max(g, b));
      const int least = std::min(r, std::min(g, b));
      const int middle = std::max(std::min(r, g), std::min(std::max(r, g), b));
      const int chroma = value - least;
      const int rise = middle - least;
      // Old sextant: 0/5 when red is largest (green above/below blue), 2/1
      // for green, 4/3 for blue; "falling" are the odd ones, where the hue
      // position inside the sextant is 1 - rise / chroma.
      const bool red_max = value == r;
      const bool green_max = !red_max && value == g;
      const bool falling = red_max ? b > g : (green_max ? r > b : g > r);
      const int base = red_max ? 0 : (green_max ? 2 : 4);
      const int position = falling ? chroma - rise : rise;  // chroma * u
      const int shifted = position + MulHrs(chroma, k.shift_fraction_q15);
      const bool no_wrap = chroma > shifted;
      const int new_position = no_wrap ? shifted : shifted - chroma;  // chroma * u'
      const int t = base + k.shift_whole_plus_2 - (falling ? 1 : 0) - (no_wrap ? 1 : 0);
      const int new_rise =
          kChannelTables.role[0][t] & kIsEven ? new_position : chroma - new_position;
      const int low = k.scale_chroma ? value - MulHrs(chroma, k.saturation_q15) : value - chroma;
      const int mid = k.scale_chroma ? low + MulHrs(new_rise, k.saturation_q15) : low + new_rise;
      for (int c = 0; c < 3; ++c) {
        const uint8_t role = kChannelTables.role[c][t];
        v[c] = role & kIsMax ? value : (role & kIsMin ? low : mid);
      }
    }
    r_out[i] = static_cast<uint8_t>((v[0] + kOneLevel / 2) >> 6);
    g_out[i] = static_cast<uint8_t>((v[1] + kOneLevel / 2) >> 6);
    b_out[i] = static_cast<uint8_t>((v[2] + kOneLevel / 2) >> 6);
  }
}

int FixedPointJitter::RunAvx2(const uint8_t* p, int count, uint8_t* r_out, uint8_t* g_out,
                              uint8_t* b_out) const {
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  return FixedPointJitterAvx2(k_, p, count, r_out, g_out, b_out);
#else
  (void)p, (void)count, (void)r_out, (void)g_out, (void)b_out;
  return 0;
#endif
}

int FixedPointJitter::RunAvx512(const uint8_t* p, int count, uint8_t* r_out, uint8_t* g_out,
                                uint8_t* b_out) const {
#ifdef SEGFEED_HAVE_SIMD_KERNELS
  return FixedPointJitterAvx512(k_, p, count, r_out, g_out, b_out);
#else
  (void)p, (void)count, (void)r_out, (void)g_out, (void)b_out;
  return 0;
#endif
}

}  // namespace segfeed::augment
