#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.h"
#include "segfeed/dataset.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::cli {

// The flags bench, check, preview and plan share, so each spells a dataset
// and an option the same way.

// --data ROOT and one flag per DatasetOptionTable() entry (--dataset,
// --split, --images, --masks, --list, ...), under "dataset:".
class DatasetFlags {
 public:
  explicit DatasetFlags(CommandLine& cli);

  // True when the command line names a dataset.
  bool given() const { return data_ || !values_.empty(); }
  // The dataset the flags name (DatasetFromValues()); UsageError naming the
  // flags when they are contradictory or there are none. Made once (after
  // parsing) and kept: a shard dataset in object storage fetches its index
  // when its spec is made, and a command asks for the spec several times.
  const DatasetSpec& Spec() const;
  // Each folder or file flag given, with its value: {"--data", DIR}, ...
  std::vector<std::pair<std::string, std::string>> Folders() const;

 private:
  std::optional<std::string> data_;
  // (keyword, text) of each table flag given.
  std::vector<std::pair<std::string, std::string>> values_;
  mutable std::optional<DatasetSpec> spec_;
};

// One option-table entry made into a CLI11 flag.
struct TableFlag {
  const OptionSpec* spec;
  CLI::Option* option;
};

// The flag of one option-table entry, as LoaderFlags makes each: --<flag>
// (and --<name with dashes> where that differs), --no-<flag> for a bool,
// under the entry's group with its doc, what it accepts and its default.
TableFlag AddTableFlag(CommandLine& cli, const OptionSpec& spec);

// A library message about the option whose flag is `flag`, in the command
// line's words: every option keyword in it becomes its flag (flag_of), and
// it is led by `flag` ("--scale's min must be ...", or "--flag: ..." when
// the message does not start with it).
std::string FlagMessage(const std::string& flag, const std::string& message,
                        const std::function<std::string(const OptionSpec&)>& flag_of);

// Parses every flag of `flags` given on the command line into `options`; a
// bad value is the UsageError FlagMessage(flag_of(spec), the table's message).
void ParseGivenFlags(std::span<const TableFlag> flags, LoaderOptions& options,
                     const std::function<std::string(const OptionSpec&)>& flag_of);

// One flag per entry of LoaderOptionTable(), made from the entry: --<flag>
// (and --<name with dashes> where that differs: --batch-size), for bool
// options also --no-<flag>, listed under the entry's group (loader:,
// augment:, decode:) with its doc, what it accepts and its default. A value
// goes through the entry's Parse(), and a mistake is the UsageError
// "--<flag>: <the table's message>". Beside them, the conveniences that are
// not options: --shard r/N|auto, --no-augment, --no-color and --no-shuffle
// (--shuffle none, as when shuffle was a bool).
class LoaderFlags {
 public:
  explicit LoaderFlags(CommandLine& cli);

  // The options on the command line, on top of the defaults (the options
  // `dataset`'s layout implies, --no-augment and --no-color first, then
  // every option given, then --shard), checked as the Loader checks them.
  LoaderOptions Options(const DatasetSpec& dataset) const;
  // Whether the option named `name` (its keyword, "batch_size") was given.
  bool Given(std::string_view name) const;
  bool no_augment() const { return no_augment_; }
  bool no_color() const { return no_color_; }
  // Validates `options` as the Loader would (ValidateLoaderOptions), for a
  // command that changes them after Options(); a ConfigError becomes a
  // UsageError led by the flag that sets the field, or by `dataset`'s
  // preset where the value is the preset's and the flag was not given.
  void Check(const LoaderOptions& options, const DatasetSpec& dataset) const;

 private:
  // "--<flag>" of `spec`, or "--shard" for the fields --shard set.
  std::string FlagOf(const OptionSpec& spec) const;

  std::vector<TableFlag> flags_;
  CLI::Option* shard_ = nullptr;
  CLI::Option* no_shuffle_ = nullptr;  // --no-shuffle: shuffle none
  bool no_augment_ = false;
  bool no_color_ = false;
};

// The entries of LoaderOptionTable() that say how a mask file's values are
// read (mask_mode, num_classes, mask_ignore_value, ignore_index, label_map,
// mask_colors, class_names, mask_foreground, mask_threshold), made into flags as LoaderFlags makes
// them, for a command that reads masks without building a Loader (check).
class MaskFlags {
 public:
  explicit MaskFlags(CommandLine& cli);

  // `decode` with the options `dataset`'s layout implies and then the
  // flags given set on it, checked as the decoders check them; a mistake is
  // the UsageError "--<flag>: <the table's message>".
  DecodeOptions Apply(const DecodeOptions& decode, const DatasetSpec& dataset) const;

 private:
  std::vector<TableFlag> flags_;
};

}  // namespace segfeed::cli
