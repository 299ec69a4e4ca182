#include "options/shuffle_option.h"

#include <variant>

#include "options/enum_names.h"
#include "options/option_values.h"

namespace segfeed::options {
namespace {

Shuffle& ShuffleField(LoaderOptions& options) { return options.shuffle; }

}  // namespace

ShuffleOption::ShuffleOption(const Declaration& declaration)
    : OptionSpec(declaration),
      choice_(declaration, &ShuffleField, kShuffleChoices, kShuffleChoices) {}

void ShuffleOption::Set(LoaderOptions& options, const OptionValue& value) const {
  const OptionScalar* scalar = AsScalar(value);
  if (const bool* flag = scalar ? std::get_if<bool>(scalar) : nullptr) {
    options.shuffle = *flag ? Shuffle::kGlobal : Shuffle::kNone;
    return;
  }
  choice_.Set(options, value);
}

void ShuffleOption::Parse(LoaderOptions& options, std::string_view text) const {
  choice_.Parse(options, text);  // "true" and "false" are the choices' aliases
}

OptionValue ShuffleOption::Get(const LoaderOptions& options) const { return choice_.Get(options); }

OptionValue ShuffleOption::StreamValue(const LoaderOptions& options) const {
  if (options.shuffle == Shuffle::kShards) return choice_.Get(options);
  return OptionValue(std::in_place_type<OptionScalar>, options.shuffle == Shuffle::kGlobal);
}

std::string ShuffleOption::Text(const LoaderOptions& options) const {
  return choice_.Text(options);
}

std::string ShuffleOption::Accepts() const {
  return choice_.Accepts() + " (true and false: global and none)";
}

void ShuffleOption::Check(const LoaderOptions& options) const { choice_.Check(options); }

}  // namespace segfeed::options
