#include "decode/png_scanlines.h"

#include <spng.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace segfeed::decode {
namespace {

constexpr PassColumns kAdam7Columns[7] = {{0, 8}, {4, 8}, {0, 4}, {2, 4}, {0, 2}, {1, 2}, {0, 1}};

}  // namespace

int Channels(int color_type) {
  switch (color_type) {
    case SPNG_COLOR_TYPE_TRUECOLOR:
      return 3;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
      return 2;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
      return 4;
    default:
      return 1;
  }
}

int64_t StoredRowBytes(const PngHeader& header) {
  return (int64_t{header.width} * Channels(header.color_type) * header.bit_depth + 7) / 8;
}

PassColumns ColumnsOf(const PngHeader& header, int pass) {
  return header.interlaced && pass >= 0 && pass < 7 ? kAdam7Columns[pass] : PassColumns{};
}

int PassWidth(const PngHeader& header, const PassColumns& columns) {
  if (header.width <= columns.first_column) return 0;
  return (header.width - columns.first_column + columns.column_step - 1) / columns.column_step;
}

MaskSampleFormat MaskFormatOf(const PngHeader& header) {
  if (header.color_type == SPNG_COLOR_TYPE_TRUECOLOR ||
      header.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA)
    return MaskSampleFormat::kRgb8;
  if (header.color_type != SPNG_COLOR_TYPE_INDEXED && header.bit_depth == 16)
    return MaskSampleFormat::kGrey16;
  return MaskSampleFormat::kIndex8;
}

int MaskPixelBytes(MaskSampleFormat format) {
  switch (format) {
    case MaskSampleFormat::kGrey16:
      return 2;
    case MaskSampleFormat::kRgb8:
      return 3;
    case MaskSampleFormat::kIndex8:
      break;
  }
  return 1;
}

void PlaceMaskPixels(const PngHeader& header, const PassColumns& columns, int count,
                     const uint8_t* src, uint8_t* dst, bool big_endian16) {
  const int step = columns.column_step;
  const int depth = header.bit_depth;
  const int channels = Channels(header.color_type);
  switch (MaskFormatOf(header)) {
    case MaskSampleFormat::kIndex8: {
      uint8_t* out = dst + columns.first_column;
      if (depth < 8) {
        for (int i = 0; i < count; ++i) out[i * step] = PackedSample(src, i, depth);
      } else {
        for (int i = 0; i < count; ++i) out[i * step] = src[i * channels];
      }
      return;
    }
    case MaskSampleFormat::kGrey16: {
      uint8_t* out = dst + 2 * columns.first_column;
      for (int i = 0; i < count; ++i) {
        const uint8_t* sample = src + 2 * i * channels;
        const uint16_t value =
            big_endian16 ? static_cast<uint16_t>(sample[0] << 8 | sample[1]) : Sample16(sample);
        std::memcpy(out + 2 * i * step, &value, 2);
      }
      return;
    }
    case MaskSampleFormat::kRgb8: {
      uint8_t* out = dst + 3 * columns.first_column;
      if (depth == 8) {
        for (int i = 0; i < count; ++i) std::memcpy(out + 3 * i * step, src + i * channels, 3);
      } else {
        for (int i = 0; i < count; ++i) {
          for (int c = 0; c < 3; ++c)
            out[3 * i * step + c] =
                big_endian16 ? src[2 * (i * channels + c)]
                             : static_cast<uint8_t>(Sample16(src + 2 * (i * channels + c)) >> 8);
        }
      }
      return;
    }
  }
}

void StoredRowToRgb8(const PngHeader& header, const uint8_t* src, uint8_t* dst) {
  const int channels = Channels(header.color_type);
  const int depth = header.bit_depth;
  const bool grey = header.color_type == SPNG_COLOR_TYPE_GRAYSCALE ||
                    header.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
  if (depth < 8) {  // grey only: colour types 2, 4 and 6 are 8 or 16 bits
    const int scale = 255 / ((1 << depth) - 1);
    for (int x = 0; x < header.width; ++x) {
      const auto value = static_cast<uint8_t>(PackedSample(src, x, depth) * scale);
      dst[3 * x] = dst[3 * x + 1] = dst[3 * x + 2] = value;
    }
    return;
  }
  // The high byte of a big-endian 16-bit sample is its first.
  const int sample_bytes = depth / 8;
  const int pixel_bytes = channels * sample_bytes;
  for (int x = 0; x < header.width; ++x) {
    const uint8_t* pixel = src + x * pixel_bytes;
    for (int c = 0; c < 3; ++c) dst[3 * x + c] = pixel[grey ? 0 : c * sample_bytes];
  }
}

int FirstIndexOutside(const uint8_t* indices, int count, int step, uint32_t palette_size) {
  if (palette_size >= 256) return -1;  // every 8-bit index is in the palette
  if (palette_size == 0) return count > 0 ? indices[0] : -1;
  int start = 0;
#if defined(__SSE2__)
  // Each row of a palette label map is checked: the row's largest index,
  // 16 at a time, and only a row that has one outside is searched again.
  if (step == 1 && count >= 16) {
    __m128i largest = _mm_setzero_si128();
    for (; start + 16 <= count; start += 16) {
      largest =
          _mm_max_epu8(largest, _mm_loadu_si128(reinterpret_cast<const __m128i*>(indices + start)));
    }
    const __m128i last_inside = _mm_set1_epi8(static_cast<char>(palette_size - 1));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(largest, last_inside), last_inside)) !=
        0xFFFF)
      start = 0;
  }
#endif
  for (int i = start; i < count; ++i) {
    if (indices[i * step] >= palette_size) return indices[i * step];
  }
  return -1;
}

}  // namespace segfeed::decode
