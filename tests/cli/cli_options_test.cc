// Walks the option table against the segfeed binary: every entry is a flag
// of the commands that take loader flags, listed in --help under its group
// with its doc, what it accepts and its default; a wrong value is a usage
// error carrying exactly the message the entry's Parse() throws in process;
// and the default text parses back to the default. Nothing here names an
// option: a new table entry is tested by being added.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_segfeed.h"
#include "segfeed/errors.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed {
namespace {

using segfeed::testing::RunSegfeed;
using segfeed::testing::RunSegfeedScript;

// The commands that take the loader flags.
constexpr const char* kLoaderCommands[] = {"bench", "plan", "preview"};

// plan with every other requirement met and nothing read: the quickest
// command that parses the loader flags.
const std::string kPlan = "plan --source-size 96x64";

std::string Flag(const OptionSpec& spec) { return "--" + std::string(spec.flag()); }

std::string Dashed(std::string_view name) {
  std::string dashed(name);
  for (char& c : dashed) c = c == '_' ? '-' : c;
  return dashed;
}

// Runs of spaces and line breaks as one space: --help wraps its text.
std::string Squeezed(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

// One flag's entry in --help: the line that starts with its flag, the
// lines that continue it, and the section heading above it.
struct HelpEntry {
  std::string heading;  // "loader:"
  std::string names;    // "--batch, --batch-size N"
  std::string text;     // everything, squeezed
};

std::optional<HelpEntry> FindInHelp(const std::string& help, const std::string& flag) {
  std::istringstream lines(help);
  std::string line, heading;
  std::optional<HelpEntry> entry;
  while (std::getline(lines, line)) {
    if (entry) {
      // Continuation lines are indented past the flags' column.
      if (line.rfind("    ", 0) != 0) break;
      entry->text += " " + line;
      continue;
    }
    if (!line.empty() && line[0] != ' ' && line.back() == ':') heading = line;
    const std::string start = "  " + flag;
    if (line.rfind(start, 0) == 0 &&
        (line.size() == start.size() || line[start.size()] == ',' || line[start.size()] == ' ')) {
      entry = HelpEntry{heading, line.substr(0, line.find("  ", 2)), line};
    }
  }
  if (entry) entry->text = Squeezed(entry->text);
  return entry;
}

// The message Parse() throws for `text` in process; empty if it accepts it.
std::string ParseMessage(const OptionSpec& spec, const std::string& text) {
  LoaderOptions options;
  try {
    spec.Parse(options, text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return {};
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// A value the entry must refuse, derived from its kind and what it accepts:
// an integer below the minimum, a number above the maximum, an unknown
// choice, a reversed range, a triple of two, a zero size, a bool that is
// neither. As a command-line argument: "--flag VALUE" or "--flag=VALUE".
std::optional<std::string> WrongArgument(const OptionSpec& spec) {
  const std::string accepts = spec.Accepts();
  std::smatch match;
  const auto with_value = [&](const std::string& value) { return Flag(spec) + " '" + value + "'"; };
  switch (spec.kind()) {
    case OptionKind::kInt:
      if (std::regex_search(accepts, match, std::regex(R"(^integer (?:>= |in \[)(-?\d+))")))
        return with_value(std::to_string(std::stoll(match[1]) - 1));
      return std::nullopt;
    case OptionKind::kNumber:
      if (std::regex_search(accepts, match, std::regex(R"(^number in \[[^,]+, ([^\]]+)\])")))
        return with_value(Number(2 * std::stod(match[1]) + 1));
      return std::nullopt;
    case OptionKind::kChoice:
      return with_value("no-such-choice");
    case OptionKind::kRange:
      if (std::regex_search(accepts, match, std::regex(R"(within \[([^,]+), ([^\]]+)\])")))
        return with_value(std::string(match[2]) + "," + std::string(match[1]));
      return std::nullopt;
    case OptionKind::kTriple:
      return with_value("0.5,0.5");
    case OptionKind::kColor:
      return with_value("0,256,0");
    case OptionKind::kSize:
      return with_value("0");
    case OptionKind::kIdMap:
      return with_value("7-0");
    case OptionKind::kColorMap:
      return with_value("#80000:1");
    case OptionKind::kNames:
      return with_value("road,,car");
    case OptionKind::kPath:
      return with_value("");
    case OptionKind::kBytes:
      return with_value("10XB");
    case OptionKind::kBool:
      return Flag(spec) + "=maybe";
  }
  return std::nullopt;
}

// The table's message in the command line's words: led by the flag where
// it is led by the option's keyword ("--batch must be >= 1 (got 0)"), else
// after it ("--size: ..."), as make-demo's own flags read.
std::string InFlagWords(const OptionSpec& spec, const std::string& message) {
  const std::string name(spec.name());
  if (message.rfind(name, 0) == 0) return Flag(spec) + message.substr(name.size());
  return Flag(spec) + ": " + message;
}

// A Python keyword or a struct field (batch_size, scale_factor,
// output_width) in `text`, which a command-line user never types; empty if
// none. Choice names (keep_ratio) are what the user types.
std::string SnakeCaseWord(const std::string& text) {
  const std::regex word(R"(\b[a-z0-9]+_[a-z0-9_]+\b)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator();
       ++it) {
    const std::string found = it->str();
    if (FindOption(found) || found.starts_with("output_") || found.ends_with("_factor") ||
        found.ends_with("_delta"))
      return found;
  }
  return {};
}

// The value part of WrongArgument(), as Parse() gets it.
std::string ValueOf(const std::string& argument, const OptionSpec& spec) {
  std::string value = argument.substr(Flag(spec).size() + 1);
  if (!value.empty() && value.front() == '\'') value = value.substr(1, value.size() - 2);
  return value;
}

TEST(CliOptionsTest, EveryOptionIsAFlagInHelpUnderItsGroupWithItsDefault) {
  for (const char* command : kLoaderCommands) {
    const auto r = RunSegfeed(std::string(command) + " --help", testing::Streams::kStdoutOnly);
    ASSERT_EQ(r.exit_code, 0) << command;
    for (const OptionSpec* spec : LoaderOptionTable()) {
      const std::optional<HelpEntry> entry = FindInHelp(r.output, Flag(*spec));
      ASSERT_TRUE(entry) << command << ": no " << Flag(*spec) << " in\n" << r.output;
      const std::string where = std::string(command) + " " + Flag(*spec) + ": " + entry->text;
      EXPECT_EQ(entry->heading, std::string(OptionGroupName(spec->group())) + ":") << where;
      EXPECT_NE(entry->text.find(Squeezed(std::string(spec->doc()))), std::string::npos) << where;
      EXPECT_NE(entry->text.find(Squeezed(spec->Accepts())), std::string::npos) << where;
      EXPECT_NE(entry->text.find("(default " + spec->Text(LoaderOptions{}) + ")"),
                std::string::npos)
          << where;
      const std::string dashed = Dashed(spec->name());
      if (dashed != spec->flag()) {
        EXPECT_NE(entry->names.find(", --" + dashed), std::string::npos) << where;
      }
      if (spec->kind() == OptionKind::kBool) {
        EXPECT_NE(entry->names.find(", --no-" + std::string(spec->flag())), std::string::npos)
            << where;
      }
    }
  }
}

TEST(CliOptionsTest, AWrongValueIsAUsageErrorWithTheTablesMessage) {
  for (const OptionSpec* spec : LoaderOptionTable()) {
    const std::optional<std::string> argument = WrongArgument(*spec);
    ASSERT_TRUE(argument) << Flag(*spec) << ": no wrong value derived from '" << spec->Accepts()
                          << "'";
    const std::string message = ParseMessage(*spec, ValueOf(*argument, *spec));
    ASSERT_NE(message, "") << Flag(*spec) << " accepts " << *argument;
    for (const std::string& command : {kPlan, std::string("bench")}) {
      // Standard error alone: the one line of the error and the hint.
      const auto r =
          RunSegfeedScript("\"$SEGFEED\" " + command + " " + *argument + " 2>&1 >/dev/null");
      const std::string name = command.substr(0, command.find(' '));
      EXPECT_EQ(r.exit_code, 2) << command << " " << *argument << "\n" << r.output;
      EXPECT_EQ(r.output, "segfeed " + name + ": " + InFlagWords(*spec, message) +
                              "\nTry 'segfeed " + name + " --help'.\n")
          << command << " " << *argument;
      EXPECT_EQ(SnakeCaseWord(r.output), "") << r.output;
    }
    // The alias spells the same option.
    const std::string dashed = Dashed(spec->name());
    if (dashed != spec->flag() && spec->kind() != OptionKind::kBool) {
      const std::string alias = "--" + dashed + argument->substr(Flag(*spec).size());
      const auto r = RunSegfeedScript("\"$SEGFEED\" " + kPlan + " " + alias + " 2>&1 >/dev/null");
      EXPECT_EQ(r.exit_code, 2) << alias;
      EXPECT_NE(r.output.find(InFlagWords(*spec, message)), std::string::npos) << r.output;
    }
  }
}

// The rules between options, and the checks of a value's parts, name
// every option by its flag: "--scale's min", not scale_factor.min.
TEST(CliOptionsTest, RuleMessagesNameEveryOptionByItsFlag) {
  const std::pair<std::string, std::string> cases[] = {
      {"--scale 0,1", "--scale's min must be in [0.05, 20] (got 0)"},
      {"--scale 0.5,30", "--scale's max must be in [0.05, 20] (got 30)"},
      {"--scale 2,1", "--scale must be an interval with min <= max (got [2, 1])"},
      {"--contrast -1,1", "--contrast's min must be in [0, 1e+06] (got -1)"},
      {"--size 0x64", "--size's width must be in [1, 16384] (got 0)"},
      {"--mask-mode binary --num-classes 3",
       "--num-classes applies to label maps: set --mask-mode labels (got 3 with --mask-mode "
       "binary)"},
      {"--mask-mode labels --num-classes 3 --ignore-index 1",
       "--ignore-index must not be a class id in [0, --num-classes = 3) (got 1)"},
      {"--mask-mode labels --num-classes 3 --mask-dtype uint8 --ignore-index -100",
       "--ignore-index must be in [0, 255] for --mask-dtype uint8 (got -100)"},
      {"--mask-mode labels --num-classes 3 --mask-dtype float32",
       "--mask-dtype must be uint8, int32 or int64 for label maps (got float32)"},
      {"--crop-max-class-ratio 0.75",
       "--crop-max-class-ratio applies to label maps: set --mask-mode labels, or leave it at 1 "
       "(got 0.75 with --mask-mode binary)"},
      {"--mask-mode labels --num-classes 3 --crop center --crop-max-class-ratio 0.75",
       "--crop-max-class-ratio applies to random windows: set --crop random, or leave it at 1 "
       "(got 0.75 with --crop center)"},
      {"--mask-mode labels --num-classes 3 --mask-threshold 100",
       "--mask-threshold applies to binary masks: label maps keep their class ids (got 100 with "
       "--mask-mode labels)"},
      {"--mask-mode labels --num-classes 3 --mask-foreground luminance",
       "--mask-foreground applies to binary masks: label maps keep their class ids (got "
       "'luminance' with --mask-mode labels)"},
      {"--mask-threshold 100",
       "--mask-threshold applies to --mask-foreground luminance: set it, or leave the threshold "
       "out (got 100 with --mask-foreground nonzero)"},
      {"--ignore-index -100",
       "--ignore-index applies to label maps: set --mask-mode labels (got -100 with --mask-mode "
       "binary)"},
      {"--shard 2/2", "--shard: rank must be in [0, world_size) (got rank 2, world_size 2)"},
  };
  for (const auto& [flags, message] : cases) {
    const auto r = RunSegfeedScript("\"$SEGFEED\" " + kPlan + " " + flags + " 2>&1 >/dev/null");
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
    EXPECT_EQ(r.output, "segfeed plan: " + message + "\nTry 'segfeed plan --help'.\n") << flags;
    if (flags.find("--shard") == std::string::npos) {
      EXPECT_EQ(SnakeCaseWord(r.output), "") << r.output;
    }
  }
  // Where they do something, the same options are accepted.
  for (const std::string flags :
       {"--mask-mode labels --num-classes 3 --crop-max-class-ratio 0.75 --ignore-index -100",
        "--mask-foreground luminance --mask-threshold 100", "--no-augment"}) {
    const auto r = RunSegfeed(kPlan + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << flags << "\n" << r.output;
  }
}

TEST(CliOptionsTest, TheDefaultTextParsesBackToTheDefault) {
  const LoaderOptions defaults;
  std::string every_default;
  for (const OptionSpec* spec : LoaderOptionTable()) {
    const std::string text = spec->Text(defaults);
    LoaderOptions options;
    EXPECT_EQ(ParseMessage(*spec, text), "") << Flag(*spec) << " " << text;
    spec->Parse(options, text);
    EXPECT_TRUE(spec->Get(options) == spec->Get(defaults)) << Flag(*spec) << " " << text;
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on " " + s.
    every_default += ' ';
    every_default += Flag(*spec) + "='" + text + "'";
  }
  // On the command line too: every flag at its default plans what the same
  // values give in process, through the rules that tie options together
  // (OptionsFromValues, as for Python's keywords): what differs from the
  // defaults there is spelled out for the plain run.
  std::vector<std::pair<std::string, OptionValue>> values;
  for (const OptionSpec* spec : LoaderOptionTable())
    values.emplace_back(std::string(spec->name()), spec->Get(defaults));
  const LoaderOptions given = OptionsFromValues(values);
  std::string differences;
  for (const OptionSpec* spec : LoaderOptionTable()) {
    if (spec->Get(given) == spec->Get(defaults)) continue;
    differences += ' ';
    differences += Flag(*spec) + "='" + spec->Text(given) + "'";
  }
  const auto plain = RunSegfeed(kPlan + differences, testing::Streams::kStdoutOnly);
  const auto spelled = RunSegfeed(kPlan + every_default, testing::Streams::kStdoutOnly);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(spelled.exit_code, 0) << spelled.output << every_default;
  EXPECT_EQ(spelled.output, plain.output) << every_default;
}

TEST(CliOptionsTest, BoolOptionsHaveANoFlag) {
  for (const OptionSpec* spec : LoaderOptionTable()) {
    if (spec->kind() != OptionKind::kBool) continue;
    for (const std::string& form : {Flag(*spec), "--no-" + std::string(spec->flag()),
                                    Flag(*spec) + "=true", Flag(*spec) + "=false"}) {
      // normalize on needs a float dtype, which is the default.
      const auto r = RunSegfeed(kPlan + " " + form);
      EXPECT_EQ(r.exit_code, 0) << form << "\n" << r.output;
    }
  }
}

}  // namespace
}  // namespace segfeed
