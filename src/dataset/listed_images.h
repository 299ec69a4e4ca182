#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "dataset/list_file.h"

namespace segfeed::dataset {

// The images a list's pairs use, by device and inode: an image named again
// under a spelling no text comparison sees ("a/../a", a symbolic or a hard
// link) would be a second sample of the same file, streamed twice an epoch,
// so it is the error a key listed twice is, naming both lines. Only files
// already found inside the root (or allowed outside it) are looked at.
// Masks are not compared: several images may share one (a blank mask for
// every negative), as they may when the mask is spelled the same.
class ListedImages {
 public:
  // `keys`: a list of keys, whose lines are named "the image of 'key'";
  // else a list of paths, named by the image's path as written.
  ListedImages(const std::filesystem::path& list, bool keys) : list_(list.string()), keys_(keys) {}

  // Throws ConfigError when `path` is a file an earlier line's image was.
  // A file that cannot be stat'ed (a dangling link) is left to the reader,
  // which names it.
  void Add(const std::filesystem::path& path, const ListEntry& entry);

 private:
  std::string Named(std::string_view written) const;

  std::string list_;
  bool keys_;
  // (device, inode) -> (line, the image's path or key as written).
  std::map<std::pair<dev_t, ino_t>, std::pair<int, std::string_view>> seen_;
};

}  // namespace segfeed::dataset
