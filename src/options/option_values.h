#pragma once

// A front end's values (OptionValue) and CLI text as the typed values the
// option kinds store, and the checks and messages the kinds share. A value
// of the wrong type is an OptionTypeError "<name> must be <what> (got ...)";
// one out of range a ConfigError.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::options {

// Throws OptionTypeError "<name> must be <expected> (got <got>)".
[[noreturn]] void WrongType(std::string_view name, std::string_view expected,
                            const std::string& got);
// 'text', quoted as messages quote what the user typed.
std::string Quoted(std::string_view text);
// How a front end's value reads in a message: 16, 0.5, 'text', True, None, (1, 2).
std::string Describe(const OptionScalar& scalar);
std::string Describe(const OptionValue& value);
// The scalar `value` holds, or nullptr for None and sequences.
const OptionScalar* AsScalar(const OptionValue& value);
// A real number from an integer or a float scalar (not a bool); false otherwise.
bool ToDouble(const OptionScalar& scalar, double& out);
// `count` real numbers from a sequence, or false.
bool ToDoubles(const OptionValue& value, size_t count, double* out);
// CLI text as the scalar a front end would pass: an integer when it is one.
OptionScalar IntegerScalar(std::string_view name, std::string_view text);
// "a,b[,c]" as a sequence of `count` numbers.
OptionValue NumberList(std::string_view name, std::string_view text, size_t count);
// "1.5", "1e+06", "nan": the short form messages and --help use.
std::string NumberText(double value);
// The real number `text` is ("0.5", "1e6"), for CLI parsing; OptionTypeError
// "<name> must be a number (got '<text>')" otherwise.
double ParseNumber(std::string_view name, std::string_view text);
// Splits "0.4,0.6" at commas.
std::vector<std::string_view> SplitList(std::string_view text);
// Throws "<field> must be <requirement> (got <got>)".
[[noreturn]] void FailCheck(std::string_view field, std::string_view requirement,
                            std::string_view got);
// Finite and within [lo, hi], else FailCheck.
void CheckBetween(std::string_view field, double value, double lo, double hi);
// Both ends within [lo, hi] ("<field>'s min"), and min <= max.
void CheckRange(std::string_view field, const UniformRange& range, double lo, double hi);

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

}  // namespace segfeed::options
