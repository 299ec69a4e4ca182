#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace segfeed::tools {

// A mistake on the command line. The segfeed command prints it with a hint
// to --help and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The arguments of one subcommand: "--name value", "--name=value", flags
// ("--help") and positionals. Unknown options are refused by name, so a typo
// never silently falls back to a default.
class CliArgs {
 public:
  // `value_options` take a value, `flags` do not; names include the dashes.
  CliArgs(std::span<const std::string> args, const std::vector<std::string>& value_options,
          const std::vector<std::string>& flags);

  bool Has(const std::string& name) const;
  std::optional<std::string> Get(const std::string& name) const;
  std::string GetString(const std::string& name, const std::string& fallback) const;
  // Integer option within [min, max]; out of range or not a number is a
  // UsageError naming the option and the value.
  int64_t GetInt(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> flags_;
  std::vector<std::string> positionals_;
};

}  // namespace segfeed::tools
