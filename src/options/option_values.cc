#include "options/option_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <type_traits>

#include "segfeed/errors.h"

namespace segfeed::options {

void WrongType(std::string_view name, std::string_view expected, const std::string& got) {
  throw OptionTypeError(std::string(name) + " must be " + std::string(expected) + " (got " + got +
                        ")");
}

std::string Quoted(std::string_view text) {
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on
  // "literal" + std::string.
  std::string quoted(1, '\'');
  quoted += text;
  quoted += '\'';
  return quoted;
}

// How a front end's value reads in a message: 16, 0.5, 'text', True, None, (1, 2).
std::string Describe(const OptionScalar& scalar) {
  struct {
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(uint64_t u) const { return std::to_string(u); }
    // As Python's repr: 2.0 stays 2.0, so a float where an integer is
    // needed reads as the float the user gave, not as the integer.
    std::string operator()(double d) const {
      std::string text = NumberText(d);
      if (std::isfinite(d) && text.find_first_of(".e") == std::string::npos) text += ".0";
      return text;
    }
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
  CheckBetween(std::string(field) + "'s min", range.min, lo, hi);
  CheckBetween(std::string(field) + "'s max", range.max, lo, hi);
  if (range.min > range.max) {
    FailCheck(field, "an interval with min <= max",
              "[" + NumberText(range.min) + ", " + NumberText(range.max) + "]");
  }
}

}  // namespace segfeed::options
