#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "decode/gif_lzw.h"
#include "decode/mask_values.h"
#include "result.h"
#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::decode {

// GIF mask decoding into reused buffers. giflib parses the file (records,
// extensions, descriptors) and hands over the compressed pixel data; the
// LZW expansion is GifLzwDecoder's (see why there). Never DGifSlurp, whose
// fresh per-image allocations cost far more than the decoding. One decoder
// per thread; not thread-safe.
//
// Semantics: only the first frame is decoded. The output has the logical
// screen's size; a frame smaller than the screen is placed at its offset
// and everything outside it is 0 (background, or class 0 in labels mode).
// In binary mode every pixel with the frame's transparent index is
// background too, whatever its colour; in labels mode the transparent index
// is a class like any other index (label GIFs are saved with transparency=0
// by Pillow and others). Parts of a frame outside the screen are clipped.
// Interlaced frames come out in display row order.
class GifDecoder {
 public:
  explicit GifDecoder(const DecodeOptions& options) : options_(options), rule_(options) {}

  // Decodes `bytes` into `out`. Errors name `path`: unsupported_format when
  // the bytes are not GIF, too_large when the logical screen or the frame
  // has more than max_pixels (checked before allocating), corrupt_mask with
  // giflib's reason for anything else (truncation included). On error `out`
  // holds garbage. too_large also when the file would make `out` and this
  // decoder's frame buffer hold more than `budget_bytes` together (checked
  // on the headers, before allocating).
  Status Decode(std::span<const uint8_t> bytes, std::string_view path, MaskImage* out,
                int64_t budget_bytes = INT64_MAX);
  // Frees the frame and compressed-data buffers when they hold more than
  // `keep_bytes`, so that an outlier file leaves nothing grown.
  void ShrinkScratch(size_t keep_bytes);

  // Frame-sized scratch, used only for frames reaching past the screen,
  // and the row table of interlaced or offset frames.
  size_t pixel_scratch_bytes() const {
    return indices_.capacity() + rows_.capacity() * sizeof(uint8_t*);
  }
  // The gathered LZW data: as large as the largest mask's compressed data,
  // so it is reported with the file buffers.
  size_t compressed_bytes() const { return compressed_.capacity(); }

 private:
  DecodeOptions options_;
  MaskValueRule rule_;
  GifLzwDecoder lzw_;
  // Reused between files; they only grow.
  std::vector<uint8_t> compressed_;  // the frame's LZW data, sub-blocks joined
  std::vector<uint8_t> indices_;     // frame pixels, for frames reaching past the screen
  std::vector<uint8_t*> rows_;       // where each stored row of the frame goes
};

}  // namespace segfeed::decode
