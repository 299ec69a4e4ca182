#include "decode/gif_lzw.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace segfeed::decode {
namespace {

// Output positions are counted in the frame's stored order; these map a
// position to memory. Run() is how many bytes from there are contiguous.
struct LinearOutput {
  uint8_t* base;
  uint8_t* At(size_t pos) const { return base + pos; }
  size_t Run(size_t) const { return SIZE_MAX; }
};

struct RowOutput {
  uint8_t* const* rows;
  size_t row_bytes;
  uint8_t* At(size_t pos) const { return rows[pos / row_bytes] + pos % row_bytes; }
  size_t Run(size_t pos) const { return row_bytes - pos % row_bytes; }
};

// Copies `length` bytes from output position `from` to `to` (from < to) in
// chunks that are contiguous on both sides and never read what the same
// chunk writes (at most to - from bytes), so an overlapping LZW string
// (the "KwKwK" case) reads the bytes it has just written, like an LZ77
// match.
template <typename Output>
void CopyWithin(const Output& out, size_t from, size_t to, size_t length) {
  const size_t distance = to - from;
  while (length > 0) {
    const size_t n = std::min({length, distance, out.Run(from), out.Run(to)});
    std::memcpy(out.At(to), out.At(from), n);
    from += n;
    to += n;
    length -= n;
  }
}

}  // namespace

GifLzwDecoder::Result GifLzwDecoder::Decode(std::span<const uint8_t> compressed, int min_code_size,
                                            std::span<uint8_t> out,
                                            std::array<bool, 256>* index_used) {
  return DecodeInto(compressed, min_code_size, LinearOutput{out.data()}, out.size(), index_used);
}

GifLzwDecoder::Result GifLzwDecoder::DecodeRows(std::span<const uint8_t> compressed,
                                                int min_code_size, std::span<uint8_t* const> rows,
                                                size_t row_bytes,
                                                std::array<bool, 256>* index_used) {
  return DecodeInto(compressed, min_code_size, RowOutput{rows.data(), row_bytes},
                    rows.size() * row_bytes, index_used);
}

// One function of ~90 lines on purpose, at the 90 the rest of src/ keeps
// to: it is the inner loop of mask decoding, and its state (bit buffer,
// code size, table position, previous string) lives in registers across
// iterations. Split into helpers, that state would travel through memory or
// depend on the inliner, for no reader's gain: the steps are marked below.
template <typename Output>
// NOLINTNEXTLINE(readability-function-size): the exception named above
GifLzwDecoder::Result GifLzwDecoder::DecodeInto(std::span<const uint8_t> compressed,
                                                int min_code_size, const Output& out, size_t total,
                                                std::array<bool, 256>* index_used) {
  Result result;
  if (min_code_size < 1 || min_code_size > 8) {
    result.outcome = Outcome::kBadCodeSize;
    return result;
  }
  const int clear_code = 1 << min_code_size;
  const int end_code = clear_code + 1;
  int code_size = min_code_size + 1;
  int next_code = clear_code + 2;  // first free table entry
  int previous = -1;               // code just expanded; -1 right after a clear
  size_t previous_start = 0;       // where its string was written
  size_t previous_length = 0;

  // Codes are packed LSB first. The bit buffer is refilled a byte at a time
  // so that it always holds a whole code (at most 12 bits) when one exists.
  uint64_t bits = 0;
  int bit_count = 0;
  size_t in = 0;
  size_t pos = 0;

  while (pos < total) {
    while (bit_count < code_size && in < compressed.size()) {
      bits |= uint64_t{compressed[in++]} << bit_count;
      bit_count += 8;
    }
    if (bit_count < code_size) {
      result.outcome = Outcome::kTruncated;
      break;
    }
    const int code = static_cast<int>(bits & ((1u << code_size) - 1));
    bits >>= code_size;
    bit_count -= code_size;

    if (code == clear_code) {
      code_size = min_code_size + 1;
      next_code = clear_code + 2;
      previous = -1;
      continue;
    }
    if (code == end_code) {
      result.outcome = Outcome::kEndCodeTooEarly;
      break;
    }

    size_t length;
    if (code < clear_code) {
      // A literal: the only way a new palette index enters the output, so
      // marking literals marks every index used.
      *out.At(pos) = static_cast<uint8_t>(code);
      (*index_used)[code] = true;
      length = 1;
    } else if (previous < 0) {  // NOLINT(bugprone-branch-clone): must precede the table look-ups
      result.outcome = Outcome::kInvalidCode;  // nothing defined yet to refer to
      break;
    } else if (code < next_code) {
      // An earlier entry; its bytes lie wholly before `pos`, no overlap.
      length = std::min<size_t>(length_[code], total - pos);
      CopyWithin(out, start_[code], pos, length);
    } else if (code == next_code && next_code < kMaxCodes) {
      // The entry being defined right now (the "KwKwK" case): the previous
      // string plus its own first byte. The copy overlaps its source.
      length = std::min<size_t>(previous_length + 1, total - pos);
      CopyWithin(out, previous_start, pos, length);
    } else {
      result.outcome = Outcome::kInvalidCode;
      break;
    }

    // The new entry is the previous string plus the first byte written now,
    // which is exactly the output starting where the previous one started.
    if (previous >= 0 && next_code < kMaxCodes) {
      start_[next_code] = previous_start;
      length_[next_code] = static_cast<uint16_t>(previous_length + 1);
      ++next_code;
    }
    // Codes widen as soon as the next free entry no longer fits, checked
    // after every code as giflib does: with a minimum code size of 1 that
    // already happens after the first code following a clear (entry 4 needs
    // 3 bits), although that code defined nothing. Once the table is full
    // (4096) codes stay 12 bits wide until a clear code ("deferred clear").
    if (next_code >= (1 << code_size) && code_size < 12) ++code_size;
    previous = code;
    previous_start = pos;
    previous_length = length;
    pos += length;
  }
  result.pixels_written = pos;
  return result;
}

}  // namespace segfeed::decode
