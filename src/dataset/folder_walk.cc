#include "dataset/folder_walk.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "source/file_system.h"

namespace segfeed::dataset {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void FailToList(const fs::path& folder, int error) {
  throw FileError(Error{ErrorKind::kIoError, folder.string(),
                        std::string("cannot list folder: ") + std::strerror(error)});
}

// Closes the folder on every path out of the listing.
struct ClosesFolder {
  void operator()(DIR* dir) const { source::FileSystemInUse().CloseDir(dir); }
};

// Whether `path` is a folder, symlinks followed. A symlink to nothing (or
// through a file, or round a loop) is a file, so that reading it later
// reports it by name; any other failure to stat it throws FileError
// (io_error) naming it, since taking a folder of pairs for a file would
// lose its pairs without a word.
bool IsFolderAt(source::FileSystem& file_system, const fs::path& path) {
  struct stat info {};
  int result = 0;
  do {
    result = file_system.Stat(path.c_str(), &info);
  } while (result != 0 && errno == EINTR);
  if (result == 0) return S_ISDIR(info.st_mode);
  if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return false;
  throw FileError(
      Error{ErrorKind::kIoError, path.string(),
            std::string("cannot stat while listing its folder: ") + std::strerror(errno)});
}

}  // namespace

FolderNames::FolderNames(const fs::path& folder) {
  source::FileSystem& file_system = source::FileSystemInUse();
  DIR* opened = nullptr;
  do {
    opened = file_system.OpenDir(folder.c_str());
  } while (!opened && errno == EINTR);
  if (!opened) FailToList(folder, errno);
  const std::unique_ptr<DIR, ClosesFolder> dir(opened);
  for (;;) {
    // readdir(3) tells its end from a failure by errno alone.
    errno = 0;
    const struct dirent* entry = file_system.ReadDir(dir.get());
    if (!entry) {
      if (errno == EINTR) continue;
      if (errno != 0) FailToList(folder, errno);
      break;
    }
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    // The entry's type, when the file system gives it, costs no stat(2);
    // a symlink's is its target's.
    const bool is_folder =
        entry->d_type == DT_DIR || ((entry->d_type == DT_LNK || entry->d_type == DT_UNKNOWN) &&
                                    IsFolderAt(file_system, folder / fs::path(std::string(name))));
    table_.append(name);
    ends_.push_back(table_.size());
    is_folder_.push_back(is_folder);
  }
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
    if (recursive) {
      // A folder that cannot be stat'ed cannot be told from one walked
      // already: walking it again would list its files twice.
      struct stat info {};
      int result = 0;
      do {
        result = source::FileSystemInUse().Stat(path.c_str(), &info);
      } while (result != 0 && errno == EINTR);
      if (result != 0) FailToList(path, errno);
      if (!seen.insert({info.st_dev, info.st_ino}).second) {
        skipped_.push_back({path, "walked already through another path"});
        continue;
      }
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

}  // namespace segfeed::dataset
