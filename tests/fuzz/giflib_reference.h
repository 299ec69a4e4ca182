#pragma once

// An independent mask decoder built only on giflib's own line decoder
// (DGifGetLine), with GifDecoder's documented semantics: first frame on a
// background canvas of the logical screen, clipped, de-interlaced,
// transparent index and out-of-palette indices as background, every other
// index foreground (MaskForeground::kNonzero), or with a luminance threshold
// (kLuminance). Slow (giflib's LZW), simple, and used to check GifDecoder's
// own LZW decoding in the unit tests and in the fuzzer.

#include <gif_lib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace segfeed::testing {

struct ReferenceMask {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;
};

namespace reference_detail {
struct Source {
  std::span<const uint8_t> bytes;
  size_t offset = 0;
};
inline int Read(GifFileType* gif, GifByteType* buffer, int length) {
  auto* source = static_cast<Source*>(gif->UserData);
  const size_t n =
      std::min<size_t>(static_cast<size_t>(length), source->bytes.size() - source->offset);
  std::memcpy(buffer, source->bytes.data() + source->offset, n);
  source->offset += n;
  return static_cast<int>(n);
}
}  // namespace reference_detail

// nullopt when giflib refuses the file or it has no image.
// `luminance_threshold`: nullopt for the nonzero rule.
inline std::optional<ReferenceMask> DecodeMaskWithGiflibLines(
    std::span<const uint8_t> bytes, std::optional<int> luminance_threshold, int64_t max_pixels) {
  reference_detail::Source source{bytes};
  int error = 0;
  GifFileType* gif = DGifOpen(&source, reference_detail::Read, &error);
  if (!gif) return std::nullopt;
  std::optional<ReferenceMask> result;
  int transparent = -1;
  for (;;) {
    GifRecordType record;
    if (DGifGetRecordType(gif, &record) == GIF_ERROR || record == TERMINATE_RECORD_TYPE) break;
    if (record == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) break;
      if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] == 4) {
        GraphicsControlBlock control{};
        if (DGifExtensionToGCB(4, block + 1, &control) == GIF_OK) {
          transparent = control.TransparentColor;
        }
      }
      bool ok = true;
      while (block && ok) ok = DGifGetExtensionNext(gif, &block) == GIF_OK;
      if (!ok) break;
      continue;
    }
    if (record != IMAGE_DESC_RECORD_TYPE) continue;
    if (DGifGetImageDesc(gif) == GIF_ERROR) break;
    const GifImageDesc& frame = gif->Image;
    const ColorMapObject* map = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
    if (!map || gif->SWidth <= 0 || gif->SHeight <= 0 || frame.Width <= 0 || frame.Height <= 0 ||
        int64_t{gif->SWidth} * gif->SHeight > max_pixels ||
        int64_t{frame.Width} * frame.Height > max_pixels) {
      break;
    }
    ReferenceMask mask;
    mask.width = gif->SWidth;
    mask.height = gif->SHeight;
    mask.pixels.assign(static_cast<size_t>(mask.width) * mask.height, 0);
    std::vector<GifPixelType> line(frame.Width);
    const int first_row[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    std::vector<int> order;
    if (frame.Interlace) {
      for (int pass = 0; pass < 4; ++pass) {
        for (int r = first_row[pass]; r < frame.Height; r += step[pass]) order.push_back(r);
      }
    } else {
      for (int r = 0; r < frame.Height; ++r) order.push_back(r);
    }
    bool ok = true;
    for (int r : order) {
      if (DGifGetLine(gif, line.data(), frame.Width) == GIF_ERROR) {
        ok = false;
        break;
      }
      const int y = frame.Top + r;
      if (y >= mask.height) continue;
      for (int x = 0; x < frame.Width && frame.Left + x < mask.width; ++x) {
        const int index = line[x];
        uint8_t value = 0;
        if (index != transparent && index < map->ColorCount) {
          const GifColorType& c = map->Colors[index];
          value = luminance_threshold
                      ? 299 * c.Red + 587 * c.Green + 114 * c.Blue >= *luminance_threshold * 1000
                      : index != 0;
        }
        mask.pixels[static_cast<size_t>(y) * mask.width + frame.Left + x] = value;
      }
    }
    if (ok) result = std::move(mask);
    break;
  }
  DGifCloseFile(gif, &error);
  return result;
}

}  // namespace segfeed::testing
