#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "augment/raster_view.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// Where one sample's image goes: element (y, x, c) lives at
// data + y*y_stride_bytes + x*x_stride_bytes + c*channel_stride_bytes.
// NHWC and NCHW batch slots, padded rows, or a single plane are all strides.
struct StridedImage {
  void* data = nullptr;
  ptrdiff_t y_stride_bytes = 0;
  ptrdiff_t x_stride_bytes = 0;
  ptrdiff_t channel_stride_bytes = 0;
};

// Where one sample's mask goes: element (y, x) at
// data + y*y_stride_bytes + x*x_stride_bytes.
struct StridedMask {
  void* data = nullptr;
  ptrdiff_t y_stride_bytes = 0;
  ptrdiff_t x_stride_bytes = 0;
};

// What a decoded mask's values mean, and so how they are written: binary
// (any nonzero value is foreground, written 1) or a label map (class ids
// written as they are, `ignore_value` written as ignore_index). Pixels the
// warp brings in from outside the source get `fill()`: background, or
// ignore.
struct MaskEncoding {
  bool labels = false;
  uint8_t ignore_value = 255;
  int ignore_index = 255;
  uint8_t fill() const { return labels ? ignore_value : 0; }
};

// Turns augmented uint8 rasters into the configured output tensors. Every
// image conversion is a per-channel function of one uint8 level, so it is a
// table lookup: the tables are computed once here, in float32 as
// documented in OutputOptions, and float16 entries are those float32 values
// rounded to nearest-even. Immutable after construction: thread-safe.
class OutputConverter {
 public:
  // Validates `options` (throws ConfigError).
  explicit OutputConverter(const OutputOptions& options, MaskEncoding mask_encoding = {});

  const OutputOptions& options() const { return options_; }
  const MaskEncoding& mask_encoding() const { return mask_encoding_; }

  // Strides of a densely packed width x height sample in the configured
  // layout and dtype, starting at `data`.
  StridedImage DenseImage(void* data, int width, int height) const;
  StridedMask DenseMask(void* data, int width) const;

  // Writes `rgb` (3 channels) to `dst` in the configured dtype. The
  // destination must hold rgb.width x rgb.height elements per channel and
  // must not overlap `rgb` unless both are the same uint8 NHWC memory.
  void ConvertImage(const RasterView& rgb, const StridedImage& dst) const;

  // Writes `count` pixels given as planar levels (`r`, `g`, `b`) to row `y`
  // of `dst`, columns x0 .. x0 + count - 1, with the same values
  // ConvertImage would write for those levels. The colour jitter calls it
  // once per chunk so its levels go from L1 straight to the destination.
  // `dst` may be the uint8 NHWC memory the levels were computed from.
  void ConvertPlanarSpan(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                         const StridedImage& dst, int y, int x0) const;

  // Writes `mask` (1 channel) to `dst` in the configured dtype: binary as
  // exactly 0 or 1 (any nonzero source value counts as foreground), labels
  // as class ids and ignore_index. May run in place for uint8.
  void ConvertMask(const RasterView& mask, const StridedMask& dst) const;

 private:
  OutputOptions options_;
  MaskEncoding mask_encoding_;
  // Label maps: the output value of each decoded value.
  std::array<int64_t, 256> label_table_{};
  // Value of level v in channel c, per dtype (only the configured one is used).
  std::array<std::array<float, 256>, 3> float32_table_{};
  std::array<std::array<uint16_t, 256>, 3> float16_table_{};
};

}  // namespace segfeed::augment
