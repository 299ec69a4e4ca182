#pragma once

// The colour jitter's vector kernels: what jitter_fixed_point.cc and
// color_jitter.cc hand to jitter_avx2.cc and jitter_avx512.cc. Those files
// are compiled for their ISA, so this header holds only plain structs,
// constants, consteval table builders and declarations (see the rules in
// simd_dispatch.h); call a kernel only where CpuHasAvx2() / CpuHasAvx512().
//
// Every kernel reads `count` interleaved RGB pixels from `p` and writes
// their jittered levels, planar, to r_out, g_out and b_out. It takes whole
// steps of 8, 16 or 32 pixels and returns the first pixel it did not do; the
// one-pixel code finishes the row with the same operations, so the same
// bits.

#include <cstddef>
#include <cstdint>

namespace segfeed::augment {

// --- Fixed point (the method: jitter_fixed_point.h) -------------------------

constexpr int kOneLevel = 64;            // fixed-point units per level
constexpr int kWhite = 255 * kOneLevel;  // 16320

// One sample's parameters as the fixed-point kernels take them
// (FixedPointJitter::For makes them).
struct FixedPointJitterConstants {
  bool contrast;
  int16_t mean[3];       // channel means, levels * 64
  int16_t contrast_q15;  // contrast factor * 32768
  int16_t brightness;    // brightness delta, levels * 64
  bool saturation_hue;
  bool scale_chroma;           // saturation factor < 1
  int16_t saturation_q15;      // saturation factor * 32768
  int16_t shift_fraction_q15;  // fractional sextants of the hue shift * 32768
  int16_t shift_whole_plus_2;  // whole sextants of the hue shift (0..5) + 2
};

// The kernels reach the new sextant k' as a code t in [0, 11] with
// k' = (t + 5) mod 6 (see FixedPointJitter::RunScalar). In sextant k' (hue
// in [k', k' + 1) sixths of a turn) the largest, middle and smallest
// channels are: 0 r g b, 1 g r b, 2 g b r, 3 b g r, 4 b r g, 5 r b g; in even
// sextants the middle channel rises with the hue. One byte table per
// channel answers, for every code, whether the channel is the largest
// (bit 7) or the smallest (bit 6) and, in every table, whether the sextant
// is even (bit 5). AVX2 looks a table up with one byte shuffle and reads
// each answer as bit 7 after a shift (_mm256_blendv_epi8 looks only at
// bit 7), so three tables stay in registers instead of seven.
constexpr uint8_t kIsMax = 0x80, kIsMin = 0x40, kIsEven = 0x20;
struct ChannelTables {
  uint8_t role[3][16];  // [channel][code]
};
consteval ChannelTables MakeChannelTables() {
  // The two sextants where each channel is the largest, and the smallest.
  constexpr int kMaxSextants[3][2] = {{0, 5}, {1, 2}, {3, 4}};
  constexpr int kMinSextants[3][2] = {{2, 3}, {4, 5}, {0, 1}};
  ChannelTables tables{};
  for (int c = 0; c < 3; ++c) {
    for (int t = 0; t < 12; ++t) {
      const int sextant = (t + 5) % 6;
      uint8_t role = sextant % 2 == 0 ? kIsEven : 0;
      if (sextant == kMaxSextants[c][0] || sextant == kMaxSextants[c][1]) role |= kIsMax;
      if (sextant == kMinSextants[c][0] || sextant == kMinSextants[c][1]) role |= kIsMin;
      tables.role[c][t] = role;
    }
  }
  return tables;
}
constexpr ChannelTables kChannelTables = MakeChannelTables();

// Byte j of 48 interleaved bytes (three 16-byte loads) belongs to channel
// j % 3 of pixel j / 3: per channel and load, the shuffle that moves its
// bytes to their pixel's position (-1 elsewhere).
struct Deinterleave {
  int8_t lanes[3][3][16];  // [channel][load][lane]
};
consteval Deinterleave MakeDeinterleave() {
  Deinterleave d{};
  for (int channel = 0; channel < 3; ++channel)
    for (int load = 0; load < 3; ++load)
      for (int pixel = 0; pixel < 16; ++pixel) {
        const int byte = 3 * pixel + channel - 16 * load;
        d.lanes[channel][load][pixel] = byte >= 0 && byte < 16 ? static_cast<int8_t>(byte) : -1;
      }
  return d;
}
constexpr Deinterleave kDeinterleave = MakeDeinterleave();

// 16 pixels a step (AVX2) and 32 (AVX-512).
int FixedPointJitterAvx2(const FixedPointJitterConstants& k, const uint8_t* p, int count,
                         uint8_t* r_out, uint8_t* g_out, uint8_t* b_out);
int FixedPointJitterAvx512(const FixedPointJitterConstants& k, const uint8_t* p, int count,
                           uint8_t* r_out, uint8_t* g_out, uint8_t* b_out);

// --- float32 (factors above 1; color_jitter.cc) -----------------------------

// Per-sample constants. Contrast and brightness per channel c:
//   v = min(max(level * gain[c] + offset[c], 0), 1)      (contrast)
//   v = min(max(v + brightness, 0), 1)                   (brightness)
// with gain = factor / 255 and offset = mean * (1 - factor); then saturation
// and hue in HSV as chroma (see SaturationHue in color_jitter.cc), then
// level = int(v*255 + .5).
struct FloatJitterConstants {
  float gain[3];
  float offset[3];
  float brightness;
  bool hue_saturation;
  float saturation_factor;
  float hue_shift_plus_6;  // hue shift in sextants, + 6 (see SaturationHue)
};

// 8 pixels a step.
int FloatJitterAvx2(const FloatJitterConstants& k, const uint8_t* p, int count, uint8_t* r_out,
                    uint8_t* g_out, uint8_t* b_out);

// --- The linear colour model's matrix (ycbcr_colour.cc) ---------------------
// Output channel c of a pixel (in0, in1, in2) is
//   clamp((m[4c] in0 + m[4c+1] in1 + m[4c+2] in2 + m[4c+3]) >> shift, 0, 255)
// in int32: the coefficients are bounded so that the sums fit, and the
// offsets carry the rounding of the shift. The linear model's matrices have
// 12 fractional bits; the YCbCr -> RGB conversion is libjpeg's, 16.
struct FixedColourMatrix {
  int32_t m[12];
  int shift;
};

// 16 pixels a step. The planar kernel reads its pixels from three planes
// (warped Y, Cb, Cr), and may write them back in place; the interleaved one
// reads RGB pixels, like the others.
int ColourMatrixPlanarAvx2(const FixedColourMatrix& matrix, const uint8_t* in0, const uint8_t* in1,
                           const uint8_t* in2, int count, uint8_t* out0, uint8_t* out1,
                           uint8_t* out2);
int ColourMatrixInterleavedAvx2(const FixedColourMatrix& matrix, const uint8_t* p, int count,
                                uint8_t* out0, uint8_t* out1, uint8_t* out2);

}  // namespace segfeed::augment
