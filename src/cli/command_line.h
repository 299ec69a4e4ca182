#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace segfeed::cli {

// A mistake on the command line. The segfeed command prints it with a hint
// to --help and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One subcommand's command line, parsed by CLI11. CLI11 matches the
// arguments to flags (--name value, --name=value, --flag, --no-flag) and
// lays out --help; what a value means (its range, its choices, the option
// table's Parse()) is checked once CLI11 has matched every argument, so each
// mistake is a UsageError that names its flag. Unknown flags and stray
// positionals are refused by name, so a typo never falls back to a default.
//
// The subcommand adds its own flags here, under a --help section named after
// it, and the shared flags through DatasetFlags and LoaderFlags
// (loader_flags.h). Targets must outlive Parse().
class CommandLine {
 public:
  // `name` is the subcommand ("bench"); `help` is what --help prints before
  // the flags (the usage line and the description), `footer` after them.
  CommandLine(std::string name, std::string help, std::string footer = {});
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // The subcommand's own flags, in its --help section. Each description
  // gets " (default X)" where the flag has a default.
  // An integer within [min, max]: "--count must be in [1, 256] (got 0)".
  // Each returns its option, whose count() says after Parse() whether it was given.
  template <typename T>
  const CLI::Option* AddInt(const std::string& flag, T* target, int64_t min, int64_t max,
                            const std::string& description);
  // One of `choices`: "--optimizer must be one of sgd, adam (got 'x')".
  template <typename Enum>
  const CLI::Option* AddChoice(const std::string& flag, Enum* target,
                               std::initializer_list<std::pair<const char*, Enum>> choices,
                               const std::string& description, const std::string& default_name);
  // Any text ("FILE", "DIR", "WxH"); nullopt when absent.
  const CLI::Option* AddText(const std::string& flag, const std::string& value_name,
                             std::optional<std::string>* target, const std::string& description);
  // A switch without a value.
  const CLI::Option* AddFlag(const std::string& flag, bool* target, const std::string& description);
  // A positional argument ("OUT_DIR"); nullopt when absent.
  void AddPositional(const std::string& name, std::optional<std::string>* target,
                     const std::string& description);

  // For the shared flags: a raw CLI11 option in `group`, and a check to run
  // after matching (in the order added) that may throw UsageError.
  CLI::Option* AddOption(const std::string& names, const std::string& description,
                         const std::string& group);
  // The same for a flag without a value ("--drop-last,!--no-drop-last": the
  // '!' spelling gives false); --flag=VALUE still passes VALUE on.
  CLI::Option* AddSwitch(const std::string& names, const std::string& description,
                         const std::string& group);
  void AfterMatching(std::function<void()> check) { checks_.push_back(std::move(check)); }

  // Parses the arguments after the subcommand's name. Returns false when
  // --help was asked for (the help is then on standard output); throws
  // UsageError for a mistake.
  bool Parse(std::span<const std::string> args);

  // The last value given for `option`, or nullopt when it is absent.
  static std::optional<std::string> LastValue(const CLI::Option* option);

 private:
  std::string name_;
  CLI::App app_;
  std::vector<std::function<void()>> checks_;
};

// "--count must be an integer (got 'x')", "--count must be in [1, 256] (got 0)".
int64_t ParseIntFlag(const std::string& flag, const std::string& text, int64_t min, int64_t max);

template <typename T>
const CLI::Option* CommandLine::AddInt(const std::string& flag, T* target, int64_t min, int64_t max,
                                       const std::string& description) {
  CLI::Option* option =
      AddOption(flag, description + " (default " + std::to_string(*target) + ")", name_);
  option->type_name("N");
  AfterMatching([flag, option, target, min, max] {
    if (auto text = LastValue(option))
      *target = static_cast<T>(ParseIntFlag(flag, *text, min, max));
  });
  return option;
}

template <typename Enum>
const CLI::Option* CommandLine::AddChoice(
    const std::string& flag, Enum* target,
    std::initializer_list<std::pair<const char*, Enum>> choices, const std::string& description,
    const std::string& default_name) {
  std::vector<std::pair<std::string, Enum>> names(choices.begin(), choices.end());
  std::string list;
  for (const auto& [name, value] : names) list += (list.empty() ? "" : ", ") + name;
  CLI::Option* option =
      AddOption(flag, description + "; one of " + list + " (default " + default_name + ")", name_);
  option->type_name("NAME");
  AfterMatching([flag, option, target, names, list] {
    const std::optional<std::string> text = LastValue(option);
    if (!text) return;
    for (const auto& [name, value] : names) {
      if (*text == name) {
        *target = value;
        return;
      }
    }
    throw UsageError(flag + " must be one of " + list + " (got '" + *text + "')");
  });
  return option;
}

}  // namespace segfeed::cli
