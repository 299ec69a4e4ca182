#include "options/class_names_option.h"

#include <vector>

#include "options/label_files.h"
#include "options/option_values.h"

namespace segfeed::options {
namespace {

std::string Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

void ClassNamesOption::Set(LoaderOptions& options, const OptionValue& value) const {
  std::vector<std::string>& names = options.decode.class_names;
  const std::string expected = "a list of names, 'NAME,NAME,...' or a file of one name per line";
  if (std::holds_alternative<std::monostate>(value)) {
    names.clear();
    return;
  }
  std::vector<std::string> result;
  if (const OptionScalar* scalar = AsScalar(value)) {
    const auto* text = std::get_if<std::string>(scalar);
    if (!text) WrongType(name(), expected, Describe(value));
    const std::string trimmed = Trimmed(*text);
    if (trimmed.empty() || trimmed == "none") {
      names.clear();
      return;
    }
    if (LooksLikeFilePath(trimmed)) {
      result = ReadNameFile(name(), trimmed);
    } else {
      for (std::string_view entry : SplitList(trimmed)) result.push_back(Trimmed(entry));
    }
  } else {
    for (const OptionScalar& item : std::get<std::vector<OptionScalar>>(value)) {
      const auto* text = std::get_if<std::string>(&item);
      if (!text) WrongType(name(), expected, Describe(value));
      result.push_back(Trimmed(*text));
    }
  }
  names = std::move(result);
  Check(options);
}

void ClassNamesOption::Parse(LoaderOptions& options, std::string_view text) const {
  Set(options, OptionValue(std::in_place_type<OptionScalar>, std::string(text)));
}

OptionValue ClassNamesOption::Get(const LoaderOptions& options) const {
  const std::vector<std::string>& names = options.decode.class_names;
  if (names.empty()) return std::monostate{};
  std::vector<OptionScalar> items(names.begin(), names.end());
  return items;
}

std::string ClassNamesOption::Text(const LoaderOptions& options) const {
  std::string text;
  for (const std::string& name : options.decode.class_names)
    text += (text.empty() ? "" : ",") + name;
  return text.empty() ? "none" : text;
}

std::string ClassNamesOption::Accepts() const {
  return "NAME,... (num_classes of them), a file of one name per line (a path ending in .txt or "
         "holding a /), or none";
}

void ClassNamesOption::Check(const LoaderOptions& options) const {
  for (const std::string& class_name : options.decode.class_names) {
    // A name that is empty or holds a comma could not be given back as
    // this option's text.
    if (class_name.empty() || class_name.find(',') != std::string::npos)
      FailCheck(name(), "names without commas, none empty", Quoted(class_name));
  }
}

}  // namespace segfeed::options
