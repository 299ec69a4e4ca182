#pragma once

// LoaderOptions::shuffle as an option of the table: a choice (global,
// shards, none) that still takes the bool it was before it had three
// values, in every front end and in checkpoints.

#include <span>
#include <string>
#include <string_view>

#include "options/option_kinds.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::options {

// The choices "global", "shards" and "none"; true and false (a Python
// bool, CLI text "true" and "false") are global and none. Its stream line
// keeps the bool's text for global and none ("shuffle=true"), so the
// digests of checkpoints written while shuffle was a bool still match;
// shards, which had no bool, writes "shuffle=shards".
class ShuffleOption final : public OptionSpec {
 public:
  explicit ShuffleOption(const Declaration& declaration);

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  OptionValue StreamValue(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;
  std::span<const OptionChoice> Choices() const override { return choice_.Choices(); }

 private:
  ChoiceOption<Shuffle> choice_;  // the names, their parsing and messages
};

}  // namespace segfeed::options
