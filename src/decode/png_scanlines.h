#pragma once

// How a PNG stores its pixels, scanline by scanline (SPNG_FMT_PNG): samples
// per pixel, packed samples below 8 bits, host-endian 16-bit samples, the
// columns of each Adam7 pass, and the mask samples placed from a stored
// scanline into their image row. Shared by PngDecoder's photo and mask paths.

#include <cstdint>
#include <cstring>

#include "decode/png_decoder.h"

namespace segfeed::decode {

// Samples per pixel of a PNG colour type: 3 for RGB, 2 for grey and alpha,
// 4 for RGBA, 1 for grey and palette indices.
int Channels(int color_type);

// One scanline as the file stores it (SPNG_FMT_PNG: samples packed below 8
// bits, host-endian at 16), full width.
int64_t StoredRowBytes(const PngHeader& header);

// Where the pixels of one stored scanline go in their image row: column
// first_column, then every column_step-th. Adam7's seven passes; a
// non-interlaced file is one pass of every pixel.
struct PassColumns {
  int first_column = 0;
  int column_step = 1;
};

// The columns of Adam7 pass `pass` of an interlaced file, or every column.
PassColumns ColumnsOf(const PngHeader& header, int pass);
// Pixels of one scanline of that pass.
int PassWidth(const PngHeader& header, const PassColumns& columns);

// The value of pixel `i` of a scanline packed at `bit_depth` < 8, most
// significant bits first, as PNG packs them.
inline uint8_t PackedSample(const uint8_t* scanline, int i, int bit_depth) {
  const int bit = i * bit_depth;
  return static_cast<uint8_t>((scanline[bit >> 3] >> (8 - bit_depth - (bit & 7))) &
                              ((1 << bit_depth) - 1));
}

inline uint16_t Sample16(const uint8_t* at) {
  uint16_t value;
  std::memcpy(&value, at, sizeof value);  // SPNG_FMT_PNG: host-endian
  return value;
}

// The mask samples of a header: 8-bit indices or grey levels, 16-bit grey
// levels, or 8-bit RGB; and their bytes per pixel.
MaskSampleFormat MaskFormatOf(const PngHeader& header);
int MaskPixelBytes(MaskSampleFormat format);

// Stored samples of one scanline -> mask samples at their columns of `dst`
// (the image row): alpha dropped, 16-bit RGB to its high bytes, everything
// else unchanged. 16-bit samples are host-endian as libspng hands them
// over, or big-endian as the file stores them when `big_endian16`.
void PlaceMaskPixels(const PngHeader& header, const PassColumns& columns, int count,
                     const uint8_t* src, uint8_t* dst, bool big_endian16 = false);

// One stored row of a grey, grey+alpha, RGB or RGBA file (16-bit samples
// big-endian, as the file stores them) -> 8-bit RGB, as libspng's
// SPNG_FMT_RGB8 gives it: 16-bit samples keep their high byte, grey below
// 8 bits is scaled by bit replication (a 2-bit 3 is 255), alpha dropped.
void StoredRowToRgb8(const PngHeader& header, const uint8_t* src, uint8_t* dst);

// The first palette index at or beyond `palette_size` in `count` indices
// `step` apart, or -1.
int FirstIndexOutside(const uint8_t* indices, int count, int step, uint32_t palette_size);

}  // namespace segfeed::decode
