#include "decode/mask_values.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "fnv1a_digest.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace segfeed::decode {
namespace {

uint32_t Packed(const PaletteColour& rgb) {
  return (uint32_t{rgb[0]} << 16) | (uint32_t{rgb[1]} << 8) | rgb[2];
}

bool IsBlack(const PaletteColour& rgb) { return rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0; }

// Integer Rec. 601 luma x 1000, exact for the threshold comparison.
bool BrightEnough(const PaletteColour& rgb, int threshold) {
  return 299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2] >= threshold * 1000;
}

std::string ColourText(uint32_t rgb) {
  char text[8];
  std::snprintf(text, sizeof text, "#%06x", static_cast<unsigned>(rgb));
  return text;
}

}  // namespace

MaskValueRule::MaskValueRule(const DecodeOptions& options) : options_(options) {
  sorted_map_ = options.label_map;
  std::sort(sorted_map_.begin(), sorted_map_.end(),
            [](const LabelMapEntry& a, const LabelMapEntry& b) { return a.source < b.source; });
  for (const MaskColor& colour : options.mask_colors) {
    const bool ignored = colour.ignored || colour.label == options.ignore_index;
    colours_.emplace_back(Packed(colour.rgb),
                          ignored ? kIgnoreLabel : static_cast<uint8_t>(colour.label));
  }
  std::sort(colours_.begin(), colours_.end());
}

// A source id as a label: kIgnoreLabel for mask_ignore_value, whatever the
// map says; else itself when it is a class, else bad; through label_map when
// there is one (ids it leaves out, and targets that are ignore_index, are
// ignored).
uint8_t MaskValueRule::Label(uint32_t source, bool& bad) const {
  if (source == static_cast<uint32_t>(options_.mask_ignore_value)) return kIgnoreLabel;
  if (!sorted_map_.empty()) {
    const auto it = std::lower_bound(
        sorted_map_.begin(), sorted_map_.end(), source,
        [](const LabelMapEntry& e, uint32_t id) { return static_cast<uint32_t>(e.source) < id; });
    if (it == sorted_map_.end() || static_cast<uint32_t>(it->source) != source) return kIgnoreLabel;
    return it->target == options_.ignore_index ? kIgnoreLabel : static_cast<uint8_t>(it->target);
  }
  if (source < static_cast<uint32_t>(options_.num_classes)) return static_cast<uint8_t>(source);
  bad = true;
  return kIgnoreLabel;
}

IndexValues MaskValueRule::ForIndices(std::span<const PaletteColour> palette, int grey_bits,
                                      int transparent_index) const {
  IndexValues out;
  const bool has_palette = !palette.empty();
  const int grey_max = (1 << std::clamp(grey_bits, 1, 8)) - 1;
  for (int i = 0; i < 256; ++i) {
    bool bad = false;
    uint8_t value = 0;
    if (labels()) {
      if (!colours_.empty()) {
        // Colour-coded: the palette entry's colour names the class; an index
        // past the palette has no colour, so it is bad like an unknown one.
        value = has_palette && i < static_cast<int>(palette.size())
                    ? ForColour(palette[static_cast<size_t>(i)], bad)
                    : (bad = true, kIgnoreLabel);
      } else {
        value = Label(static_cast<uint32_t>(i), bad);
      }
    } else if (i == transparent_index || (has_palette && i >= static_cast<int>(palette.size()))) {
      value = 0;
    } else if (options_.mask_foreground == MaskForeground::kNonzero) {
      value = i != 0 ? 1 : 0;
    } else if (has_palette) {
      value = BrightEnough(palette[static_cast<size_t>(i)], options_.mask_threshold) ? 1 : 0;
    } else {
      // A grey value of grey_bits bits, as the 8-bit level it stands for.
      value = i * 255 / grey_max >= options_.mask_threshold ? 1 : 0;
    }
    out.value[static_cast<size_t>(i)] = value;
    out.bad[static_cast<size_t>(i)] = bad;
  }
  return out;
}

uint8_t MaskValueRule::ForGrey16(uint16_t value, bool& bad) const {
  if (labels()) return Label(value, bad);
  if (options_.mask_foreground == MaskForeground::kNonzero) return value != 0 ? 1 : 0;
  // As the 8-bit level it stands for, like grey values of up to 8 bits.
  return uint32_t{value} * 255 / 65535 >= static_cast<uint32_t>(options_.mask_threshold) ? 1 : 0;
}

uint8_t MaskValueRule::ForColour(const PaletteColour& rgb, bool& bad) const {
  if (!labels()) {
    if (options_.mask_foreground == MaskForeground::kNonzero) return IsBlack(rgb) ? 0 : 1;
    return BrightEnough(rgb, options_.mask_threshold) ? 1 : 0;
  }
  const uint32_t key = Packed(rgb);
  const auto it = std::lower_bound(colours_.begin(), colours_.end(), key,
                                   [](const auto& entry, uint32_t k) { return entry.first < k; });
  if (it == colours_.end() || it->first != key) {
    bad = true;
    return kIgnoreLabel;
  }
  return it->second;
}

std::string_view MaskValueRule::RgbRefusal() const {
  if (labels() && colours_.empty())
    return "an RGB mask needs mask_colors (colour -> class id) in labels mode";
  return {};
}

