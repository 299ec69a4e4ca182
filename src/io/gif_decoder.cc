#include "io/gif_decoder.h"

#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>

#include "io/format_sniffer.h"
#include "io/gif_lzw.h"

namespace segfeed::internal {
namespace {

// giflib pulls bytes through this callback; it reads from memory and
// remembers when the data ran out, to tell truncation from other damage.
struct MemorySource {
  std::span<const uint8_t> bytes;
  size_t offset = 0;
  bool ran_out = false;
};

int ReadFromMemory(GifFileType* gif, GifByteType* buffer, int length) {
  auto* source = static_cast<MemorySource*>(gif->UserData);
  const size_t wanted = length > 0 ? static_cast<size_t>(length) : 0;
  const size_t available = source->bytes.size() - source->offset;
  const size_t n = std::min(wanted, available);
  if (n < wanted) source->ran_out = true;
  std::memcpy(buffer, source->bytes.data() + source->offset, n);
  source->offset += n;
  return static_cast<int>(n);
}

struct GifCloser {
  void operator()(GifFileType* gif) const {
    int ignored = 0;
    DGifCloseFile(gif, &ignored);  // frees `gif` even when it reports an error
  }
};

// GIF stores interlaced frames in four passes: rows 0, 8, 16, ... then
// 4, 12, ... then 2, 6, ... then 1, 3, ...
constexpr int kPassFirstRow[4] = {0, 4, 2, 1};
constexpr int kPassRowStep[4] = {8, 8, 4, 2};

}  // namespace

Status GifDecoder::Decode(std::span<const uint8_t> bytes, std::string_view path, MaskImage* out,
                          int64_t budget_bytes) {
  auto fail = [&](ErrorKind kind, std::string detail) {
    return Error{kind, std::string(path), std::move(detail)};
  };
  if (SniffFormat(bytes) != SniffedFormat::kGif) {
    return fail(ErrorKind::kUnsupportedFormat, "not a GIF file (" + DescribeContent(bytes) + ")");
  }
  MemorySource source{bytes};
  // Describes a giflib failure; truncation is by far the most common one.
  auto corrupt = [&](int giflib_error, const std::string& where) {
    if (source.ran_out) {
      return fail(ErrorKind::kCorruptMask, "truncated GIF: data ends after " +
                                               std::to_string(bytes.size()) + " bytes " + where);
    }
    const char* reason = GifErrorString(giflib_error);
    return fail(ErrorKind::kCorruptMask,
                std::string("corrupt GIF: ") + (reason ? reason : "unknown giflib error") + " " +
                    where);
  };

  int open_error = 0;
  std::unique_ptr<GifFileType, GifCloser> gif(DGifOpen(&source, ReadFromMemory, &open_error));
  if (!gif) return corrupt(open_error, "in the header");
  const int64_t screen_pixels = static_cast<int64_t>(gif->SWidth) * gif->SHeight;
  if (gif->SWidth <= 0 || gif->SHeight <= 0) {
    return fail(ErrorKind::kCorruptMask, "GIF logical screen is " + std::to_string(gif->SWidth) +
                                             "x" + std::to_string(gif->SHeight));
  }
  if (screen_pixels > options_.max_pixels) {
    return fail(ErrorKind::kTooLarge,
                "GIF logical screen claims " + std::to_string(gif->SWidth) + "x" +
                    std::to_string(gif->SHeight) + " = " + std::to_string(screen_pixels) +
                    " pixels, more than max_pixels = " + std::to_string(options_.max_pixels));
  }

  // Records before the first frame: extensions, of which only the graphics
  // control block (transparency) matters for a mask.
  int transparent_index = NO_TRANSPARENT_COLOR;
  for (;;) {
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif.get(), &record) == GIF_ERROR) {
      return corrupt(gif->Error, "before the first frame");
    }
    if (record == IMAGE_DESC_RECORD_TYPE) break;
    if (record == TERMINATE_RECORD_TYPE) {
      return fail(ErrorKind::kCorruptMask, "GIF contains no image");
    }
    if (record != EXTENSION_RECORD_TYPE) continue;
    int code = 0;
    GifByteType* block = nullptr;
    if (DGifGetExtension(gif.get(), &code, &block) == GIF_ERROR) {
      return corrupt(gif->Error, "in an extension block");
    }
    if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] == 4) {
      GraphicsControlBlock control{};
      if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) {
        transparent_index = control.TransparentColor;
      }
    }
    while (block) {
      if (DGifGetExtensionNext(gif.get(), &block) == GIF_ERROR) {
        return corrupt(gif->Error, "in an extension block");
      }
    }
  }
  // The frame header ends with the LZW minimum code size; giflib refuses
  // one over 8 as a failed read, which would say nothing of the cause.
  if (const size_t descriptor = source.offset; descriptor + 9 < bytes.size()) {
    const uint8_t packed = bytes[descriptor + 8];
    const size_t local_colours = (packed & 0x80) ? size_t{3} << ((packed & 7) + 1) : 0;
    if (const size_t at = descriptor + 9 + local_colours; at < bytes.size() && bytes[at] > 8) {
      return fail(ErrorKind::kCorruptMask,
                  "corrupt GIF: LZW minimum code size " + std::to_string(bytes[at]) + " is outside 1-8");
    }
  }
  if (DGifGetImageDesc(gif.get()) == GIF_ERROR) return corrupt(gif->Error, "in the frame header");

  const GifImageDesc& frame = gif->Image;
  const int64_t frame_pixels = static_cast<int64_t>(frame.Width) * frame.Height;
  if (frame.Width <= 0 || frame.Height <= 0) {
    return fail(ErrorKind::kCorruptMask, "GIF frame is " + std::to_string(frame.Width) + "x" +
                                             std::to_string(frame.Height));
  }
  // Nothing of such a frame would be drawn: an all-background mask that
  // only looks clean.
  if (frame.Left >= gif->SWidth || frame.Top >= gif->SHeight) {
    return fail(ErrorKind::kCorruptMask, "GIF frame at (" + std::to_string(frame.Left) + "," +
                                             std::to_string(frame.Top) + ") of " + std::to_string(frame.Width) +
                                             "x" + std::to_string(frame.Height) + " lies wholly outside the " +
                                             std::to_string(gif->SWidth) + "x" + std::to_string(gif->SHeight) +
                                             " screen");
  }
  if (frame_pixels > options_.max_pixels) {
    return fail(ErrorKind::kTooLarge,
                "GIF frame claims " + std::to_string(frame.Width) + "x" +
                    std::to_string(frame.Height) + " = " + std::to_string(frame_pixels) +
                    " pixels, more than max_pixels = " + std::to_string(options_.max_pixels));
  }
  // What this file makes the decoder hold, before anything is allocated:
  // the canvas, and the frame's own buffer when it is not decoded in place.
  const bool decode_in_place = frame.Left == 0 && frame.Top == 0 && frame.Width == gif->SWidth &&
                               frame.Height == gif->SHeight && !frame.Interlace;
  const int64_t needed = std::max<int64_t>(static_cast<int64_t>(out->pixels.capacity()), screen_pixels) +
                         (decode_in_place ? 0 : std::max<int64_t>(static_cast<int64_t>(indices_.capacity()), frame_pixels));
  if (needed > budget_bytes) {
    return fail(ErrorKind::kTooLarge, "GIF needs " + std::to_string(needed) + " bytes to decode (screen " +
                                          std::to_string(gif->SWidth) + "x" + std::to_string(gif->SHeight) +
                                          ", frame " + std::to_string(frame.Width) + "x" +
                                          std::to_string(frame.Height) + "), more than the " +
                                          std::to_string(budget_bytes) + " bytes left of the decode budget");
  }
  const ColorMapObject* palette = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
  if (!palette || !palette->Colors || palette->ColorCount <= 0) {
    return fail(ErrorKind::kCorruptMask, "GIF has no colour table");
  }

  // Collect the frame's compressed sub-blocks into one buffer (reused), so
  // the LZW decoder reads one contiguous span.
  int min_code_size = 0;
  GifByteType* block = nullptr;
  compressed_.clear();
  if (DGifGetCode(gif.get(), &min_code_size, &block) == GIF_ERROR) {
    return corrupt(gif->Error, "in the pixel data");
  }
  while (block) {
    compressed_.insert(compressed_.end(), block + 1, block + 1 + block[0]);
    if (DGifGetCodeNext(gif.get(), &block) == GIF_ERROR) {
      return corrupt(gif->Error, "in the pixel data");
    }
  }

  out->width = gif->SWidth;
  out->height = gif->SHeight;
  out->pixels.resize(static_cast<size_t>(out->width) * out->height);
  // The common case, one frame exactly covering the screen in row order,
  // decodes straight into the output; anything else goes through indices_.
  std::span<uint8_t> indices;
  if (decode_in_place) {
    indices = out->pixels;
  } else {
    indices_.resize(static_cast<size_t>(frame_pixels));
    indices = indices_;
  }
  std::array<bool, 256> index_used{};
  const GifLzwDecoder::Result decoded =
      lzw_.Decode(compressed_, min_code_size, indices, &index_used);
  if (decoded.outcome != GifLzwDecoder::Outcome::kComplete) {
    std::string reason;
    switch (decoded.outcome) {
      case GifLzwDecoder::Outcome::kTruncated: reason = "compressed pixel data ends early"; break;
      case GifLzwDecoder::Outcome::kEndCodeTooEarly: reason = "end code before the last pixel"; break;
      case GifLzwDecoder::Outcome::kInvalidCode: reason = "invalid LZW code"; break;
      case GifLzwDecoder::Outcome::kBadCodeSize:
        reason = "LZW code size " + std::to_string(min_code_size) + " outside 1-8";
        break;
      case GifLzwDecoder::Outcome::kComplete: break;
    }
    return fail(ErrorKind::kCorruptMask,
                "corrupt GIF: " + reason + " (decoded " + std::to_string(decoded.pixels_written) +
                    " of " + std::to_string(frame_pixels) + " pixels)");
  }

  // Palette index -> mask value. Indices outside the palette and the
  // transparent one are background.
  std::array<uint8_t, 256> value{};
  const int threshold_x1000 = options_.mask_threshold * 1000;
  for (int i = 0; i < palette->ColorCount && i < 256; ++i) {
    const GifColorType& c = palette->Colors[i];
    // Integer Rec. 601 luma x 1000, exact for the threshold comparison.
    value[i] = 299 * c.Red + 587 * c.Green + 114 * c.Blue >= threshold_x1000 ? 1 : 0;
  }
  if (transparent_index >= 0 && transparent_index < 256) value[transparent_index] = 0;
  // Carvana-style masks (index 0 black, index 1 white) map every used index
  // to itself: then there is nothing left to do per pixel.
  bool identity = true;
  for (int i = 0; i < 256; ++i) identity = identity && (!index_used[i] || value[i] == i);

  if (decode_in_place) {
    if (!identity) {
      for (uint8_t& pixel : out->pixels) pixel = value[pixel];
    }
  } else {
    // Place the frame at its offset on a background canvas; interlaced
    // frames store rows in four passes: 0, 8, 16, ... then 4, 12, ... then
    // 2, 6, ... then 1, 3, ...
    std::fill(out->pixels.begin(), out->pixels.end(), 0);
    const int left = std::min<int>(frame.Left, out->width);
    const int right = std::min<int>(frame.Left + frame.Width, out->width);
    int stored_row = 0;
    auto place_row = [&](int frame_row) {
      const uint8_t* src = indices_.data() + static_cast<size_t>(stored_row++) * frame.Width;
      const int y = frame.Top + frame_row;
      if (y >= out->height) return;  // clipped
      uint8_t* row = out->pixels.data() + static_cast<size_t>(y) * out->width;
      for (int x = left; x < right; ++x) row[x] = value[src[x - frame.Left]];
    };
    if (frame.Interlace) {
      for (int pass = 0; pass < 4; ++pass) {
        for (int r = kPassFirstRow[pass]; r < frame.Height; r += kPassRowStep[pass]) place_row(r);
      }
    } else {
      for (int r = 0; r < frame.Height; ++r) place_row(r);
    }
  }

  // Distinct colours in the frame; two indices with the same RGB are one
  // colour, every out-of-palette index together counts as one more.
  constexpr uint32_t kOutsidePalette = 1u << 24;
  std::array<uint32_t, 3> colours{};
  int distinct = 0;
  for (int i = 0; i < 256 && distinct <= 2; ++i) {
    if (!index_used[i] || i == transparent_index) continue;
    uint32_t rgb = kOutsidePalette;
    if (i < palette->ColorCount) {
      const GifColorType& c = palette->Colors[i];
      rgb = (uint32_t{c.Red} << 16) | (uint32_t{c.Green} << 8) | c.Blue;
    }
    if (std::find(colours.begin(), colours.begin() + distinct, rgb) == colours.begin() + distinct) {
      colours[distinct++] = rgb;
    }
  }
  out->used_more_than_two_colours = distinct > 2;
  return {};
}

void GifDecoder::ShrinkScratch(size_t keep_bytes) {
  if (indices_.capacity() > keep_bytes) std::vector<uint8_t>().swap(indices_);
  if (compressed_.capacity() > keep_bytes) std::vector<uint8_t>().swap(compressed_);
}

}  // namespace segfeed::internal
