#pragma once

// The fixed-point warp's source positions and edge rules, shared by the warp
// (warp_scalar.cc) and the class count that must see the same pixels
// (window_level_count.cc): one definition, so the two cannot drift apart.

#include <cmath>
#include <cstdint>

#include "augment/affine_warp.h"
#include "augment/warp_kernels.h"

namespace segfeed::augment {

constexpr int32_t kOne = 1 << kFracBits;
// |position| bound in source pixels for the fixed-point kernels.
constexpr double kMaxFixedPointPixels = 1 << 14;

inline int32_t ToFixed(double pixels) { return static_cast<int32_t>(std::lround(pixels * kOne)); }

// Output row `row`'s positions through `m`, each offset by `offset` (half a
// pixel for the nearest-neighbour mask, which then floors).
inline RowPositions PositionsOfRow(const AffineMatrix& m, int row, int32_t offset) {
  return {ToFixed(m[1] * row + m[2]) + offset, ToFixed(m[4] * row + m[5]) + offset, ToFixed(m[0]),
          ToFixed(m[3])};
}

// BORDER_REFLECT ("fedcba|abcdef") index into [0, size).
inline int ReflectIndex(int index, int size) {
  const int period = 2 * size;
  int i = index % period;
  if (i < 0) i += period;
  return i < size ? i : period - 1 - i;
}

// True when a tap at index (x, y), outside a width x height source, takes
// the fill: it lies past an edge that `border` does not mirror.
inline bool TapTakesFill(const Border& border, int x, int y, int width, int height) {
  return (x < 0 && !border.mirror_left) || (x >= width && !border.mirror_right) ||
         (y < 0 && !border.mirror_top) || (y >= height && !border.mirror_bottom);
}

}  // namespace segfeed::augment
