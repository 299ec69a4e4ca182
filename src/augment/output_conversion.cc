#include "augment/output_conversion.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

#include <opencv2/core.hpp>

#include "augment/conversion_kernels.h"
#include "augment/simd_dispatch.h"

namespace segfeed::augment {
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
        *At<T>(row, x * x_stride_bytes + c * channel_stride_bytes) = table[c][src[3 * x + c]];
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
    ConvertRow(rgb.Row(y), rgb.width, At<T>(dst.data, y * dst.y_stride_bytes), dst.x_stride_bytes,
               dst.channel_stride_bytes, table);
  }
}

#ifdef SEGFEED_HAVE_SIMD_KERNELS
// The float32 formula's constants as the vector kernels take them.
FloatConversion FloatConversionOf(const OutputOptions& options) {
  return {options.normalize,
          {options.mean[0], options.mean[1], options.mean[2]},
          {options.std[0], options.std[1], options.std[2]}};
}
#endif

// Planar levels to any strided destination through per-channel tables.
template <typename T, typename Table>
void PlanarSpanScalar(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count, T* row,
                      ptrdiff_t x_stride_bytes, ptrdiff_t channel_stride_bytes,
                      const Table& table) {
  for (int i = 0; i < count; ++i) {
    T* pixel = At<T>(row, i * x_stride_bytes);
    pixel[0] = table[0][r[i]];
    *At<T>(pixel, channel_stride_bytes) = table[1][g[i]];
    *At<T>(pixel, 2 * channel_stride_bytes) = table[2][b[i]];
  }
}

}  // namespace

void OutputConverter::ConvertPlanarSpan(const uint8_t* r, const uint8_t* g, const uint8_t* b,
                                        int count, const StridedImage& dst, int y, int x0) const {
  auto* row = static_cast<uint8_t*>(dst.data) + y * dst.y_stride_bytes + x0 * dst.x_stride_bytes;
  int done = 0;
  switch (options_.image_dtype) {
    case ElementType::kUint8:
#ifdef SEGFEED_HAVE_SIMD_KERNELS
      if (dst.x_stride_bytes == 3 && dst.channel_stride_bytes == 1 && CpuHasAvx2())
        done = Uint8NhwcSpanAvx2(r, g, b, count, row);
#endif
      PlanarSpanScalar(r + done, g + done, b + done, count - done, row + done * dst.x_stride_bytes,
                       dst.x_stride_bytes, dst.channel_stride_bytes, IdentityTable{});
      return;
    case ElementType::kFloat16:
      PlanarSpanScalar(r, g, b, count, reinterpret_cast<uint16_t*>(row), dst.x_stride_bytes,
                       dst.channel_stride_bytes, float16_table_);
      return;
    case ElementType::kFloat32:
#ifdef SEGFEED_HAVE_SIMD_KERNELS
      if (dst.x_stride_bytes == 12 && dst.channel_stride_bytes == 4 && CpuHasAvx2()) {
        auto* floats = reinterpret_cast<float*>(row);
        const FloatConversion conversion = FloatConversionOf(options_);
        if (CpuHasAvx512()) done = Float32NhwcSpanAvx512(r, g, b, count, conversion, floats);
        done += Float32NhwcSpanAvx2(r + done, g + done, b + done, count - done, conversion,
                                    floats + 3 * done);
      } else if (dst.x_stride_bytes == 4 && dst.channel_stride_bytes % 4 == 0 && CpuHasAvx2()) {
        auto* floats = reinterpret_cast<float*>(row);
        const ptrdiff_t plane_floats = dst.channel_stride_bytes / 4;
        const FloatConversion conversion = FloatConversionOf(options_);
        if (CpuHasAvx512())
          done = Float32NchwSpanAvx512(r, g, b, count, conversion, floats, plane_floats);
        done += Float32NchwSpanAvx2(r + done, g + done, b + done, count - done, conversion,
                                    floats + done, plane_floats);
      }
#endif
      PlanarSpanScalar(r + done, g + done, b + done, count - done,
                       reinterpret_cast<float*>(row + done * dst.x_stride_bytes),
                       dst.x_stride_bytes, dst.channel_stride_bytes, float32_table_);
      return;
    case ElementType::kInt32:
    case ElementType::kInt64:
      assert(false && "images are never integers (ValidateOutputOptions)");
      return;
  }
}

OutputConverter::OutputConverter(const OutputOptions& options, MaskEncoding mask_encoding)
    : options_(options), mask_encoding_(mask_encoding) {
  ValidateOutputOptions(options_);
  for (int value = 0; value < 256; ++value) label_table_[static_cast<size_t>(value)] = value;
  label_table_[mask_encoding_.ignore_value] = mask_encoding_.ignore_index;
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
  const ptrdiff_t element = ElementBytes(options_.image_dtype);
  if (options_.layout == Layout::kNHWC) return {data, width * 3 * element, 3 * element, element};
  return {data, width * element, element, static_cast<ptrdiff_t>(width) * height * element};
}

