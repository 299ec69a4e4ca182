// The stream-changing options' canonical text and its digest: what a
// checkpoint records of the options (LoaderState), and what a refused resume
// names as changed. Two options with the same digest give the same batches.

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "fnv1a_digest.h"
#include "segfeed/option_table.h"

namespace segfeed {
namespace {

// Exact text of a value for the digest: doubles with all their digits.
std::string CanonicalText(const OptionScalar& scalar) {
  if (const auto* d = std::get_if<double>(&scalar)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", *d);
    return text;
  }
  if (const auto* b = std::get_if<bool>(&scalar)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&scalar)) return std::to_string(*i);
  if (const auto* u = std::get_if<uint64_t>(&scalar)) return std::to_string(*u);
  return std::get<std::string>(scalar);
}

std::string CanonicalText(const OptionValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return "none";
  if (const auto* scalar = std::get_if<OptionScalar>(&value)) return CanonicalText(*scalar);
  std::string text;
  for (const OptionScalar& item : std::get<std::vector<OptionScalar>>(value)) {
    if (!text.empty()) text += ",";
    text += CanonicalText(item);
  }
  return text;
}

}  // namespace

std::string StreamOptionsText(const LoaderOptions& options) {
  const LoaderOptions defaults;
  std::string text;
  for (const OptionSpec* option : LoaderOptionTable()) {
    if (!option->in_stream()) continue;
    const std::string value = CanonicalText(option->StreamValue(options));
    if (!option->stream_line_at_default() && value == CanonicalText(option->StreamValue(defaults)))
      continue;
    text += std::string(option->name()) + "=" + value + "\n";
  }
  return text;
}

std::string StreamOptionsDigest(const LoaderOptions& options) {
  Fnv1aDigest digest;
  digest.Add(StreamOptionsText(options));
  return digest.Hex();
}

}  // namespace segfeed
