#pragma once

// DecodeOptions::class_names as an option of the table (OptionKind::kNames).

#include <string>
#include <string_view>

#include "options/option_kinds.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::options {

// A sequence of strings, CLI text "road,car,sky" (names at commas), or the
// path of a file of one name per line (text ending in ".txt" or holding a
// '/'). None or "none": no names.
class ClassNamesOption final : public OptionSpec {
 public:
  explicit ClassNamesOption(const Declaration& declaration) : OptionSpec(declaration) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;
};

}  // namespace segfeed::options
