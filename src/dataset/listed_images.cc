#include "dataset/listed_images.h"

#include <sys/stat.h>

#include "segfeed/errors.h"
#include "source/file_system.h"

namespace segfeed::dataset {

void ListedImages::Add(const std::filesystem::path& path, const ListEntry& entry) {
  struct stat info {};
  if (source::FileSystemInUse().Stat(path.c_str(), &info) != 0) return;
  const auto [it, inserted] =
      seen_.try_emplace(std::pair{info.st_dev, info.st_ino}, entry.line, entry.first);
  if (inserted) return;
  throw ConfigError(list_ + ": line " + std::to_string(entry.line) + ": " + Named(entry.first) +
                    " is the same file as " + Named(it->second.second) + " on line " +
                    std::to_string(it->second.first) + " (a link, or another spelling of it)");
}

std::string ListedImages::Named(std::string_view written) const {
  // Appending piecewise sidesteps a false -Wrestrict in GCC 12 for "'" + s.
  std::string named = keys_ ? "the image of '" : "'";
  named += written;
  named += "'";
  return named;
}

}  // namespace segfeed::dataset
