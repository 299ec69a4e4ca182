#pragma once

// Undoing PNG's row filters (PNG spec 9.2-9.4): None, Sub, Up, Average and
// Paeth, each byte predicted from the byte one pixel to the left and from
// the row above. For the whole-buffer PNG path (png_whole_buffer.h), which
// unfilters every row of an inflated image itself instead of through
// libspng's per-row calls.

#include <cstddef>
#include <cstdint>

namespace segfeed::decode {

// Filter types are 0-4; a row whose filter byte is larger is a bad file.
constexpr uint8_t kPngFilterCount = 5;

// Undoes `filter` (< kPngFilterCount) on one row of `bytes` bytes:
// dst[i] = src[i] + predictor(dst[i - pixel_bytes], prev[i], prev[i -
// pixel_bytes]), bytes before the row's start counting as 0. `prev` is the
// row above, already unfiltered, or nullptr for the first row (all zeros).
// `dst` may be `src` (in place) but must not overlap `prev`. pixel_bytes:
// the bytes of one pixel rounded up to at least 1 (PNG's "bpp"), 1 to 8.
// Up goes through the compiler's vectorised loop; for 3- and 4-byte pixels
// (8-bit RGB and RGBA) Sub is a prefix sum over 4 pixels per SSE2 register
// and Average and Paeth take a pixel per SSE2 step; for 1-byte pixels
// (label maps) Sub is a prefix sum over 16 bytes, and so is Paeth over 16
// bytes whose row above is flat (there it predicts the left byte: a label
// map's regions); the rest is scalar (each byte waits on its left
// neighbour). Reads `src` up to
// kUnfilterReadPastEnd bytes past the row's end, and `prev` up to 1 byte
// past (the caller's buffers must have them: the next row, or padding);
// writes nothing outside dst's row.
constexpr size_t kUnfilterReadPastEnd = 16;
void UnfilterRow(uint8_t filter, const uint8_t* src, const uint8_t* prev, uint8_t* dst,
                 size_t bytes, int pixel_bytes);

// Two consecutive rows at once where that pays: both Paeth, 3- or 4-byte
// pixels, a row above. Each Paeth pixel waits on its left neighbour, so a
// row alone leaves most of the core idle; the second row's pixels run
// beside the first's, taking the first's as their row above straight from
// the registers. Gives the bytes UnfilterRow gives on `src0` (row above
// `prev`) and then on `src1` (row above `dst0`), with its rules on reading
// and in-place rows; returns false, having done nothing, where it does not
// apply.
bool UnfilterRowPair(uint8_t filter0, uint8_t filter1, const uint8_t* src0, const uint8_t* src1,
                     const uint8_t* prev, uint8_t* dst0, uint8_t* dst1, size_t bytes,
                     int pixel_bytes);

}  // namespace segfeed::decode
