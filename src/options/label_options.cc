#include "options/label_options.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>

#include "options/label_files.h"
#include "options/option_values.h"
#include "segfeed/errors.h"

namespace segfeed::options {
namespace {

constexpr int kMaxSourceId = 65535;  // 16-bit label PNGs

std::string Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

bool ParseInt(std::string_view text, int& out) {
  const std::string trimmed = Trimmed(text);
  const char* end = trimmed.data() + trimmed.size();
  const auto [ptr, ec] = std::from_chars(trimmed.data(), end, out);
  return ec == std::errc() && ptr == end && !trimmed.empty();
}

// "#800000", "800000" or "128,0,0".
bool ParseColor(std::string_view text, std::array<uint8_t, 3>& rgb) {
  std::string trimmed = Trimmed(text);
  if (!trimmed.empty() && trimmed[0] == '#') trimmed.erase(0, 1);
  if (trimmed.size() == 6 && trimmed.find(',') == std::string::npos) {
    unsigned value = 0;
    const auto [ptr, ec] =
        std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value, 16);
    if (ec != std::errc() || ptr != trimmed.data() + trimmed.size()) return false;
    rgb = {static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 8),
           static_cast<uint8_t>(value)};
    return true;
  }
  const std::vector<std::string_view> parts = SplitList(trimmed);
  if (parts.size() != 3) return false;
  for (int c = 0; c < 3; ++c) {
    int channel = 0;
    if (!ParseInt(parts[c], channel) || channel < 0 || channel > 255) return false;
    rgb[c] = static_cast<uint8_t>(channel);
  }
  return true;
}

// The entries of a value: one string per entry, or the list form.
std::vector<std::string> EntryTexts(const OptionValue& value) {
  std::vector<std::string> entries;
  if (const OptionScalar* scalar = AsScalar(value)) {
    if (const auto* text = std::get_if<std::string>(scalar)) {
      const std::string trimmed = Trimmed(*text);
      if (trimmed.empty() || trimmed == "none") return entries;
      for (std::string_view entry : SplitList(trimmed)) entries.emplace_back(entry);
    }
    return entries;
  }
  if (const auto* items = std::get_if<std::vector<OptionScalar>>(&value)) {
    for (const OptionScalar& item : *items) {
      if (const auto* text = std::get_if<std::string>(&item)) entries.push_back(*text);
    }
  }
  return entries;
}

bool IsEmptyText(const OptionValue& value) {
  const OptionScalar* scalar = AsScalar(value);
  const auto* text = scalar ? std::get_if<std::string>(scalar) : nullptr;
  return text && (Trimmed(*text).empty() || Trimmed(*text) == "none");
}

std::string ColorText(const std::array<uint8_t, 3>& rgb) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}

}  // namespace

std::string LabelMapText(const std::vector<LabelMapEntry>& map) {
  if (map.empty()) return "none";
  std::string text;
  for (const LabelMapEntry& entry : map) {
    if (!text.empty()) text += ",";
    text += std::to_string(entry.source) + ":" + std::to_string(entry.target);
  }
  return text;
}

std::string MaskColorsText(const std::vector<MaskColor>& colors) {
  if (colors.empty()) return "none";
  std::string text;
  for (const MaskColor& color : colors) {
    if (!text.empty()) text += ",";
    text += ColorText(color.rgb) + ":" + (color.ignored ? "ignore" : std::to_string(color.label));
  }
  return text;
}

// --- LabelMapOption --------------------------------------------------------

void LabelMapOption::Set(LoaderOptions& options, const OptionValue& value) const {
  std::vector<LabelMapEntry>& map = options.decode.label_map;
  const std::string expected = "a {source: target} dict, a list of targets, or 'ID:ID,...'";
  if (std::holds_alternative<std::monostate>(value) || IsEmptyText(value)) {
    map.clear();
    return;
  }
  std::vector<LabelMapEntry> result;
  if (const auto* items = std::get_if<std::vector<OptionScalar>>(&value);
      items && !items->empty() && !std::holds_alternative<std::string>(items->front())) {
    // The list form: position = source id.
    for (size_t i = 0; i < items->size(); ++i) {
      int target = 0;
      if (!ToInt(name(), (*items)[i], target)) WrongType(name(), expected, Describe(value));
      result.push_back({static_cast<int>(i), target});
    }
  } else {
    const std::vector<std::string> entries = EntryTexts(value);
    if (entries.empty()) WrongType(name(), expected, Describe(value));
    for (const std::string& entry : entries) {
      const size_t colon = entry.find(':');
      LabelMapEntry parsed;
      if (colon == std::string::npos || !ParseInt(entry.substr(0, colon), parsed.source) ||
          !ParseInt(entry.substr(colon + 1), parsed.target)) {
        WrongType(name(), expected, Quoted(entry));
      }
      result.push_back(parsed);
    }
  }
  map = std::move(result);
  Check(options);
}

