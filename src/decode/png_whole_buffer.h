#pragma once

// The whole-buffer PNG path: a non-interlaced file's IDAT data joined
// (into the caller's output buffer, free until the rows are unfiltered),
// inflated in one libdeflate call into rows sized from the header (kept
// per thread as planned scratch), then unfiltered row by row
// (png_unfilter.h). It replaces libspng's per-row inflate and
// unfiltering: a label map decodes in under a tenth of the time, a photo
// in a little over half, most of which is libdeflate's inflate
// (BENCHMARKS.md, "PNG at inflate speed").
//
// libspng stays the judge of every file: this path takes a file only when
// it finds nothing wrong with it, and a caller gives anything else to
// libspng, whose verdict and words (today's errors) then hold. So it may be
// stricter than libspng (it refuses a zlib stream longer than the image,
// a wrong Adler-32 that libspng does not reach, oversized ancillary chunks
// after the image data), never more lenient. The chunks before the first
// IDAT are left to libspng (the caller has it parse them first: IHDR, PLTE
// and tRNS rules, chunk order); this checks the CRC of every IDAT, the
// zlib stream (header, Adler-32, exact length: libdeflate checks both),
// the filter types, and after the image data that only ancillary chunks
// come before an IEND with a good CRC.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "decode/png_decoder.h"
#include "decode/png_scanlines.h"
#include "decode/png_unfilter.h"

struct libdeflate_decompressor;

namespace segfeed::decode {

class PngWholeBuffer {
 public:
  PngWholeBuffer();
  ~PngWholeBuffer();
  PngWholeBuffer(PngWholeBuffer&&) noexcept;
  PngWholeBuffer& operator=(PngWholeBuffer&&) noexcept;

  // Whether the path takes files with this header: not interlaced.
  static bool Takes(const PngHeader& header) { return !header.interlaced; }
  // The inflated rows of a file with this header: a filter byte and a
  // stored row each, then kUnfilterReadPastEnd bytes of padding.
  static int64_t RowsBytes(const PngHeader& header);
  // The same for width x height pixels of `stored_pixel_bytes` bytes each
  // (3 for 8-bit RGB), for the memory plan.
  static int64_t RowsBytes(int width, int height, int stored_pixel_bytes);

  // What this path's scratch holds once Inflate() has taken `file`: the
  // rows, and when the image data is split over several IDAT chunks and
  // is longer than `join_room` (the caller's output, unused until the
  // rows are unfiltered), that data joined. Both are kept as scratch
  // (scratch_bytes()), so the caller's budget check counts what is held.
  int64_t ScratchNeeded(std::span<const uint8_t> file, const PngHeader& header,
                        size_t join_room) const;

  // Joins and inflates the image data of `file` into rows() (height rows of
  // 1 + StoredRowBytes(header) each, filter byte first, samples as stored:
  // 16-bit ones big-endian; then kUnfilterReadPastEnd bytes of padding).
  // Split image data is joined into `join_room` when it fits there (the
  // caller's output buffer, overwritten), else into this path's scratch.
  // False when the file has anything this path does not take (see above);
  // rows() is then garbage.
  bool Inflate(std::span<const uint8_t> file, const PngHeader& header,
               std::span<uint8_t> join_room);
  uint8_t* rows() { return rows_.data(); }

  // Reserves the rows of the planned file, so that it allocates nothing.
  void Reserve(size_t rows_bytes);
  // Frees the rows when they hold more than `keep_rows_bytes` (an outlier
  // file leaves nothing grown) and the joined data always (not planned:
  // the planned file's data is joined into its output).
  void ShrinkTo(size_t keep_rows_bytes);
  size_t scratch_bytes() const { return rows_.capacity() + joined_.capacity(); }

 private:
  struct Freer {
    void operator()(libdeflate_decompressor* decompressor) const;
  };
  // Holds no state between calls (libdeflate decompresses whole buffers).
  std::unique_ptr<libdeflate_decompressor, Freer> decompressor_;
  // Kept between files and grown only (never zero-filled again): the
  // inflated rows, and split image data that its output could not hold.
  std::vector<uint8_t> rows_;
  std::vector<uint8_t> joined_;
};

// Bytes of one pixel for unfiltering: a whole pixel's bytes, at least 1.
int FilterPixelBytes(const PngHeader& header);

// Unfilters the rows Inflate() wrote, first to last, calling
// place(y, row) with each unfiltered stored row. A row is unfiltered into
// direct_row(y) when that returns non-null (the output row itself, when
// the output is laid out as the file stores it), else in place in `rows`.
// False on a filter type over 4, or as soon as place() returns false.
template <typename DirectRow, typename Place>
bool UnfilterRows(const PngHeader& header, uint8_t* rows, DirectRow&& direct_row, Place&& place) {
  const auto row_bytes = static_cast<size_t>(StoredRowBytes(header));
  const int pixel_bytes = FilterPixelBytes(header);
  const uint8_t* prev = nullptr;
  for (int y = 0; y < header.height; ++y) {
    uint8_t* stored = rows + static_cast<size_t>(y) * (row_bytes + 1);
    if (stored[0] >= kPngFilterCount) return false;
    uint8_t* dst = direct_row(y);
    if (dst == nullptr) dst = stored + 1;
    if (y + 1 < header.height) {
      uint8_t* next_stored = stored + row_bytes + 1;
      uint8_t* next_dst = direct_row(y + 1);
      if (next_dst == nullptr) next_dst = next_stored + 1;
      if (next_stored[0] < kPngFilterCount &&
          UnfilterRowPair(stored[0], next_stored[0], stored + 1, next_stored + 1, prev, dst,
                          next_dst, row_bytes, pixel_bytes)) {
        if (!place(y, dst) || !place(y + 1, next_dst)) return false;
        prev = next_dst;
        ++y;
        continue;
      }
    }
    UnfilterRow(stored[0], stored + 1, prev, dst, row_bytes, pixel_bytes);
    if (!place(y, dst)) return false;
    prev = dst;
  }
  return true;
}

}  // namespace segfeed::decode
