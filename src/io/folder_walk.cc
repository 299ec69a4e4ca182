#include "io/folder_walk.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <system_error>
#include <utility>

namespace segfeed::internal {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void FailToList(const fs::path& folder, const std::error_code& error) {
  throw FileError(
      Error{ErrorKind::kIoError, folder.string(), "cannot list folder: " + error.message()});
}

}  // namespace

FolderNames::FolderNames(const fs::path& folder) {
  std::error_code error;
  fs::directory_iterator it(folder, error);
  if (error) FailToList(folder, error);
  for (; it != fs::directory_iterator(); it.increment(error)) {
    // status() follows symlinks; a dangling one has no status and is kept
    // as a file, so that reading it later reports it by name.
    std::error_code status_error;
    const bool is_folder = it->is_directory(status_error) && !status_error;
    table_.append(it->path().filename().native());
    ends_.push_back(table_.size());
    is_folder_.push_back(is_folder);
  }
  if (error) FailToList(folder, error);
  order_.resize(ends_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [this](size_t a, size_t b) { return Raw(a) < Raw(b); });
}

std::string_view FolderNames::Raw(size_t i) const {
  const size_t begin = i == 0 ? 0 : ends_[i - 1];
  return std::string_view(table_).substr(begin, ends_[i] - begin);
}

FolderWalk::FolderWalk(const fs::path& top, bool recursive) {
  // (device, inode) of every folder walked: a symlink back up the tree would
  // otherwise make the walk endless.
  std::set<std::pair<dev_t, ino_t>> seen;
  struct Pending {
    std::string relative;
    int depth;
  };
  std::vector<Pending> pending = {{"", 0}};
  while (!pending.empty()) {
    Pending next = std::move(pending.back());
    pending.pop_back();
    const fs::path path = next.relative.empty() ? top : top / next.relative;
    struct stat info {};
    if (recursive && ::stat(path.c_str(), &info) == 0 &&
        !seen.insert({info.st_dev, info.st_ino}).second) {
      skipped_.push_back({path, "walked already through another path"});
      continue;
    }
    WalkedFolder folder{next.relative, FolderNames(path)};
    const FolderNames& names = folder.names;
    // Pushed in reverse so that the stack pops them in sorted order.
    for (size_t k = names.size(); recursive && k-- > 0;) {
      if (!names.IsFolder(k) || names.Name(k).front() == '.') continue;
      const std::string child = next.relative.empty()
                                    ? std::string(names.Name(k))
                                    : next.relative + "/" + std::string(names.Name(k));
      if (next.depth + 1 > kMaxWalkDepth) {
        skipped_.push_back({top / child, "deeper than 64 folders"});
      } else {
        pending.push_back({child, next.depth + 1});
      }
    }
    folders_.push_back(std::move(folder));
  }
  // Depth-first order is not the bytewise order of the relative paths
  // ("a/b" before "a-c" but '/' > '-'); sort so pairing can merge.
  std::sort(folders_.begin(), folders_.end(),
            [](const WalkedFolder& a, const WalkedFolder& b) { return a.relative < b.relative; });
}

}  // namespace segfeed::internal