void LabelMapOption::Parse(LoaderOptions& options, std::string_view text) const {
  Set(options, OptionValue(std::in_place_type<OptionScalar>, std::string(text)));
}

OptionValue LabelMapOption::Get(const LoaderOptions& options) const {
  if (options.decode.label_map.empty()) return std::monostate{};
  return OptionValue(std::in_place_type<OptionScalar>, LabelMapText(options.decode.label_map));
}

std::string LabelMapOption::Text(const LoaderOptions& options) const {
  return LabelMapText(options.decode.label_map);
}

std::string LabelMapOption::Accepts() const {
  return "SOURCE:TARGET,... (source ids 0-65535; ids left out become ignore_index), or none";
}

void LabelMapOption::Check(const LoaderOptions& options) const {
  std::set<int> sources;
  for (const LabelMapEntry& entry : options.decode.label_map) {
    if (entry.source < 0 || entry.source > kMaxSourceId)
      FailCheck(name(), "keyed by source ids in [0, 65535]", std::to_string(entry.source));
    if (!sources.insert(entry.source).second)
      FailCheck(name(), "free of repeated source ids",
                "id " + std::to_string(entry.source) + " twice");
  }
}

// --- MaskColorsOption ------------------------------------------------------

void MaskColorsOption::Set(LoaderOptions& options, const OptionValue& value) const {
  std::vector<MaskColor>& colors = options.decode.mask_colors;
  const std::string expected =
      "a {(r, g, b): class} dict, a list of colours, '#RRGGBB:ID,...' or a colour file";
  if (std::holds_alternative<std::monostate>(value) || IsEmptyText(value)) {
    colors.clear();
    return;
  }
  std::vector<std::string> entries;
  if (const OptionScalar* scalar = AsScalar(value);
      scalar && std::holds_alternative<std::string>(*scalar)) {
    const std::string text = Trimmed(std::get<std::string>(*scalar));
    if (LooksLikeFilePath(text)) {
      // A colour file also names the classes; a class_names given after it wins.
      ColourFile file = ReadColourFile(name(), text);
      colors = std::move(file.colours);
      options.decode.class_names = std::move(file.class_names);
      Check(options);
      return;
    }
    // CLI text: entries at commas, but "r,g,b" colours have commas too, so
    // the CLI spells colours in hex.
    entries = EntryTexts(value);
  } else if (const auto* items = std::get_if<std::vector<OptionScalar>>(&value)) {
    for (const OptionScalar& item : *items) {
      const auto* text = std::get_if<std::string>(&item);
      if (!text) WrongType(name(), expected, Describe(value));
      entries.push_back(*text);
    }
  }
  if (entries.empty()) WrongType(name(), expected, Describe(value));
  std::vector<MaskColor> result;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string& entry = entries[i];
    const size_t colon = entry.find(':');
    MaskColor parsed;
    parsed.label = static_cast<int>(i);  // the list form
    const std::string target = colon == std::string::npos ? "" : Trimmed(entry.substr(colon + 1));
    parsed.ignored = target == "ignore";
    if (!ParseColor(entry.substr(0, colon), parsed.rgb) ||
        (colon != std::string::npos && !parsed.ignored && !ParseInt(target, parsed.label))) {
      WrongType(name(), expected, Quoted(entry));
    }
    if (parsed.ignored) parsed.label = 0;  // not read: one spelling for one meaning
    result.push_back(parsed);
  }
  colors = std::move(result);
  Check(options);
}

void MaskColorsOption::Parse(LoaderOptions& options, std::string_view text) const {
  Set(options, OptionValue(std::in_place_type<OptionScalar>, std::string(text)));
}