Error MaskValueRule::OutOfRange(std::string_view path,
                                std::span<const std::pair<uint32_t, uint64_t>> counts,
                                bool colours) const {
  constexpr size_t kListed = 5;
  std::string listed;
  for (size_t i = 0; i < counts.size() && i < kListed; ++i) {
    if (!listed.empty()) listed += ", ";
    listed += (colours ? ColourText(counts[i].first) : std::to_string(counts[i].first)) + " (" +
              std::to_string(counts[i].second) + " pixels)";
  }
  if (counts.size() > kListed) {
    listed += std::string(" and ") + (counts.size() >= kMaxCountedBadValues ? "at least " : "") +
              std::to_string(counts.size() - kListed) + " more";
  }
  std::string rule;
  if (colours) {
    rule = "colours mask_colors does not list";
  } else {
    // With a label_map no id is bad (ids it leaves out are ignore): only
    // the ids themselves are checked here.
    rule = "values that are neither a class id in [0, " + std::to_string(options_.num_classes) +
           ") nor mask_ignore_value " + std::to_string(options_.mask_ignore_value);
  }
  return Error{ErrorKind::kLabelOutOfRange, std::string(path), "mask has " + rule + ": " + listed};
}

bool MaskValueRule::PaletteAgrees(std::span<const PaletteColour> palette,
                                  const std::array<bool, 256>& index_used,
                                  int transparent_index) const {
  if (labels() || options_.mask_foreground != MaskForeground::kNonzero) return true;
  for (size_t i = 0; i < palette.size() && i < 256; ++i) {
    if (!index_used[i] || static_cast<int>(i) == transparent_index) continue;
    if ((i == 0) != IsBlack(palette[i])) return false;
  }
  return true;
}

int DistinctValues(const std::array<bool, 256>& used, std::span<const PaletteColour> palette) {
  constexpr uint32_t kOutsidePalette = 1u << 24;
  DistinctValueCounter counter;
  for (size_t i = 0; i < used.size() && counter.count() < 3; ++i) {
    if (!used[i]) continue;
    if (palette.empty()) {
      counter.Add(static_cast<uint32_t>(i));
    } else {
      counter.Add(i < palette.size() ? Packed(palette[i]) : kOutsidePalette);
    }
  }
  return counter.count();
}

std::string BinaryRuleText(const DecodeOptions& options) {
  if (options.mask_foreground == MaskForeground::kNonzero)
    return "foreground = every value other than 0 (mask_foreground nonzero)";
  const std::string threshold = std::to_string(options.mask_threshold);
  return "foreground = luminance of at least " + threshold +
         " (mask_foreground luminance, mask_threshold " + threshold + ")";
}

Error NonBinaryMaskWarning(std::string path, const DecodeOptions& options) {
  return Error{
      ErrorKind::kNonBinaryMask, std::move(path),
      "mask has more than two distinct values; read as binary with " + BinaryRuleText(options)};
}

Error UniformMaskWarning(std::string path, const DecodeOptions& options, const MaskImage& mask,
                         bool foreground) {
  std::string detail = std::string("mask holds ") +
                       (mask.distinct_values > 2 ? "more than two" : "two") +
                       " distinct values but every pixel reads as " +
                       (foreground ? "foreground" : "background") + ": " + BinaryRuleText(options);
  if (!foreground && mask.transparent_used) detail += "; its GIF transparent index is background";
  return Error{ErrorKind::kSuspiciousMask, std::move(path), std::move(detail)};
}

uint64_t PaletteDigest(std::span<const PaletteColour> palette) {
  if (palette.empty()) return 0;
  Fnv1aDigest digest;
  for (const PaletteColour& colour : palette) {
    digest.Add(std::string_view(reinterpret_cast<const char*>(colour.data()), colour.size()));
  }
  return digest.value() | 1;
}

void MapIndices(const IndexValues& values, const uint8_t* in, uint8_t* out, size_t count,
                std::array<bool, 256>* used) {
  // One pass: a table lookup and a flag per pixel (a label map's 2 MB read
  // once, not once to find the values and again to map them).
  // The sample is read once into a local: the stores through bool and
  // uint8_t pointers may alias `in` as far as the compiler knows.
  bool* const seen = used->data();
  const uint8_t* const value = values.value.data();
  size_t i = 0;
#if defined(__SSE2__)
  // A label map is regions: most runs of 16 samples hold one index, and
  // take one flag and one store of its value.
  for (; i + 16 <= count; i += 16) {
    const uint8_t first = in[i];
    const __m128i samples = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i same = _mm_cmpeq_epi8(samples, _mm_set1_epi8(static_cast<char>(first)));
    if (_mm_movemask_epi8(same) == 0xFFFF) {
      seen[first] = true;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                       _mm_set1_epi8(static_cast<char>(value[first])));
      continue;
    }
    for (size_t j = i; j < i + 16; ++j) {
      const uint8_t sample = in[j];
      seen[sample] = true;
      out[j] = value[sample];
    }
  }
#endif
  for (; i < count; ++i) {
    const uint8_t sample = in[i];
    seen[sample] = true;
    out[i] = value[sample];
  }
}

}  // namespace segfeed::decode
