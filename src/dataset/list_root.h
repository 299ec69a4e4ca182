#pragma once

// The folder a two-column list's paths are relative to, and the rule that
// keeps every listed file inside it: a list is text anyone may have
// written, and it must not turn the loader (or `segfeed check`) into a
// reader of files elsewhere on the machine.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace segfeed::dataset {

class ListRoot {
 public:
  // `root` as the spec gives it (relative to the working folder or
  // absolute; empty: the working folder). Resolves it once, symbolic links
  // included.
  explicit ListRoot(std::filesystem::path root);

  const std::filesystem::path& path() const { return root_; }

  // Why the file `written` (a list line's path, as written) names would
  // lie outside the root, or nullopt when it lies inside: "is absolute, not
  // under the dataset root R", "leaves the dataset root R" (its lexical
  // normal form starts with ".."), "is a symlink to T, outside the dataset
  // root R", "goes through F, a symlink to T, outside the dataset root R" (a
  // linked folder on the way) or "resolves to T, outside the dataset root R"
  // (".." after a link), R being the root as given. A
  // symbolic link that resolves inside the root is fine, and so is a dangling
  // one whose target would be inside. Reads only the file system's links
  // (lstat, readlink), never a file.
  std::optional<std::string> Outside(std::string_view written) const;

 private:
  std::filesystem::path root_;      // as given, for messages and joining
  std::filesystem::path resolved_;  // absolute, links and ".." resolved
};

}  // namespace segfeed::dataset
