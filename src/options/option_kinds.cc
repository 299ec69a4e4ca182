#include "options/option_kinds.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "options/enum_names.h"
#include "options/option_values.h"
#include "segfeed/errors.h"
#include "segfeed/memory.h"

namespace segfeed::options {
namespace {

// Large enough for any photo we expect, small enough that width*height*4
// bytes cannot overflow the int arithmetic OpenCV uses for row sizes.
constexpr int kMaxOutputSide = 16384;

}  // namespace

// --- IntOption -----------------------------------------------------------

template <typename T>
std::string IntOption<T>::Requirement() const {
  if (max_ == std::numeric_limits<T>::max()) return ">= " + std::to_string(min_);
  return "in [" + std::to_string(min_) + ", " + std::to_string(max_) + "]" + std::string(note_);
}

template <typename T>
void IntOption<T>::Set(LoaderOptions& options, const OptionValue& value) const {
  // None, where the option takes it (rank, world_size), keeps the default;
  // OptionsFromValues derives what it means.
  if (std::holds_alternative<std::monostate>(value) && !none_means().empty()) return;
  const OptionScalar* scalar = AsScalar(value);
  T result{};
  if (!scalar || !ToInt(name(), *scalar, result)) WrongType(name(), "an integer", Describe(value));
  field_(options) = result;
  Check(options);
}

template <typename T>
void IntOption<T>::Parse(LoaderOptions& options, std::string_view text) const {
  Set(options, IntegerScalar(name(), text));
}

template <typename T>
OptionValue IntOption<T>::Get(const LoaderOptions& options) const {
  const T value = Read(field_, options);
  if constexpr (std::is_unsigned_v<T>) {
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return OptionValue(std::in_place_type<OptionScalar>, static_cast<uint64_t>(value));
  }
  return OptionValue(std::in_place_type<OptionScalar>, static_cast<int64_t>(value));
}

template <typename T>
std::string IntOption<T>::Text(const LoaderOptions& options) const {
  return std::to_string(Read(field_, options));
}

template <typename T>
std::string IntOption<T>::Accepts() const {
  return "integer " + Requirement();
}

template <typename T>
void IntOption<T>::Check(const LoaderOptions& options) const {
  const T value = Read(field_, options);
  const bool below = std::is_signed_v<T>
                         ? static_cast<int64_t>(value) < min_
                         : static_cast<uint64_t>(value) < static_cast<uint64_t>(min_);
  if (below || value > max_) FailCheck(name(), Requirement(), std::to_string(value));
}

template class IntOption<int>;
template class IntOption<int64_t>;
template class IntOption<uint64_t>;

// --- NumberOption --------------------------------------------------------

void NumberOption::Set(LoaderOptions& options, const OptionValue& value) const {
  const OptionScalar* scalar = AsScalar(value);
  double result = 0;
  if (!scalar || !ToDouble(*scalar, result)) WrongType(name(), "a number", Describe(value));
  field_(options) = result;
  Check(options);
}

void NumberOption::Parse(LoaderOptions& options, std::string_view text) const {
  Set(options, OptionValue(std::in_place_type<OptionScalar>, ParseNumber(name(), text)));
}

OptionValue NumberOption::Get(const LoaderOptions& options) const {
  return OptionValue(std::in_place_type<OptionScalar>, Read(field_, options));
}

std::string NumberOption::Text(const LoaderOptions& options) const {
  return NumberText(Read(field_, options));
}

std::string NumberOption::Accepts() const {
  return "number in [" + NumberText(min_) + ", " + NumberText(max_) + "]";
}

void NumberOption::Check(const LoaderOptions& options) const {
  CheckBetween(name(), Read(field_, options), min_, max_);
}

// --- BoolOption ----------------------------------------------------------

void BoolOption::Set(LoaderOptions& options, const OptionValue& value) const {
  const OptionScalar* scalar = AsScalar(value);
  const bool* flag = scalar ? std::get_if<bool>(scalar) : nullptr;
  if (!flag) WrongType(name(), "true or false", Describe(value));
  field_(options) = *flag;
}

void BoolOption::Parse(LoaderOptions& options, std::string_view text) const {
  if (text == "true" || text == "1" || text == "yes" || text == "on") {
    field_(options) = true;
  } else if (text == "false" || text == "0" || text == "no" || text == "off") {
    field_(options) = false;
  } else {
    WrongType(name(), "true or false", Quoted(text));
  }
}

OptionValue BoolOption::Get(const LoaderOptions& options) const {
  return OptionValue(std::in_place_type<OptionScalar>, Read(field_, options));
}

std::string BoolOption::Text(const LoaderOptions& options) const {
  return Read(field_, options) ? "true" : "false";
}

// --- ChoiceOption --------------------------------------------------------

template <typename Enum>
void ChoiceOption<Enum>::Set(LoaderOptions& options, const OptionValue& value) const {
  // None, where the option takes it (mask_dtype), keeps the default;
  // OptionsFromValues derives what it means.
  if (std::holds_alternative<std::monostate>(value) && !none_means().empty()) return;
  const OptionScalar* scalar = AsScalar(value);
  const std::string* text = scalar ? std::get_if<std::string>(scalar) : nullptr;
  if (!text) WrongType(name(), "a string, one of " + ChoiceList(choices_), Describe(value));
  Parse(options, *text);
}

template <typename Enum>
void ChoiceOption<Enum>::Parse(LoaderOptions& options, std::string_view text) const {
  field_(options) = static_cast<Enum>(ParseChoice(name(), choices_, text));
}

template <typename Enum>
OptionValue ChoiceOption<Enum>::Get(const LoaderOptions& options) const {
  return OptionValue(std::in_place_type<OptionScalar>, std::string(Text(options)));
}

template <typename Enum>
std::string ChoiceOption<Enum>::Text(const LoaderOptions& options) const {
  return std::string(ChoiceName(names_, static_cast<int>(Read(field_, options))));
}

template <typename Enum>
std::string ChoiceOption<Enum>::Accepts() const {
  return "one of " + ChoiceList(choices_);
}

template <typename Enum>
void ChoiceOption<Enum>::Check(const LoaderOptions& options) const {
  const int value = static_cast<int>(Read(field_, options));
  for (const OptionChoice& choice : choices_) {
    if (choice.value == value) return;
  }
  const std::string_view known = ChoiceName(names_, value);
  FailCheck(name(), "one of " + ChoiceList(choices_),
            known == "unknown" ? std::to_string(value) : std::string(known));
}

template class ChoiceOption<ElementType>;
template class ChoiceOption<Layout>;
template class ChoiceOption<FillMode>;
template class ChoiceOption<ResizeMode>;
template class ChoiceOption<CropPlacement>;
template class ChoiceOption<JpegWarnings>;
template class ChoiceOption<DecodeColour>;
template class ChoiceOption<ColourModel>;
template class ChoiceOption<OnBadFile>;
template class ChoiceOption<Subset>;
template class ChoiceOption<Shuffle>;
template class ChoiceOption<PinnedMode>;
template class ChoiceOption<MaskMode>;
template class ChoiceOption<MaskForeground>;

// --- RangeOption ---------------------------------------------------------

void RangeOption::Set(LoaderOptions& options, const OptionValue& value) const {
  if (std::holds_alternative<std::monostate>(value)) {
    enabled_(options) = false;
    return;
  }
  double ends[2];
  if (!ToDoubles(value, 2, ends)) WrongType(name(), "a (min, max) pair or None", Describe(value));
  enabled_(options) = true;
  range_(options) = {ends[0], ends[1]};
  Check(options);
}

void RangeOption::Parse(LoaderOptions& options, std::string_view text) const {
  if (text == "off" || text == "none") return Set(options, std::monostate{});
  Set(options, NumberList(name(), text, 2));
}

OptionValue RangeOption::Get(const LoaderOptions& options) const {
  if (!Read(enabled_, options)) return std::monostate{};
  const UniformRange& range = Read(range_, options);
  return std::vector<OptionScalar>{range.min, range.max};
}

std::string RangeOption::Text(const LoaderOptions& options) const {
  if (!Read(enabled_, options)) return "off";
  const UniformRange& range = Read(range_, options);
  return NumberText(range.min) + "," + NumberText(range.max);
}

std::string RangeOption::Accepts() const {
  return "MIN,MAX within [" + NumberText(lo_) + ", " + NumberText(hi_) + "], or off";
}

void RangeOption::Check(const LoaderOptions& options) const {
  // Checked even while the op is off: a nonsense range is a mistake whether
  // or not it is used today.
  CheckRange(name(), Read(range_, options), lo_, hi_);
}

// --- TripleOption --------------------------------------------------------

void TripleOption::Set(LoaderOptions& options, const OptionValue& value) const {
  if (std::holds_alternative<std::monostate>(value)) return;  // the default stays
  double channels[3];
  if (!ToDoubles(value, 3, channels))
    WrongType(name(), "3 numbers, one per channel (R, G, B)", Describe(value));
  for (int c = 0; c < 3; ++c) field_(options)[c] = static_cast<float>(channels[c]);
}

void TripleOption::Parse(LoaderOptions& options, std::string_view text) const {
  Set(options, NumberList(name(), text, 3));
}

OptionValue TripleOption::Get(const LoaderOptions& options) const {
  const std::array<float, 3>& channels = Read(field_, options);
  return std::vector<OptionScalar>{double{channels[0]}, double{channels[1]}, double{channels[2]}};
}

std::string TripleOption::Text(const LoaderOptions& options) const {
  const std::array<float, 3>& channels = Read(field_, options);
  return NumberText(channels[0]) + "," + NumberText(channels[1]) + "," + NumberText(channels[2]);
}

std::string TripleOption::Accepts() const {
  return must_be_positive_ ? "three numbers R,G,B, each > 0" : "three numbers R,G,B";
}

void TripleOption::Check(const LoaderOptions& options) const {
  if (!Read(active_, options)) return;
  const std::array<float, 3>& channels = Read(field_, options);
  for (int c = 0; c < 3; ++c) {
    const std::string field = std::string(name()) + "[" + std::to_string(c) + "]";
    if (!std::isfinite(channels[c])) FailCheck(field, "finite", NumberText(channels[c]));
    if (must_be_positive_ && !(channels[c] > 0.0f))
      FailCheck(field, "> 0", NumberText(channels[c]));
  }
}

// --- FillColorOption -----------------------------------------------------

void FillColorOption::Set(LoaderOptions& options, const OptionValue& value) const {
  const auto wrong = [&] {
    WrongType(name(), "an integer, or 3 integers (R, G, B)", Describe(value));
  };
  FillColor color;
  if (const OptionScalar* scalar = AsScalar(value)) {
    int level = 0;
    if (!ToInt(name(), *scalar, level)) wrong();
    color = FillColor(level);
  } else if (const auto* items = std::get_if<std::vector<OptionScalar>>(&value);
             items && items->size() == 3) {
    for (int c = 0; c < 3; ++c)
      if (!ToInt(name(), (*items)[c], color.rgb[c])) wrong();
  } else {
    wrong();
  }
  field_(options) = color;
  Check(options);
}

void FillColorOption::Parse(LoaderOptions& options, std::string_view text) const {
  const std::vector<std::string_view> parts = SplitList(text);
  if (parts.size() == 1) return Set(options, IntegerScalar(name(), text));
  std::vector<OptionScalar> levels;
  for (std::string_view part : parts) levels.push_back(IntegerScalar(name(), part));
  Set(options, levels);  // refuses any count but 3
}

OptionValue FillColorOption::Get(const LoaderOptions& options) const {
  const FillColor& color = Read(field_, options);
  if (color.uniform()) return OptionValue(std::in_place_type<OptionScalar>, int64_t{color.rgb[0]});
  return std::vector<OptionScalar>{int64_t{color.rgb[0]}, int64_t{color.rgb[1]},
                                   int64_t{color.rgb[2]}};
}

std::string FillColorOption::Text(const LoaderOptions& options) const {
  const FillColor& color = Read(field_, options);
  if (color.uniform()) return std::to_string(color.rgb[0]);
  std::string text = std::to_string(color.rgb[0]);
  for (int c = 1; c < 3; ++c) text.append(",").append(std::to_string(color.rgb[c]));
  return text;
}

void FillColorOption::Check(const LoaderOptions& options) const {
  const FillColor& color = Read(field_, options);
  for (int c = 0; c < 3; ++c) {
    if (color.rgb[c] >= 0 && color.rgb[c] <= 255) continue;
    // One level names the option; a channel of three names its index.
    const std::string field =
        color.uniform() ? std::string(name()) : std::string(name()) + "[" + std::to_string(c) + "]";
    FailCheck(field, "in [0, 255]", std::to_string(color.rgb[c]));
  }
}

// --- SizeOption ----------------------------------------------------------

void SizeOption::Set(LoaderOptions& options, const OptionValue& value) const {
  AugmentOptions& augment = options.augment;
  const auto wrong = [&] { WrongType(name(), "an int or (height, width)", Describe(value)); };
  if (const OptionScalar* scalar = AsScalar(value)) {
    int side = 0;
    if (!ToInt(name(), *scalar, side)) wrong();
    augment.output_width = augment.output_height = side;
  } else if (const auto* items = std::get_if<std::vector<OptionScalar>>(&value);
             items && items->size() == 2) {
    if (!ToInt(name(), (*items)[0], augment.output_height) ||
        !ToInt(name(), (*items)[1], augment.output_width)) {
      wrong();
    }
  } else {
    wrong();
  }
  CheckSize(augment);
}

void SizeOption::Parse(LoaderOptions& options, std::string_view text) const {
  const size_t x = text.find('x');
  if (x == std::string_view::npos) return Set(options, IntegerScalar(name(), text));
  // WxH on the command line, (height, width) everywhere else.
  Set(options, std::vector<OptionScalar>{IntegerScalar(name(), text.substr(x + 1)),
                                         IntegerScalar(name(), text.substr(0, x))});
}

OptionValue SizeOption::Get(const LoaderOptions& options) const {
  return std::vector<OptionScalar>{int64_t{options.augment.output_height},
                                   int64_t{options.augment.output_width}};
}

std::string SizeOption::Text(const LoaderOptions& options) const {
  const AugmentOptions& augment = options.augment;
  if (augment.output_width == augment.output_height) return std::to_string(augment.output_width);
  return std::to_string(augment.output_width) + "x" + std::to_string(augment.output_height);
}

std::string SizeOption::Accepts() const {
  return "N or WxH pixels, each in [1, " + std::to_string(kMaxOutputSide) + "]";
}

void SizeOption::CheckSize(const AugmentOptions& augment) {
  const std::string requirement = "in [1, " + std::to_string(kMaxOutputSide) + "]";
  if (augment.output_width < 1 || augment.output_width > kMaxOutputSide)
    FailCheck("size's width", requirement, std::to_string(augment.output_width));
  if (augment.output_height < 1 || augment.output_height > kMaxOutputSide)
    FailCheck("size's height", requirement, std::to_string(augment.output_height));
}

}  // namespace segfeed::options
