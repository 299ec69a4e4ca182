#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "augment/jitter_kernels.h"
#include "segfeed/augment.h"

namespace segfeed::augment {

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
// The scalar, AVX2 and AVX-512 kernels (here, jitter_avx2.cc and
// jitter_avx512.cc) run the same integer operations, so they give the same
// bits. Within 1 level of the double-precision reference (tested).
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

 private:
  FixedPointJitter() = default;

  FixedPointJitterConstants k_{};  // all the kernels read
};

}  // namespace segfeed::augment
