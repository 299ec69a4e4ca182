#include "cli/cli_args.h"

#include <algorithm>
#include <charconv>

namespace segfeed::tools {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

CliArgs::CliArgs(std::span<const std::string> args, const std::vector<std::string>& value_options,
                 const std::vector<std::string>& flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
      positionals_.push_back(arg);
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    if (Contains(flags, name)) {
      if (inline_value) throw UsageError("option " + name + " takes no value");
      flags_.push_back(name);
    } else if (Contains(value_options, name)) {
      if (inline_value) {
        values_.emplace_back(name, *inline_value);
      } else if (i + 1 < args.size()) {
        values_.emplace_back(name, args[++i]);
      } else {
        throw UsageError("option " + name + " needs a value");
      }
    } else {
      throw UsageError("unknown option " + name);
    }
  }
}

bool CliArgs::Has(const std::string& name) const {
  return Contains(flags_, name) || Get(name).has_value();
}

std::optional<std::string> CliArgs::Get(const std::string& name) const {
  // The last occurrence wins, as in most command-line tools.
  for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return std::nullopt;
}

std::string CliArgs::GetString(const std::string& name, const std::string& fallback) const {
  return Get(name).value_or(fallback);
}

int64_t CliArgs::GetInt(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  std::optional<std::string> text = Get(name);
  if (!text) return fallback;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw UsageError(name + " must be an integer (got '" + *text + "')");
  }
  if (value < min || value > max) {
    throw UsageError(name + " must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "] (got " + *text + ")");
  }
  return value;
}

}  // namespace segfeed::tools
