#include "dataset/file_names.h"

#include <algorithm>

namespace segfeed::dataset {
namespace {

// ASCII lower case only: extensions are ASCII, and the rest of a name is
// compared bytewise so UTF-8 names are never touched.
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EndsWithIgnoringCase(std::string_view name, const std::string& suffix) {
  if (name.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), name.end() - suffix.size(),
                    [](char a, char b) { return LowerAscii(a) == LowerAscii(b); });
}

// The length of `name` without the first extension in `extensions` it ends
// with (case insensitive); 0 when none matches or nothing is left.
size_t LengthWithoutExtension(std::string_view name, const std::vector<std::string>& extensions) {
  for (const std::string& extension : extensions) {
    if (name.size() > extension.size() && EndsWithIgnoringCase(name, extension)) {
      return name.size() - extension.size();
    }
  }
  return 0;
}

}  // namespace

size_t KeyLength(std::string_view name, std::string_view suffix,
                 const std::vector<std::string>& extensions) {
  const size_t base = LengthWithoutExtension(name, extensions);
  if (base <= suffix.size() || name.substr(base - suffix.size(), suffix.size()) != suffix) return 0;
  return base - suffix.size();
}

}  // namespace segfeed::dataset
