#include "decode/gif_decoder.h"

#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <utility>

#include "decode/decode_budget.h"
#include "decode/format_sniffer.h"
#include "decode/gif_index_mapping.h"
#include "decode/gif_lzw.h"
#include "decode/gif_memory_source.h"
#include "source/scratch_growth.h"

namespace segfeed::decode {
namespace {

// Calls visit(frame_row) for each row of `frame` in the order the file
// stores them: interlaced frames in four passes, rows 0, 8, 16, ... then
// 4, 12, ... then 2, 6, ... then 1, 3, ...
template <typename Visit>
void InStoredOrder(const GifImageDesc& frame, Visit&& visit) {
  if (!frame.Interlace) {
    for (int r = 0; r < frame.Height; ++r) visit(r);
    return;
  }
  constexpr int kPassFirstRow[4] = {0, 4, 2, 1};
  constexpr int kPassRowStep[4] = {8, 8, 4, 2};
  for (int pass = 0; pass < 4; ++pass) {
    for (int r = kPassFirstRow[pass]; r < frame.Height; r += kPassRowStep[pass]) visit(r);
  }
}

// Builds the errors of one file: each names the path; a giflib failure
// says whether the data ran out (by far the most common cause).
class GifErrors {
 public:
  GifErrors(std::span<const uint8_t> bytes, std::string_view path, const GifMemorySource& source)
      : bytes_(bytes), path_(path), source_(source) {}

  Error Fail(ErrorKind kind, std::string detail) const {
    return Error{kind, std::string(path_), std::move(detail)};
  }

  Error Corrupt(int giflib_error, const std::string& where) const {
    if (source_.ran_out) {
      return Fail(ErrorKind::kCorruptMask, "truncated GIF: data ends after " +
                                               std::to_string(bytes_.size()) + " bytes " + where);
    }
    const char* reason = GifErrorString(giflib_error);
    return Fail(
        ErrorKind::kCorruptMask,
        std::string("corrupt GIF: ") + (reason ? reason : "unknown giflib error") + " " + where);
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string_view path_;
  const GifMemorySource& source_;
};

Status CheckScreen(const GifFileType& gif, int64_t max_pixels, const GifErrors& errors) {
  const int64_t screen_pixels = static_cast<int64_t>(gif.SWidth) * gif.SHeight;
  if (gif.SWidth <= 0 || gif.SHeight <= 0) {
    return errors.Fail(
        ErrorKind::kCorruptMask,
        "GIF logical screen is " + std::to_string(gif.SWidth) + "x" + std::to_string(gif.SHeight));
  }
  if (screen_pixels > max_pixels) {
    return errors.Fail(ErrorKind::kTooLarge,
                       "GIF logical screen claims " + std::to_string(gif.SWidth) + "x" +
                           std::to_string(gif.SHeight) + " = " + std::to_string(screen_pixels) +
                           " pixels, more than max_pixels = " + std::to_string(max_pixels));
  }
  return {};
}

// Reads the records before the first frame: extensions, of which only the
// graphics control block (transparency) matters for a mask. Gives the
// transparent index (NO_TRANSPARENT_COLOR when none) and stops at the first
// frame's descriptor.
Result<int> ReadToFirstFrame(GifFileType* gif, const GifErrors& errors) {
  int transparent_index = NO_TRANSPARENT_COLOR;
  for (;;) {
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif, &record) == GIF_ERROR)
      return errors.Corrupt(gif->Error, "before the first frame");
    if (record == IMAGE_DESC_RECORD_TYPE) return transparent_index;
    if (record == TERMINATE_RECORD_TYPE)
      return errors.Fail(ErrorKind::kCorruptMask, "GIF contains no image");
    if (record != EXTENSION_RECORD_TYPE) continue;
    int code = 0;
    GifByteType* block = nullptr;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR)
      return errors.Corrupt(gif->Error, "in an extension block");
    if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] == 4) {
      GraphicsControlBlock control{};
      if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK)
        transparent_index = control.TransparentColor;
    }
    while (block) {
      if (DGifGetExtensionNext(gif, &block) == GIF_ERROR)
        return errors.Corrupt(gif->Error, "in an extension block");
    }
  }
}

