#include "options/option_kinds.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <type_traits>

#include "options/enum_names.h"
#include "segfeed/errors.h"
#include "segfeed/memory.h"

namespace segfeed::internal {
namespace {

// Large enough for any photo we expect, small enough that width*height*4
// bytes cannot overflow the int arithmetic OpenCV uses for row sizes.
constexpr int kMaxOutputSide = 16384;

[[noreturn]] void WrongType(std::string_view name, std::string_view expected,
                            const std::string& got) {
  throw OptionTypeError(std::string(name) + " must be " + std::string(expected) + " (got " + got +
                        ")");
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// How a front end's value reads in a message: 16, 0.5, 'text', True, None, (1, 2).
std::string Describe(const OptionScalar& scalar) {
  struct {
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(uint64_t u) const { return std::to_string(u); }
    std::string operator()(double d) const { return NumberText(d); }
    std::string operator()(const std::string& s) const { return Quoted(s); }
  } describe;
  return std::visit(describe, scalar);
}

std::string Describe(const OptionValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return "None";
  if (const auto* scalar = std::get_if<OptionScalar>(&value)) return Describe(*scalar);
  std::string text = "(";
  for (const OptionScalar& item : std::get<std::vector<OptionScalar>>(value)) {
    if (text.size() > 1) text += ", ";
    text += Describe(item);
  }
  return text + ")";
}

const OptionScalar* AsScalar(const OptionValue& value) { return std::get_if<OptionScalar>(&value); }

// A real number from an integer or a float scalar (not a bool).
bool ToDouble(const OptionScalar& scalar, double& out) {
  if (const auto* d = std::get_if<double>(&scalar)) {
    out = *d;
  } else if (const auto* i = std::get_if<int64_t>(&scalar)) {
    out = static_cast<double>(*i);
  } else if (const auto* u = std::get_if<uint64_t>(&scalar)) {
    out = static_cast<double>(*u);
  } else {
    return false;
  }
  return true;
}

// `count` real numbers from a sequence, or false.
bool ToDoubles(const OptionValue& value, size_t count, double* out) {
  const auto* items = std::get_if<std::vector<OptionScalar>>(&value);
  if (!items || items->size() != count) return false;
  for (size_t i = 0; i < count; ++i) {
    if (!ToDouble((*items)[i], out[i])) return false;
  }
  return true;
}

// An integer scalar as T, "is out of range" beyond T; false when not an integer.
template <typename T>
bool ToInt(std::string_view name, const OptionScalar& scalar, T& out) {
  const auto out_of_range = [&] {
    throw ConfigError(std::string(name) + " is out of range (got " + Describe(scalar) + ")");
  };
  if (const auto* i = std::get_if<int64_t>(&scalar)) {
    if constexpr (std::is_unsigned_v<T>) {
      if (*i < 0) out_of_range();
    } else {
      if (*i < std::numeric_limits<T>::min() || *i > std::numeric_limits<T>::max()) out_of_range();
    }
    out = static_cast<T>(*i);
    return true;
  }
  if (const auto* u = std::get_if<uint64_t>(&scalar)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<T>::max())) out_of_range();
    out = static_cast<T>(*u);
    return true;
  }
  return false;
}

// CLI text as the scalar a front end would pass: an integer when it is one.
OptionScalar IntegerScalar(std::string_view name, std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size()) return value;
  uint64_t big = 0;
  auto [big_end, big_error] = std::from_chars(text.data(), text.data() + text.size(), big);
  if (big_error == std::errc() && big_end == text.data() + text.size()) return big;
  if (error == std::errc::result_out_of_range || big_error == std::errc::result_out_of_range)
    throw ConfigError(std::string(name) + " is out of range (got " + std::string(text) + ")");
  WrongType(name, "an integer", Quoted(text));
}

OptionValue NumberList(std::string_view name, std::string_view text, size_t count) {
  std::vector<OptionScalar> items;
  for (std::string_view part : SplitList(text)) items.emplace_back(ParseNumber(name, part));
  if (items.size() != count) {
    WrongType(name, count == 2 ? "MIN,MAX" : "three numbers R,G,B", Quoted(text));
  }
  return items;
}

}  // namespace

std::string NumberText(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

double ParseNumber(std::string_view name, std::string_view text) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size()) {
    WrongType(name, "a number", Quoted(text));
  }
  return value;
}

std::vector<std::string_view> SplitList(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string_view::npos) return parts;
    start = comma + 1;
  }
}

void FailCheck(std::string_view field, std::string_view requirement, std::string_view got) {
  throw ConfigError(std::string(field) + " must be " + std::string(requirement) + " (got " +
                    std::string(got) + ")");
}

void CheckBetween(std::string_view field, double value, double lo, double hi) {
  if (!std::isfinite(value)) FailCheck(field, "finite", NumberText(value));
  if (value < lo || value > hi) {
    FailCheck(field, "in [" + NumberText(lo) + ", " + NumberText(hi) + "]", NumberText(value));
  }
}

void CheckRange(std::string_view field, const UniformRange& range, double lo, double hi) {
  CheckBetween(std::string(field) + ".min", range.min, lo, hi);
  CheckBetween(std::string(field) + ".max", range.max, lo, hi);
  if (range.min > range.max) {
    FailCheck(field, "an interval with min <= max",
              "[" + NumberText(range.min) + ", " + NumberText(range.max) + "]");
  }
}

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
      return OptionScalar(static_cast<uint64_t>(value));
  }
  return OptionScalar(static_cast<int64_t>(value));
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
  Set(options, OptionScalar(ParseNumber(name(), text)));
}

OptionValue NumberOption::Get(const LoaderOptions& options) const {
  return OptionScalar(Read(field_, options));
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
  return OptionScalar(Read(field_, options));
}

std::string BoolOption::Text(const LoaderOptions& options) const {
  return Read(field_, options) ? "true" : "false";
}

// --- ChoiceOption --------------------------------------------------------

template <typename Enum>
void ChoiceOption<Enum>::Set(LoaderOptions& options, const OptionValue& value) const {
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
  return OptionScalar(std::string(Text(options)));
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
template class ChoiceOption<JpegWarnings>;
template class ChoiceOption<OnBadFile>;
template class ChoiceOption<Subset>;
template class ChoiceOption<PinnedMode>;

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
  CheckRange(field_name_, Read(range_, options), lo_, hi_);
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
    FailCheck("output_width", requirement, std::to_string(augment.output_width));
  if (augment.output_height < 1 || augment.output_height > kMaxOutputSide)
    FailCheck("output_height", requirement, std::to_string(augment.output_height));
}

}  // namespace segfeed::internal
