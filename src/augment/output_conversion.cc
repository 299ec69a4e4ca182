#include "augment/output_conversion.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include <opencv2/core.hpp>

namespace segfeed::internal {
namespace {

template <typename T>
T* At(void* base, ptrdiff_t offset_bytes) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(base) + offset_bytes);
}

// One row per call. The two common shapes (interleaved NHWC pixels, planar
// NCHW) get loops the compiler can unroll; anything else takes the general
// strided loop. `table` maps a level to its output value.
template <typename T, typename Table>
void ConvertRow(const uint8_t* src, int width, T* row, ptrdiff_t x_stride_bytes,
                ptrdiff_t channel_stride_bytes, const Table& table) {
  const auto& t0 = table[0];
  const auto& t1 = table[1];
  const auto& t2 = table[2];
  if (x_stride_bytes == 3 * static_cast<ptrdiff_t>(sizeof(T)) &&
      channel_stride_bytes == static_cast<ptrdiff_t>(sizeof(T))) {
    for (int x = 0; x < width; ++x) {
      row[3 * x] = t0[src[3 * x]];
      row[3 * x + 1] = t1[src[3 * x + 1]];
      row[3 * x + 2] = t2[src[3 * x + 2]];
    }
  } else if (x_stride_bytes == static_cast<ptrdiff_t>(sizeof(T))) {
    T* plane0 = row;
    T* plane1 = At<T>(row, channel_stride_bytes);
    T* plane2 = At<T>(row, 2 * channel_stride_bytes);
    for (int x = 0; x < width; ++x) {
      plane0[x] = t0[src[3 * x]];
      plane1[x] = t1[src[3 * x + 1]];
      plane2[x] = t2[src[3 * x + 2]];
    }
  } else {
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        *At<T>(row, x * x_stride_bytes + c * channel_stride_bytes) =
            table[c][src[3 * x + c]];
  }
}

// Packed mask rows between distinct buffers. `__restrict` lets the compiler
// vectorise: without it, uint8_t stores may alias the source and the loop
// stays scalar.
template <typename T>
void BinarizeRow(const uint8_t* __restrict src, int width, T* __restrict dst) {
  for (int x = 0; x < width; ++x) dst[x] = src[x] != 0 ? T{1} : T{0};
}

// The same in place (one pointer, so no aliasing question): for uint8,
// min(v, 1) is exactly (v != 0).
void BinarizeRowInPlace(uint8_t* row, int width) {
  for (int x = 0; x < width; ++x) row[x] = std::min<uint8_t>(row[x], 1);
}

struct IdentityTable {
  struct Channel {
    uint8_t operator[](uint8_t v) const { return v; }
  };
  Channel channels[3];
  const Channel& operator[](int c) const { return channels[c]; }
};

template <typename T, typename Table>
void ConvertImageWith(const RasterView& rgb, const StridedImage& dst, const Table& table) {
  for (int y = 0; y < rgb.height; ++y) {
    ConvertRow(rgb.Row(y), rgb.width, At<T>(dst.data, y * dst.y_stride_bytes),
               dst.x_stride_bytes, dst.channel_stride_bytes, table);
  }
}

}  // namespace

OutputConverter::OutputConverter(const OutputOptions& options) : options_(options) {
  ValidateOutputOptions(options_);
  for (int c = 0; c < 3; ++c) {
    const float mean = options_.normalize ? options_.mean[c] : 0.0f;
    const float std = options_.normalize ? options_.std[c] : 1.0f;
    for (int level = 0; level < 256; ++level) {
      // The documented formula, in float32, in this order.
      const float value = (static_cast<float>(level) / 255.0f - mean) / std;
      float32_table_[c][level] = value;
      float16_table_[c][level] = cv::float16_t(value).bits();
    }
  }
}

StridedImage OutputConverter::DenseImage(void* data, int width, int height) const {
  const ptrdiff_t element = ImageDtypeBytes(options_.image_dtype);
  if (options_.layout == Layout::kNHWC) return {data, width * 3 * element, 3 * element, element};
  return {data, width * element, element, static_cast<ptrdiff_t>(width) * height * element};
}

StridedMask OutputConverter::DenseMask(void* data, int width) const {
  const ptrdiff_t element = MaskDtypeBytes(options_.mask_dtype);
  return {data, width * element, element};
}

void OutputConverter::ConvertImage(const RasterView& rgb, const StridedImage& dst) const {
  assert(rgb.channels == 3);
  switch (options_.image_dtype) {
    case ImageDtype::kUint8:
      if (dst.x_stride_bytes == 3 && dst.channel_stride_bytes == 1) {
        // Same layout as the source: plain row copies (nothing when in place).
        for (int y = 0; y < rgb.height; ++y) {
          uint8_t* row = At<uint8_t>(dst.data, y * dst.y_stride_bytes);
          if (row != rgb.Row(y)) std::memcpy(row, rgb.Row(y), static_cast<size_t>(rgb.width) * 3);
        }
        return;
      }
      ConvertImageWith<uint8_t>(rgb, dst, IdentityTable{});
      return;
    case ImageDtype::kFloat16:
      ConvertImageWith<uint16_t>(rgb, dst, float16_table_);
      return;
    case ImageDtype::kFloat32:
      ConvertImageWith<float>(rgb, dst, float32_table_);
      return;
  }
}

void OutputConverter::ConvertMask(const RasterView& mask, const StridedMask& dst) const {
  assert(mask.channels == 1);
  for (int y = 0; y < mask.height; ++y) {
    const uint8_t* src = mask.Row(y);
    if (options_.mask_dtype == MaskDtype::kUint8) {
      uint8_t* row = At<uint8_t>(dst.data, y * dst.y_stride_bytes);
      if (dst.x_stride_bytes == 1 && row == src) {
        BinarizeRowInPlace(row, mask.width);
      } else if (dst.x_stride_bytes == 1) {
        BinarizeRow(src, mask.width, row);
      } else {
        for (int x = 0; x < mask.width; ++x) row[x * dst.x_stride_bytes] = src[x] != 0;
      }
    } else {
      float* row = At<float>(dst.data, y * dst.y_stride_bytes);
      if (dst.x_stride_bytes == 4) {
        BinarizeRow(src, mask.width, row);
      } else {
        for (int x = 0; x < mask.width; ++x)
          *At<float>(row, x * dst.x_stride_bytes) = src[x] != 0 ? 1.0f : 0.0f;
      }
    }
  }
}

}  // namespace segfeed::internal