// The frame header at `descriptor` ends with the LZW minimum code size;
// giflib refuses one over 8 as a failed read, which would say nothing of the
// cause.
Status CheckLzwCodeSize(std::span<const uint8_t> bytes, size_t descriptor,
                        const GifErrors& errors) {
  if (descriptor + 9 >= bytes.size()) return {};
  const uint8_t packed = bytes[descriptor + 8];
  const size_t local_colours = (packed & 0x80) ? size_t{3} << ((packed & 7) + 1) : 0;
  if (const size_t at = descriptor + 9 + local_colours; at < bytes.size() && bytes[at] > 8) {
    return errors.Fail(ErrorKind::kCorruptMask, "corrupt GIF: LZW minimum code size " +
                                                    std::to_string(bytes[at]) + " is outside 1-8");
  }
  return {};
}

Status CheckFrame(const GifFileType& gif, int64_t max_pixels, const GifErrors& errors) {
  const GifImageDesc& frame = gif.Image;
  const int64_t frame_pixels = static_cast<int64_t>(frame.Width) * frame.Height;
  if (frame.Width <= 0 || frame.Height <= 0) {
    return errors.Fail(ErrorKind::kCorruptMask, "GIF frame is " + std::to_string(frame.Width) +
                                                    "x" + std::to_string(frame.Height));
  }
  // Nothing of such a frame would be drawn: an all-background mask that
  // only looks clean.
  if (frame.Left >= gif.SWidth || frame.Top >= gif.SHeight) {
    return errors.Fail(ErrorKind::kCorruptMask,
                       "GIF frame at (" + std::to_string(frame.Left) + "," +
                           std::to_string(frame.Top) + ") of " + std::to_string(frame.Width) + "x" +
                           std::to_string(frame.Height) + " lies wholly outside the " +
                           std::to_string(gif.SWidth) + "x" + std::to_string(gif.SHeight) +
                           " screen");
  }
  if (frame_pixels > max_pixels) {
    return errors.Fail(ErrorKind::kTooLarge,
                       "GIF frame claims " + std::to_string(frame.Width) + "x" +
                           std::to_string(frame.Height) + " = " + std::to_string(frame_pixels) +
                           " pixels, more than max_pixels = " + std::to_string(max_pixels));
  }
  return {};
}

// Collects the frame's compressed sub-blocks into `compressed` (reused), so
// the LZW decoder reads one contiguous span.
Status GatherLzwData(GifFileType* gif, std::vector<uint8_t>* compressed, int* min_code_size,
                     const GifErrors& errors) {
  GifByteType* block = nullptr;
  compressed->clear();
  if (DGifGetCode(gif, min_code_size, &block) == GIF_ERROR)
    return errors.Corrupt(gif->Error, "in the pixel data");
  while (block) {
    source::AppendScratch(compressed, block + 1, block + 1 + block[0]);
    if (DGifGetCodeNext(gif, &block) == GIF_ERROR)
      return errors.Corrupt(gif->Error, "in the pixel data");
  }
  return {};
}

// Background wherever the frame does not reach: above, below, and beside it.
void ClearOutsideFrame(const GifImageDesc& frame, MaskImage* out) {
  const size_t width = static_cast<size_t>(out->width);
  uint8_t* const canvas = out->pixels.data();
  const int left = std::min<int>(frame.Left, out->width);
  const int right =
      static_cast<int>(std::min<int64_t>(int64_t{frame.Left} + frame.Width, out->width));
  const int top = std::min<int>(frame.Top, out->height);
  const int bottom =
      static_cast<int>(std::min<int64_t>(int64_t{frame.Top} + frame.Height, out->height));
  std::fill(canvas, canvas + static_cast<size_t>(top) * width, 0);
  std::fill(canvas + static_cast<size_t>(bottom) * width, canvas + out->pixels.size(), 0);
  if (left > 0 || right < out->width) {
    for (int y = top; y < bottom; ++y) {
      uint8_t* row = canvas + static_cast<size_t>(y) * width;
      std::fill(row, row + left, 0);
      std::fill(row + right, row + width, 0);
    }
  }
}

