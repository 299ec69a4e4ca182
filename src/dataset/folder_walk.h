#pragma once

// The names in a dataset's folders, read once and sorted, so that pairing
// is independent of the file system's iteration order.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "segfeed/dataset.h"

namespace segfeed::dataset {

// The names in one folder, compactly (one string table, as memory grows
// with the dataset) and sorted bytewise.
class FolderNames {
 public:
  // Throws FileError (io_error) naming `folder` when it cannot be listed,
  // or naming an entry whose type needs a stat(2) that fails other than as
  // a dangling symlink does. Lists through FileSystemInUse().
  explicit FolderNames(const std::filesystem::path& folder);

  size_t size() const { return order_.size(); }
  // The k-th name in sorted order.
  std::string_view Name(size_t k) const { return Raw(order_[k]); }
  // Whether it is a folder (symlinks followed; a dangling one is a file).
  bool IsFolder(size_t k) const { return is_folder_[order_[k]]; }

 private:
  std::string_view Raw(size_t i) const;

  std::string table_;
  std::vector<size_t> ends_;
  std::vector<bool> is_folder_;
  std::vector<size_t> order_;
};

// One folder of a walk: its path below the walk's top ("" for the top,
// "train/aachen") and its names.
struct WalkedFolder {
  std::string relative;
  FolderNames names;
};

// A folder and, when `recursive`, every folder below it that is not hidden
// (a name starting with '.'), in sorted order of `relative`. A folder
// reached twice through symlinks is walked once; one nested deeper than
// kMaxWalkDepth is ignored. Throws FileError (io_error) naming a folder it
// cannot stat or list.
class FolderWalk {
 public:
  static constexpr int kMaxWalkDepth = 64;

  FolderWalk(const std::filesystem::path& top, bool recursive);

  const std::vector<WalkedFolder>& folders() const { return folders_; }
  // Sub-folders a recursive walk did not enter and why ("walked already
  // through another path", "deeper than 64 folders"); hidden ones and those
  // of a walk that is not recursive are among the names, for the caller.
  const std::vector<IgnoredFile>& skipped() const { return skipped_; }

 private:
  std::vector<WalkedFolder> folders_;
  std::vector<IgnoredFile> skipped_;
};

}  // namespace segfeed::dataset