StridedMask OutputConverter::DenseMask(void* data, int width) const {
  const ptrdiff_t element = ElementBytes(options_.mask_dtype);
  return {data, width * element, element};
}

void OutputConverter::ConvertImage(const RasterView& rgb, const StridedImage& dst) const {
  assert(rgb.channels == 3);
  switch (options_.image_dtype) {
    case ElementType::kUint8:
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
    case ElementType::kFloat16:
      ConvertImageWith<uint16_t>(rgb, dst, float16_table_);
      return;
    case ElementType::kFloat32:
#ifdef SEGFEED_HAVE_SIMD_KERNELS
      if (dst.x_stride_bytes == 12 && dst.channel_stride_bytes == 4 && CpuHasAvx512()) {
        // Without jitter (--no-augment, identity parameters) the image comes
        // here: the same values as the table, 16 at a time.
        const FloatConversion conversion = FloatConversionOf(options_);
        for (int y = 0; y < rgb.height; ++y) {
          const uint8_t* src = rgb.Row(y);
          float* row = At<float>(dst.data, y * dst.y_stride_bytes);
          const int done = Float32NhwcRowAvx512(src, rgb.width, conversion, row);
          ConvertRow(src + 3 * done, rgb.width - done, row + 3 * done, dst.x_stride_bytes,
                     dst.channel_stride_bytes, float32_table_);
        }
        return;
      }
#endif
      ConvertImageWith<float>(rgb, dst, float32_table_);
      return;
    case ElementType::kInt32:
    case ElementType::kInt64:
      assert(false && "images are never integers (ValidateOutputOptions)");
      return;
  }
}

namespace {

// Label rows: every value through `table` (the ignore value becomes
// ignore_index), in the destination's integer type; packed int32 and int64
// rows through the AVX2 kernels first, where the CPU has them.
template <typename T>
void LabelRow(const uint8_t* src, int width, uint8_t* row, ptrdiff_t x_stride_bytes,
              const std::array<int64_t, 256>& table, const MaskEncoding& encoding) {
  if (x_stride_bytes == static_cast<ptrdiff_t>(sizeof(T))) {
    T* packed = reinterpret_cast<T*>(row);
    int done = 0;
#ifdef SEGFEED_HAVE_SIMD_KERNELS
    if constexpr (std::is_same_v<T, int32_t>) {
      if (CpuHasAvx2())
        done = LabelInt32SpanAvx2(src, width, encoding.ignore_value, encoding.ignore_index, packed);
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (CpuHasAvx2())
        done = LabelInt64SpanAvx2(src, width, encoding.ignore_value, encoding.ignore_index, packed);
    }
#else
    (void)encoding;
#endif
    for (int x = done; x < width; ++x) packed[x] = static_cast<T>(table[src[x]]);
    return;
  }
  for (int x = 0; x < width; ++x)
    *reinterpret_cast<T*>(row + x * x_stride_bytes) = static_cast<T>(table[src[x]]);
}

}  // namespace

void OutputConverter::ConvertMask(const RasterView& mask, const StridedMask& dst) const {
  assert(mask.channels == 1);
  if (mask_encoding_.labels) {
    const bool identity = mask_encoding_.ignore_index == mask_encoding_.ignore_value;
    for (int y = 0; y < mask.height; ++y) {
      const uint8_t* src = mask.Row(y);
      uint8_t* row = At<uint8_t>(dst.data, y * dst.y_stride_bytes);
      switch (options_.mask_dtype) {
        case ElementType::kUint8:
          if (identity && row == src && dst.x_stride_bytes == 1) break;  // in place, as it is
          LabelRow<uint8_t>(src, mask.width, row, dst.x_stride_bytes, label_table_, mask_encoding_);
          break;
        case ElementType::kInt32:
          LabelRow<int32_t>(src, mask.width, row, dst.x_stride_bytes, label_table_, mask_encoding_);
          break;
        case ElementType::kInt64:
          LabelRow<int64_t>(src, mask.width, row, dst.x_stride_bytes, label_table_, mask_encoding_);
          break;
        case ElementType::kFloat16:
        case ElementType::kFloat32:
          assert(false && "labels are integers (CheckMaskDtypeForMode)");
          break;
      }
    }
    return;
  }
  for (int y = 0; y < mask.height; ++y) {
    const uint8_t* src = mask.Row(y);
    if (options_.mask_dtype == ElementType::kUint8) {
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

}  // namespace segfeed::augment