std::string LzwFailure(GifLzwDecoder::Outcome outcome, int min_code_size) {
  switch (outcome) {
    case GifLzwDecoder::Outcome::kTruncated:
      return "compressed pixel data ends early";
    case GifLzwDecoder::Outcome::kEndCodeTooEarly:
      return "end code before the last pixel";
    case GifLzwDecoder::Outcome::kInvalidCode:
      return "invalid LZW code";
    case GifLzwDecoder::Outcome::kBadCodeSize:
      return "LZW code size " + std::to_string(min_code_size) + " outside 1-8";
    case GifLzwDecoder::Outcome::kComplete:
      break;
  }
  return {};
}

// A frame reaching past the screen, decoded into `indices`: the visible
// part of each stored row goes to its display row, mapped to mask values.
void PlaceClippedFrame(const GifImageDesc& frame, const std::vector<uint8_t>& indices,
                       const std::array<uint8_t, 256>& value, MaskImage* out) {
  const size_t width = static_cast<size_t>(out->width);
  const int left = std::min<int>(frame.Left, out->width);
  const int right =
      static_cast<int>(std::min<int64_t>(int64_t{frame.Left} + frame.Width, out->width));
  const size_t columns = right > left ? static_cast<size_t>(right - left) : 0;
  int stored_row = 0;
  InStoredOrder(frame, [&](int frame_row) {
    const uint8_t* src = indices.data() + static_cast<size_t>(stored_row++) * frame.Width;
    const int y = frame.Top + frame_row;
    if (y >= out->height || columns == 0) return;  // clipped
    uint8_t* row = out->pixels.data() + static_cast<size_t>(y) * width + left;
    for (size_t x = 0; x < columns; ++x) row[x] = value[src[x]];
  });
}

// Where the frame's pixels are decoded: the common case, one frame exactly
// covering the screen in row order, straight into the output (kInPlace); a
// frame inside the screen (interlaced, or smaller and offset) straight into
// its display rows (kToRows); only a frame reaching past the screen, whose
// clipped pixels the LZW decoder still reads back, through a frame buffer
// (kToBuffer).
enum class Placement { kInPlace, kToRows, kToBuffer };

Placement ChoosePlacement(const GifFileType& gif) {
  const GifImageDesc& frame = gif.Image;
  if (frame.Left == 0 && frame.Top == 0 && frame.Width == gif.SWidth &&
      frame.Height == gif.SHeight && !frame.Interlace) {
    return Placement::kInPlace;
  }
  const bool inside_screen = int64_t{frame.Left} + frame.Width <= gif.SWidth &&
                             int64_t{frame.Top} + frame.Height <= gif.SHeight;
  return inside_screen ? Placement::kToRows : Placement::kToBuffer;
}

// Maps the decoded frame's palette indices to mask values where they lie.
void MapToMask(const GifImageDesc& frame, Placement placement, const std::vector<uint8_t>& indices,
               const std::array<uint8_t, 256>& value, const std::array<bool, 256>& index_used,
               bool binary, MaskImage* out) {
  if (placement == Placement::kToBuffer) {
    PlaceClippedFrame(frame, indices, value, out);
    return;
  }
  // Carvana-style masks (index 0 black, index 1 white) map every used index
  // to itself: then there is nothing left to do per pixel.
  bool identity = true;
  for (int i = 0; i < 256; ++i) identity = identity && (!index_used[i] || value[i] == i);
  if (identity) return;
  const IndexMapping mapping(value, index_used, binary);
  if (placement == Placement::kInPlace) {
    mapping.Apply(out->pixels.data(), out->pixels.size());
    return;
  }
  const size_t width = static_cast<size_t>(out->width);
  for (int y = frame.Top; y < frame.Top + frame.Height; ++y) {
    mapping.Apply(out->pixels.data() + static_cast<size_t>(y) * width + frame.Left,
                  static_cast<size_t>(frame.Width));
  }
}

