#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace segfeed::decode {

// Decoder for the LZW-compressed pixel data of one GIF frame.
//
// Why our own and not giflib's DGifGetLine: giflib rebuilds every string by
// walking a prefix chain one dependent load per pixel, which on a
// 1918x1280 mask costs ~11 ms, ~20x its share of the compressed data. Here
// each table entry is remembered as (position, length) in the output
// already written, so a code is expanded with one memcpy: every LZW string
// is an earlier piece of the output plus one byte. giflib still parses the
// file and hands us the compressed sub-blocks (DGifGetCode).
//
// Not thread-safe; one per GifDecoder. Holds ~40 KiB of tables, no heap.
class GifLzwDecoder {
 public:
  enum class Outcome {
    kComplete,         // every pixel decoded (trailing extra data is ignored)
    kTruncated,        // the compressed data ended before the last pixel
    kEndCodeTooEarly,  // the end-of-information code came before the last pixel
    kInvalidCode,      // a code not yet in the table, or a bad first code
    kBadCodeSize,      // minimum code size outside 1-8
  };
  struct Result {
    Outcome outcome = Outcome::kComplete;
    size_t pixels_written = 0;
  };

  // Decodes `compressed` (the concatenated sub-block payloads) with LZW
  // minimum code size `min_code_size` into `out`, one palette index per
  // byte, until `out` is full. `index_used[i]` is set for every index that
  // appears in the written pixels (it is never cleared here).
  Result Decode(std::span<const uint8_t> compressed, int min_code_size, std::span<uint8_t> out,
                std::array<bool, 256>* index_used);

  // The same for a frame of rows of `row_bytes` each, where stored row k
  // (in the file's order) is written at `rows[k]`: an interlaced frame
  // goes straight to its display rows, with no copy afterwards.
  Result DecodeRows(std::span<const uint8_t> compressed, int min_code_size,
                    std::span<uint8_t* const> rows, size_t row_bytes,
                    std::array<bool, 256>* index_used);

 private:
  template <typename Output>
  Result DecodeInto(std::span<const uint8_t> compressed, int min_code_size, const Output& out,
                    size_t total, std::array<bool, 256>* index_used);

  static constexpr int kMaxCodes = 4096;  // 12-bit codes
  // Where the string of each code was last written in the output, and its
  // length in bytes (at most kMaxCodes, as each entry adds one byte).
  std::array<size_t, kMaxCodes> start_{};
  std::array<uint16_t, kMaxCodes> length_{};
};

}  // namespace segfeed::decode