OptionValue MaskColorsOption::Get(const LoaderOptions& options) const {
  if (options.decode.mask_colors.empty()) return std::monostate{};
  return OptionValue(std::in_place_type<OptionScalar>, MaskColorsText(options.decode.mask_colors));
}

std::string MaskColorsOption::Text(const LoaderOptions& options) const {
  return MaskColorsText(options.decode.mask_colors);
}

std::string MaskColorsOption::Accepts() const {
  return "#RRGGBB:CLASS|ignore,... (a colour not listed is a bad pixel), a colour file (R G B "
         "NAME per line, CamVid's label_colors.txt), or none";
}

void MaskColorsOption::Check(const LoaderOptions& options) const {
  std::set<std::array<uint8_t, 3>> seen;
  for (const MaskColor& color : options.decode.mask_colors) {
    if (!seen.insert(color.rgb).second)
      FailCheck(name(), "free of repeated colours", ColorText(color.rgb) + " twice");
  }
}

// --- The rules between them -------------------------------------------------

namespace {

// An option that does nothing in the mode given is refused when it differs
// from its default: the default is what every mode gets without a word.
const DecodeOptions kDefaults;

// Labels mode: mask_ignore_value is a file value that no class id shares
// (without a label_map the file values are the class ids), and colour-coded
// masks have no such value: their unlabelled colour goes in mask_colors.
void CheckMaskIgnoreValue(const DecodeOptions& decode) {
  const std::string got = std::to_string(decode.mask_ignore_value);
  if (!decode.mask_colors.empty() && decode.mask_ignore_value != kDefaults.mask_ignore_value) {
    throw ConfigError(
        "mask_ignore_value applies to masks of ids: with mask_colors, map the unlabelled colour "
        "to ignore_index there (got " +
        got + " with mask_colors)");
  }
  if (decode.label_map.empty() && decode.mask_colors.empty() &&
      decode.mask_ignore_value < decode.num_classes) {
    throw ConfigError("mask_ignore_value must not be a class id in [0, num_classes = " +
                      std::to_string(decode.num_classes) + ") without a label_map (got " + got +
                      ")");
  }
}

}  // namespace

