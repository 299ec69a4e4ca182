#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace segfeed::augment {

// A borrowed 8-bit raster: `height` rows of `width` pixels of `channels`
// bytes each, top row first, rows `stride_bytes` >= width * channels apart
// (the vector kernels rely on the bytes after a row's last pixel being the
// next row's or padding). The view never owns the memory; the caller keeps
// it alive for the duration of the call that takes the view.
struct RasterView {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  ptrdiff_t stride_bytes = 0;

  const uint8_t* Row(int y) const { return data + y * stride_bytes; }
};

// The same, writable.
struct MutableRasterView {
  uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  ptrdiff_t stride_bytes = 0;

  uint8_t* Row(int y) const { return data + y * stride_bytes; }
  RasterView View() const { return {data, width, height, channels, stride_bytes}; }
};

// Exact sums of an RGB raster's levels per channel (R, G, B).
using ChannelSums = std::array<uint64_t, 3>;

}  // namespace segfeed::augment