// The label_out_of_range error: the bad indices' pixel counts, from the
// indices as decoded (before mapping).
Error OutOfRange(const GifImageDesc& frame, Placement placement,
                 const std::vector<uint8_t>& indices, const IndexValues& values,
                 const MaskValueRule& rule, std::span<const PaletteColour> palette,
                 std::string_view path, const MaskImage& out) {
  std::array<uint64_t, 256> counts{};
  if (placement == Placement::kToBuffer) {
    for (uint8_t index : indices) ++counts[index];
  } else {
    for (int y = frame.Top; y < frame.Top + frame.Height; ++y) {
      const uint8_t* row = out.pixels.data() + static_cast<size_t>(y) * out.width + frame.Left;
      for (int x = 0; x < frame.Width; ++x) ++counts[row[x]];
    }
  }
  // Colour-coded masks name the colours mask_colors lacks.
  const bool by_colour = !rule.options().mask_colors.empty();
  std::vector<std::pair<uint32_t, uint64_t>> bad;
  for (uint32_t i = 0; i < 256; ++i) {
    if (!values.bad[i] || counts[i] == 0) continue;
    const uint32_t key =
        by_colour && i < palette.size()
            ? (uint32_t{palette[i][0]} << 16) | (uint32_t{palette[i][1]} << 8) | palette[i][2]
            : i;
    bad.emplace_back(key, counts[i]);
  }
  return rule.OutOfRange(path, bad, by_colour);
}

// What decoding this file makes the decoder hold, known before anything is
// allocated: the canvas (or what it already holds), and the row table or
// the frame buffer of `placement`.
int64_t BytesToDecode(const GifFileType& gif, Placement placement, size_t canvas_capacity,
                      size_t frame_buffer_capacity) {
  const GifImageDesc& frame = gif.Image;
  const int64_t screen_pixels = static_cast<int64_t>(gif.SWidth) * gif.SHeight;
  const int64_t frame_pixels = static_cast<int64_t>(frame.Width) * frame.Height;
  return std::max<int64_t>(static_cast<int64_t>(canvas_capacity), screen_pixels) +
         (placement == Placement::kToBuffer
              ? std::max<int64_t>(static_cast<int64_t>(frame_buffer_capacity), frame_pixels)
              : 0) +
         (placement == Placement::kToRows
              ? int64_t{frame.Height} * static_cast<int64_t>(sizeof(uint8_t*))
              : 0);
}

// The frame's colour table, at most 256 colours.
std::vector<PaletteColour> PaletteColours(const ColorMapObject& palette) {
  std::vector<PaletteColour> colours;
  colours.reserve(static_cast<size_t>(std::min(palette.ColorCount, 256)));
  for (int i = 0; i < palette.ColorCount && i < 256; ++i)
    colours.push_back({palette.Colors[i].Red, palette.Colors[i].Green, palette.Colors[i].Blue});
  return colours;
}

}  // namespace