void CheckLabelOptions(const DecodeOptions& decode) {
  if (decode.mask_mode == MaskMode::kBinary) {
    const auto labels_only = [](std::string_view option, const std::string& got) {
      throw ConfigError(std::string(option) +
                        " applies to label maps: set mask_mode='labels' (got " + got +
                        " with mask_mode='binary')");
    };
    if (decode.num_classes != 0) labels_only("num_classes", std::to_string(decode.num_classes));
    if (decode.mask_ignore_value != kDefaults.mask_ignore_value)
      labels_only("mask_ignore_value", std::to_string(decode.mask_ignore_value));
    if (decode.ignore_index != kDefaults.ignore_index)
      labels_only("ignore_index", std::to_string(decode.ignore_index));
    if (!decode.label_map.empty()) labels_only("label_map", LabelMapText(decode.label_map));
    if (!decode.mask_colors.empty()) labels_only("mask_colors", MaskColorsText(decode.mask_colors));
    if (!decode.class_names.empty())
      labels_only("class_names", std::to_string(decode.class_names.size()) + " names");
    // The threshold is the luminance rule's; the nonzero rule reads none.
    if (decode.mask_foreground == MaskForeground::kNonzero &&
        decode.mask_threshold != kDefaults.mask_threshold) {
      throw ConfigError(
          "mask_threshold applies to mask_foreground='luminance': set it, or leave the "
          "threshold out (got " +
          std::to_string(decode.mask_threshold) + " with mask_foreground='nonzero')");
    }
    return;
  }
  // A label map's values are class ids: no foreground rule reads them.
  const auto binary_only = [](std::string_view option, const std::string& got) {
    throw ConfigError(std::string(option) +
                      " applies to binary masks: label maps keep their class ids (got " + got +
                      " with mask_mode='labels')");
  };
  if (decode.mask_foreground != kDefaults.mask_foreground)
    binary_only("mask_foreground", "'luminance'");
  if (decode.mask_threshold != kDefaults.mask_threshold)
    binary_only("mask_threshold", std::to_string(decode.mask_threshold));
  if (decode.num_classes < 1 || decode.num_classes > 255) {
    FailCheck("num_classes", "in [1, 255] with mask_mode='labels'",
              std::to_string(decode.num_classes));
  }
  if (decode.ignore_index >= 0 && decode.ignore_index < decode.num_classes) {
    throw ConfigError("ignore_index must not be a class id in [0, num_classes = " +
                      std::to_string(decode.num_classes) + ") (got " +
                      std::to_string(decode.ignore_index) + ")");
  }
  const auto check_target = [&](std::string_view option, const std::string& entry, int target) {
    if ((target >= 0 && target < decode.num_classes) || target == decode.ignore_index) return;
    throw ConfigError(std::string(option) + " must map to class ids in [0, " +
                      std::to_string(decode.num_classes) + ") or ignore_index " +
                      std::to_string(decode.ignore_index) + " (got " + entry + ")");
  };
  for (const LabelMapEntry& entry : decode.label_map) {
    const std::string text = std::to_string(entry.source) + ":" + std::to_string(entry.target);
    check_target("label_map", text, entry.target);
    // mask_ignore_value's pixels are ignore before the map is looked at: an
    // entry that sends them elsewhere would silently never apply.
    if (entry.source == decode.mask_ignore_value && entry.target != decode.ignore_index) {
      throw ConfigError("label_map must not map mask_ignore_value " +
                        std::to_string(decode.mask_ignore_value) +
                        ": its pixels are ignore before mapping (got " + text +
                        "; set mask_ignore_value to the file's own unlabelled value to train " +
                        std::to_string(entry.source) + ")");
    }
  }
  CheckMaskIgnoreValue(decode);
  for (const MaskColor& color : decode.mask_colors) {
    if (!color.ignored) check_target("mask_colors", MaskColorsText({color}), color.label);
  }
  if (!decode.class_names.empty() &&
      decode.class_names.size() != static_cast<size_t>(decode.num_classes)) {
    throw ConfigError(
        "class_names must name the num_classes = " + std::to_string(decode.num_classes) +
        " classes, one name each (got " + std::to_string(decode.class_names.size()) + " names)");
  }
  if (!decode.label_map.empty() && !decode.mask_colors.empty()) {
    throw ConfigError(
        "label_map and mask_colors do not go together: colours map to classes directly (got "
        "both)");
  }
}

void CheckWindowOptions(const DecodeOptions& decode, const AugmentOptions& augment) {
  if (augment.crop_max_class_ratio == AugmentOptions{}.crop_max_class_ratio) return;
  const std::string ratio = NumberText(augment.crop_max_class_ratio);
  // Only a label map has classes to count, and only a random window moves.
  if (decode.mask_mode == MaskMode::kBinary) {
    throw ConfigError(
        "crop_max_class_ratio applies to label maps: set mask_mode='labels', or leave it at 1 "
        "(got " +
        ratio + " with mask_mode='binary')");
  }
  if (augment.crop != CropPlacement::kRandom) {
    throw ConfigError(
        "crop_max_class_ratio applies to random windows: set crop='random', or leave it at 1 "
        "(got " +
        ratio + " with crop='center')");
  }
}

void CheckMaskDtypeForMode(const DecodeOptions& decode, const OutputOptions& output) {
  const ElementType dtype = output.mask_dtype;
  if (decode.mask_mode == MaskMode::kBinary) {
    if (dtype == ElementType::kInt32 || dtype == ElementType::kInt64) {
      throw ConfigError("mask_dtype must be uint8 or float32 for binary masks (got " +
                        std::string(ElementTypeName(dtype)) +
                        "; class ids need mask_mode='labels')");
    }
    return;
  }
  if (dtype == ElementType::kFloat32 || dtype == ElementType::kFloat16) {
    throw ConfigError("mask_dtype must be uint8, int32 or int64 for label maps (got " +
                      std::string(ElementTypeName(dtype)) + ")");
  }
  if (dtype == ElementType::kUint8 && (decode.ignore_index < 0 || decode.ignore_index > 255)) {
    throw ConfigError("ignore_index must be in [0, 255] for mask_dtype uint8 (got " +
                      std::to_string(decode.ignore_index) + ")");
  }
}

}  // namespace segfeed::options
