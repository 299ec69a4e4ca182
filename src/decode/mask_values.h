#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed::decode {

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
  // How many distinct values the file's pixels hold, counted up to 3 (3: more
  // than two), whatever the mode: grey levels, RGB colours, and for palette
  // files (PNG and GIF) the colours of the used indices (an index outside
  // the palette counts as one more; a GIF's transparent index by its
  // colour). In binary mode the checker reports more than two as
  // non_binary_mask, and two that read as all background or all foreground
  // as suspicious_mask.
  int distinct_values = 0;
  // A GIF whose transparent index some pixel uses (background in binary
  // mode, whatever its colour): the checker names it when the mask reads
  // empty.
  bool transparent_used = false;
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

// MaskImage::distinct_values of 8-bit samples: the distinct colours of the
// indices `used` marks when there is a `palette` (an index past it is one
// more), else the distinct sample values; counted up to 3.
int DistinctValues(const std::array<bool, 256>& used, std::span<const PaletteColour> palette);

// Counts distinct 16-bit grey levels or 0xRRGGBB colours up to 3, one pixel
// at a time (for the samples that have no 256-entry table).
class DistinctValueCounter {
 public:
  void Add(uint32_t value) {
    if (count_ >= 3 || (count_ > 0 && value == seen_[0]) || (count_ > 1 && value == seen_[1]))
      return;
    if (count_ < 2) seen_[static_cast<size_t>(count_)] = value;
    ++count_;
  }
  int count() const { return count_; }

 private:
  std::array<uint32_t, 2> seen_{};
  int count_ = 0;
};

// The binary rule in force, as the checker's messages state it:
// "foreground = every value other than 0 (mask_foreground nonzero)" or
// "foreground = luminance of at least 128 (mask_foreground luminance,
// mask_threshold 128)".
std::string BinaryRuleText(const DecodeOptions& options);

// The non_binary_mask record for a binary mask at `path` whose file holds
// more than two distinct values; the loader reads it by the rule all the
// same. Built only by the checker, which reports it.
Error NonBinaryMaskWarning(std::string path, const DecodeOptions& options);

// The suspicious_mask record for a binary mask at `path` whose file holds
// two or more distinct values that all read as background (`foreground`
// false) or all as foreground: the rule in force does not tell them apart.
Error UniformMaskWarning(std::string path, const DecodeOptions& options, const MaskImage& mask,
                         bool foreground);

// 64-bit FNV-1a of a palette's colours, never 0 for a palette.
uint64_t PaletteDigest(std::span<const PaletteColour> palette);

// Maps `count` samples from `in` to `out` (the same memory is fine) through
// `values`, setting used[sample] for each sample seen (which says whether
// any was bad, and how many distinct values there are, in one pass).
void MapIndices(const IndexValues& values, const uint8_t* in, uint8_t* out, size_t count,
                std::array<bool, 256>* used);

}  // namespace segfeed::decode
