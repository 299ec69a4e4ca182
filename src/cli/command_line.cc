#include "cli/command_line.h"

#include <charconv>
#include <iostream>
#include <memory>

namespace segfeed::cli {
namespace {

constexpr size_t kHelpWidth = 100;  // --help lines wrap before this column
constexpr size_t kNameColumn = 34;  // descriptions start here

// `text` wrapped at spaces into lines of at most `width` characters; its
// own line breaks stay.
std::string Wrap(const std::string& text, size_t width) {
  std::string out;
  size_t line = 0;  // characters on the current line
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(" \n", start);
    if (end == std::string::npos) end = text.size();
    const size_t word = end - start;
    if (line > 0 && line + 1 + word > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out.append(text, start, word);
    line += word;
    if (end < text.size() && text[end] == '\n') {
      out += '\n';
      line = 0;
    }
    start = end + 1;
  }
  return out;
}

// --help as segfeed lays it out: the command's own text, then one section
// per group of flags ("bench:", "dataset:", "loader:", ...), each flag with
// all its spellings and its value, then the footer.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() {
    column_width(kNameColumn);
    label("Positionals", "arguments");
  }

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string help = app->get_description();
    if (const std::string positionals = make_positionals(app); !positionals.empty())
      help += "\n" + positionals;
    help += "\n" + make_groups(app, mode);
    if (const std::string footer = make_footer(app); !footer.empty()) help += "\n" + footer;
    return help;
  }

  // "heading:" and its flags; sections are one blank line apart.
  std::string make_group(std::string group, bool is_positional,
                         std::vector<const CLI::Option*> options) const override {
    std::string out = group + ":\n";
    for (const CLI::Option* option : options) out += make_option(option, is_positional);
    return out;
  }

  std::string make_option_name(const CLI::Option* option, bool is_positional) const override {
    if (is_positional) return option->get_name(true, false);
    std::string names;
    for (const std::string& name : option->get_snames())
      names += (names.empty() ? "-" : ", -") + name;
    for (const std::string& name : option->get_lnames())
      names += (names.empty() ? "--" : ", --") + name;
    return names;
  }

  std::string make_option_opts(const CLI::Option* option) const override {
    if (option->get_type_size() == 0 || option->get_type_name().empty()) return {};
    return " " + option->get_type_name();
  }

  std::string make_option_desc(const CLI::Option* option) const override {
    return Wrap(option->get_description(), kHelpWidth - kNameColumn);
  }
};

// "--epoch=3" -> "--epoch".
std::string FlagName(const std::string& argument) { return argument.substr(0, argument.find('=')); }

}  // namespace

CommandLine::CommandLine(std::string name, std::string help, std::string footer)
    : name_(std::move(name)), app_(std::move(help), "segfeed " + name_) {
  app_.formatter(std::make_shared<HelpFormatter>());
  // The last occurrence of a flag wins, as in most command-line tools.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Refused below by name, in segfeed's words.
  app_.allow_extras();
  app_.set_help_flag("-h,--help", "show this text")->group(name_);
  if (!footer.empty()) app_.footer(std::move(footer));
}

CLI::Option* CommandLine::AddOption(const std::string& names, const std::string& description,
                                    const std::string& group) {
  return app_.add_option(names, CLI::callback_t{}, description)->group(group);
}

CLI::Option* CommandLine::AddSwitch(const std::string& names, const std::string& description,
                                    const std::string& group) {
  return app_.add_flag(names, description)->group(group);
}

const CLI::Option* CommandLine::AddText(const std::string& flag, const std::string& value_name,
                                        std::optional<std::string>* target,
                                        const std::string& description) {
  CLI::Option* option = AddOption(flag, description, name_);
  option->type_name(value_name);
  AfterMatching([option, target] { *target = LastValue(option); });
  return option;
}

const CLI::Option* CommandLine::AddFlag(const std::string& flag, bool* target,
                                        const std::string& description) {
  return app_.add_flag(flag, *target, description)->group(name_);
}

void CommandLine::AddPositional(const std::string& name, std::optional<std::string>* target,
                                const std::string& description) {
  CLI::Option* option = AddOption(name, description, name_);
  AfterMatching([option, target] { *target = LastValue(option); });
}

bool CommandLine::Parse(std::span<const std::string> args) {
  // CLI11 takes the arguments last first. It reads "--flag=" (an empty
  // value, --mask-suffix= for no suffix) as "--flag" and takes the next
  // argument as its value; "--flag" "" is what the user meant.
  std::vector<std::string> reversed;
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    if (it->size() > 3 && it->starts_with("--") && it->ends_with("=") &&
        it->find('=') == it->size() - 1) {
      reversed.emplace_back();
      reversed.push_back(it->substr(0, it->size() - 1));
    } else {
      reversed.push_back(*it);
    }
  }
  try {
    app_.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app_.help();
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  for (const std::string& extra : app_.remaining()) {
    if (extra.size() > 1 && extra[0] == '-') throw UsageError("unknown option " + FlagName(extra));
    throw UsageError("unexpected argument '" + extra + "'");
  }
  for (const auto& check : checks_) check();
  return true;
}

std::optional<std::string> CommandLine::LastValue(const CLI::Option* option) {
  if (option->count() == 0) return std::nullopt;
  return option->results().back();
}

int64_t ParseIntFlag(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw UsageError(flag + " must be an integer (got '" + text + "')");
  }
  if (value < min || value > max) {
    throw UsageError(flag + " must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "] (got " + text + ")");
  }
  return value;
}

}  // namespace segfeed::cli
