#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "segfeed/augment.h"

namespace segfeed::internal {

// The colour jitter of color_jitter.h in 16-bit fixed point, for the
// parameters the default ranges draw: contrast and saturation factors <= 1.
// Values are levels * 64 (0..16320) in int16, so every step stays inside
// int16 without widening, and 16 pixels go through one AVX2 step.
//
// Saturation and hue need no division here. Hue rotation keeps the value V
// (the largest channel) and, for a factor f <= 1, the new chroma is f * C
// (C = V - min). The new middle channel sits f * C * u' above the new
// minimum, where u' is the new position inside its hue sextant; C * u' is
// a sum of C, the old middle-minus-minimum and phi * C (phi the fractional
// part of the shift in sextants), minus C when the sum wraps into the next
// sextant. Which channel gets V, the middle or the minimum then depends only
// on the new sextant, looked up in byte tables.
//
// The scalar, AVX2 and AVX-512 kernels run the same integer operations, so
// they give the same bits. Within 1 level of the double-precision reference (tested).
class FixedPointJitter {
 public:
  // Nullopt when the parameters need the float path (a factor above 1).
  // `means` are the channel means on [0, 1], used only for contrast.
  static std::optional<FixedPointJitter> For(const AugmentParams& params,
                                             const std::array<double, 3>& means);

  // Pixels [first, count) of interleaved RGB `p`, to planar levels.
  void RunScalar(const uint8_t* p, int first, int count, uint8_t* r_out, uint8_t* g_out,
                 uint8_t* b_out) const;
  // 16 pixels a step; returns the first pixel it did not do. Call only when
  // CpuHasAvx2().
  int RunAvx2(const uint8_t* p, int count, uint8_t* r_out, uint8_t* g_out, uint8_t* b_out) const;
  // The same, 32 pixels a step; call only when CpuHasAvx512().
  int RunAvx512(const uint8_t* p, int count, uint8_t* r_out, uint8_t* g_out, uint8_t* b_out) const;

  // Byte tables indexed by the sextant code of the kernels (see .cc).
  using Table = std::array<uint8_t, 16>;

 private:
  FixedPointJitter() = default;

  bool contrast_ = false;
  int16_t mean_[3] = {0, 0, 0};  // channel means, levels * 64
  int16_t contrast_q15_ = 0;     // contrast factor * 32768
  int16_t brightness_ = 0;       // brightness delta, levels * 64
  bool saturation_hue_ = false;
  bool scale_chroma_ = false;       // saturation factor < 1
  int16_t saturation_q15_ = 0;      // saturation factor * 32768
  int16_t shift_fraction_q15_ = 0;  // fractional sextants of the hue shift * 32768
  int16_t shift_whole_plus_2_ = 0;  // whole sextants of the hue shift (0..5) + 2
};

}  // namespace segfeed::internal
