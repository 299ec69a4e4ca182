#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed::internal {

// In labels mode, the value a decoded mask holds for a pixel without a class;
// the output conversion writes ignore_index for it. num_classes <= 255 keeps
// it free.
inline constexpr uint8_t kIgnoreLabel = 255;

// A decoded mask: one byte per pixel, height x width, rows packed. Binary
// mode: 1 = foreground, 0 = background. Labels mode: the class id, or
// kIgnoreLabel. Kept per thread and reused: `pixels` only grows.
struct MaskImage {
  int width = 0;  // the GIF's logical screen, or the PNG's size, pixels
  int height = 0;
  std::vector<uint8_t> pixels;
  // Binary mode: the pixels used more than two distinct palette colours (an
  // index outside the palette counts as one more colour, the transparent
  // index none) or grey values; the checker reports it as non_binary_mask.
  bool used_more_than_two_colours = false;
  // What the file was, for the checker: bits per sample (1 to 16), and a
  // digest of its palette (0 without one), so masks whose palette differs
  // from the rest's can be named.
  int bit_depth = 8;
  uint64_t palette_digest = 0;
  // Binary mode, nonzero rule: a used palette colour that is black but
  // foreground, or not black but background (index 0): the palette may be
  // inverted. For the checker.
  bool palette_disagrees = false;
};

using PaletteColour = std::array<uint8_t, 3>;

// The most distinct bad values a label_out_of_range error counts; with as
// many, it says "at least" for the ones it does not list.
inline constexpr size_t kMaxCountedBadValues = 64;

// What each of 256 sample values (palette indices, grey values of up to 8
// bits) becomes in a MaskImage, and which ones are bad (label_out_of_range).
struct IndexValues {
  std::array<uint8_t, 256> value{};
  std::array<bool, 256> bad{};
  // Every value maps to itself: nothing to do per pixel.
  bool identity = false;
};

// The rule that turns a mask file's samples into mask values, from the
// options: binary (nonzero or luminance) or labels (ids as they are, through
// label_map, or colours through mask_colors). One per decoder; immutable.
class MaskValueRule {
 public:
  explicit MaskValueRule(const DecodeOptions& options);

  bool labels() const { return options_.mask_mode == MaskMode::kLabels; }
  const DecodeOptions& options() const { return options_; }

  // For 8-bit samples: palette indices (`palette` non-empty; indices past it
  // are background in binary mode) or grey values of `grey_bits` bits.
  // `transparent_index` (-1: none) is background in binary mode; in labels
  // mode an index is a class, transparent or not.
  IndexValues ForIndices(std::span<const PaletteColour> palette, int grey_bits,
                         int transparent_index) const;
  // One 16-bit grey sample, or one RGB colour; `bad` is set for a value out
  // of range.
  uint8_t ForGrey16(uint16_t value, bool& bad) const;
  uint8_t ForColour(const PaletteColour& rgb, bool& bad) const;

  // Whether an RGB mask can be read under this rule (labels mode needs
  // mask_colors); the detail of the unsupported_format error otherwise.
  std::string_view RgbRefusal() const;

  // The label_out_of_range error for `path`: `counts` are the pixel counts
  // of each bad sample value (index, grey value or 0xRRGGBB colour).
  Error OutOfRange(std::string_view path, std::span<const std::pair<uint32_t, uint64_t>> counts,
                   bool colours) const;

  // Whether `palette`'s used colours agree with the binary nonzero rule
  // (index 0 black, the others not): false means the palette may be
  // inverted. Always true under the other rules.
  bool PaletteAgrees(std::span<const PaletteColour> palette,
                     const std::array<bool, 256>& index_used, int transparent_index) const;

 private:
  uint8_t Label(uint32_t source, bool& bad) const;

  DecodeOptions options_;
  // label_map as a lookup by source id, sorted.
  std::vector<LabelMapEntry> sorted_map_;
  // mask_colors by 0xRRGGBB, sorted.
  std::vector<std::pair<uint32_t, uint8_t>> colours_;
};

// 64-bit FNV-1a of a palette's colours, never 0 for a palette.
uint64_t PaletteDigest(std::span<const PaletteColour> palette);

// Maps `count` samples from `in` to `out` (the same memory is fine) through
// `values`, returning whether any was bad.
bool MapIndices(const IndexValues& values, const uint8_t* in, uint8_t* out, size_t count);

}  // namespace segfeed::internal