Status GifDecoder::Decode(std::span<const uint8_t> bytes, std::string_view path, MaskImage* out,
                          int64_t budget_bytes) {
  GifMemorySource source{bytes};
  const GifErrors errors(bytes, path, source);
  if (SniffFormat(bytes) != SniffedFormat::kGif) {
    return errors.Fail(ErrorKind::kUnsupportedFormat,
                       "not a GIF file (" + DescribeContent(bytes) + ")");
  }
  int open_error = 0;
  std::unique_ptr<GifFileType, GifCloser> gif(DGifOpen(&source, ReadGifFromMemory, &open_error));
  if (!gif) return errors.Corrupt(open_error, "in the header");
  if (Status status = CheckScreen(*gif, options_.max_pixels, errors); !status.ok()) return status;
  const Result<int> transparent = ReadToFirstFrame(gif.get(), errors);
  if (!transparent.ok()) return transparent.error();
  const int transparent_index = transparent.value();
  if (Status status = CheckLzwCodeSize(bytes, source.offset, errors); !status.ok()) return status;
  if (DGifGetImageDesc(gif.get()) == GIF_ERROR)
    return errors.Corrupt(gif->Error, "in the frame header");
  if (Status status = CheckFrame(*gif, options_.max_pixels, errors); !status.ok()) return status;

  const GifImageDesc& frame = gif->Image;
  const int64_t frame_pixels = static_cast<int64_t>(frame.Width) * frame.Height;
  const Placement placement = ChoosePlacement(*gif);
  const int64_t needed =
      BytesToDecode(*gif, placement, out->pixels.capacity(), indices_.capacity());
  if (needed > budget_bytes) {
    return OverDecodeBudget(path, "GIF",
                            "screen " + std::to_string(gif->SWidth) + "x" +
                                std::to_string(gif->SHeight) + ", frame " +
                                std::to_string(frame.Width) + "x" + std::to_string(frame.Height),
                            needed, budget_bytes);
  }
  const ColorMapObject* palette = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
  if (!palette || !palette->Colors || palette->ColorCount <= 0) {
    return errors.Fail(ErrorKind::kCorruptMask, "GIF has no colour table");
  }
  int min_code_size = 0;
  if (Status status = GatherLzwData(gif.get(), &compressed_, &min_code_size, errors); !status.ok())
    return status;

  out->width = gif->SWidth;
  out->height = gif->SHeight;
  source::ResizeScratch(&out->pixels, static_cast<size_t>(out->width) * out->height);
  const size_t width = static_cast<size_t>(out->width);
  uint8_t* const canvas = out->pixels.data();
  if (placement != Placement::kInPlace) ClearOutsideFrame(frame, out);
  std::array<bool, 256> index_used{};
  GifLzwDecoder::Result decoded;
  if (placement == Placement::kInPlace) {
    decoded = lzw_.Decode(compressed_, min_code_size, out->pixels, &index_used);
  } else if (placement == Placement::kToRows) {
    // Stored row k goes to its display row.
    rows_.clear();
    InStoredOrder(frame, [&](int frame_row) {
      rows_.push_back(canvas + static_cast<size_t>(frame.Top + frame_row) * width + frame.Left);
    });
    decoded = lzw_.DecodeRows(compressed_, min_code_size, rows_, static_cast<size_t>(frame.Width),
                              &index_used);
  } else {
    source::ResizeScratch(&indices_, static_cast<size_t>(frame_pixels));
    decoded = lzw_.Decode(compressed_, min_code_size, indices_, &index_used);
  }
  if (decoded.outcome != GifLzwDecoder::Outcome::kComplete) {
    return errors.Fail(ErrorKind::kCorruptMask,
                       "corrupt GIF: " + LzwFailure(decoded.outcome, min_code_size) + " (decoded " +
                           std::to_string(decoded.pixels_written) + " of " +
                           std::to_string(frame_pixels) + " pixels)");
  }

  const std::vector<PaletteColour> colours = PaletteColours(*palette);
  const IndexValues values = rule_.ForIndices(colours, 8, transparent_index);
  for (int i = 0; i < 256; ++i) {
    if (index_used[static_cast<size_t>(i)] && values.bad[static_cast<size_t>(i)])
      return OutOfRange(frame, placement, indices_, values, rule_, colours, path, *out);
  }
  MapToMask(frame, placement, indices_, values.value, index_used, !rule_.labels(), out);
  out->distinct_values = DistinctValues(index_used, colours);
  out->transparent_used =
      transparent_index >= 0 && index_used[static_cast<size_t>(transparent_index)];
  out->bit_depth = 8;
  out->palette_digest = PaletteDigest(colours);
  out->palette_disagrees = !rule_.PaletteAgrees(colours, index_used, transparent_index);
  return {};
}

void GifDecoder::ShrinkScratch(size_t keep_bytes) {
  if (indices_.capacity() > keep_bytes) std::vector<uint8_t>().swap(indices_);
  if (rows_.capacity() * sizeof(uint8_t*) > keep_bytes) std::vector<uint8_t*>().swap(rows_);
  if (compressed_.capacity() > keep_bytes) std::vector<uint8_t>().swap(compressed_);
}

}  // namespace segfeed::decode
