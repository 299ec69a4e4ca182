#include "output/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>

#include "output/utf8.h"
#include "source/file_descriptor.h"
#include "source/file_system.h"

namespace segfeed::output {
namespace {

namespace fs = std::filesystem;

Error IoError(const fs::path& path, std::string detail) {
  return Error{ErrorKind::kIoError, path.string(), std::move(detail)};
}

std::string ErrnoText() { return std::strerror(errno); }

// The folder a file is in; "." for a bare name.
fs::path FolderOf(const fs::path& file) {
  const fs::path folder = file.parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

// 'path', for messages. Appending piecewise sidesteps a false -Wrestrict in
// GCC 12 for "'" + s.
std::string Quoted(const fs::path& path) {
  std::string text = "'";
  text += path.string();
  text += "'";
  return text;
}

// Checks that `folder` exists, is a folder and lets us create files in it.
// The reason names the folder.
std::optional<std::string> UnwritableFolderReason(const fs::path& folder) {
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0) {
    if (errno == ENOENT) return "folder " + Quoted(folder) + " does not exist";
    return "cannot use folder " + Quoted(folder) + ": " + ErrnoText();
  }
  if (!S_ISDIR(info.st_mode)) return Quoted(folder) + " is not a folder";
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return "cannot write in folder " + Quoted(folder) + ": " + ErrnoText();
  }
  return std::nullopt;
}

// stdout or stderr when `info` describes the file that stream writes to.
std::FILE* StreamWritingTo(const struct stat& info) {
  for (auto [fd, stream] : {std::pair{STDOUT_FILENO, stdout}, std::pair{STDERR_FILENO, stderr}}) {
    struct stat stream_info {};
    if (::fstat(fd, &stream_info) == 0 && stream_info.st_dev == info.st_dev &&
        stream_info.st_ino == info.st_ino) {
      return stream;
    }
  }
  return nullptr;
}

// Calls `call` again while a signal interrupts it (-1 with EINTR). Not for
// close(2): Linux releases the descriptor even then, so a retry could close
// another thread's.
template <typename Call>
int RetryOnSignal(Call call) {
  int result = 0;
  do {
    result = call();
  } while (result == -1 && errno == EINTR);
  return result;
}

// Writes all of `bytes`, resuming after short writes and signals; false
// with errno set on failure.
bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = source::FileSystemInUse().Write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// A hidden file beside the target with a name no other run uses, removed by
// the destructor unless it was renamed into place.
class TemporaryFile {
 public:
  explicit TemporaryFile(const fs::path& target) : fd_(CreateBeside(target, &path_)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!path_.empty()) source::FileSystemInUse().Unlink(path_.c_str());
  }

  bool is_open() const { return fd_.get() >= 0; }
  int fd() const { return fd_.get(); }
  // Closes the file and renames it to `target`; false with errno set if
  // either fails (the destructor then removes the file).
  bool CloseAndRenameTo(const fs::path& target) {
    if (!fd_.Close() || RetryOnSignal([&] {
                          return source::FileSystemInUse().Rename(path_.c_str(), target.c_str());
                        }) != 0)
      return false;
    path_.clear();
    return true;
  }

 private:
  // Creates ".<target name>.<pid>-<random>.tmp" in the target's folder,
  // the target name cut to keep the whole within NAME_MAX (a target name
  // may use all 255 bytes); the descriptor, or -1 with errno set and `path`
  // empty.
  static int CreateBeside(const fs::path& target, fs::path* path) {
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
      char suffix[40];
      std::snprintf(suffix, sizeof suffix, ".%d-%08x.tmp", static_cast<int>(::getpid()), entropy());
      const std::string target_name = target.filename().string();
      std::string name = ".";
      name += Utf8Prefix(target_name, NAME_MAX - name.size() - std::strlen(suffix));
      name += suffix;
      *path = FolderOf(target) / name;
      // 0666 before the umask: the permissions a new file gets anyway.
      const int fd = RetryOnSignal([&] {
        return source::FileSystemInUse().Open(path->c_str(),
                                              O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      });
      if (fd >= 0) return fd;
      if (errno != EEXIST) break;
    }
    path->clear();
    return -1;
  }

  fs::path path_;  // empty once renamed, or when it could not be created
  source::FileDescriptor fd_;
};

// `path` made absolute with symbolic links, "." and ".." resolved as far as
// it exists, and without a trailing separator.
fs::path Resolved(const fs::path& path) {
  std::error_code error;
  fs::path resolved = fs::weakly_canonical(fs::absolute(path, error), error);
  if (error) resolved = fs::absolute(path, error).lexically_normal();
  if (!resolved.has_filename() && resolved != resolved.root_path())
    resolved = resolved.parent_path();
  return resolved;
}

bool IsSameOrBelow(const fs::path& path, const fs::path& folder) {
  return std::mismatch(folder.begin(), folder.end(), path.begin(), path.end()).first ==
         folder.end();
}

}  // namespace

Result<OutputFile> OutputFile::Prepare(const fs::path& path) {
  if (path.empty()) return IoError(path, "empty path");
  OutputFile file;
  file.path_ = path;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return IoError(path, "is a folder");
    if (std::FILE* stream = StreamWritingTo(info)) {
      file.kind_ = Kind::kStream;
      file.stream_ = stream;
      return file;
    }
    if (::access(path.c_str(), W_OK) != 0) return IoError(path, "cannot write: " + ErrnoText());
    if (!S_ISREG(info.st_mode)) {
      file.kind_ = Kind::kDirect;  // renaming over a device would replace it
      return file;
    }
    std::error_code error;
    file.target_ = fs::canonical(path, error);
    if (error) return IoError(path, "cannot resolve: " + error.message());
    file.existing_mode_ = info.st_mode & 07777;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    file.target_ = path;  // the folder check below says what is missing
  } else {
    return IoError(path, "cannot write: " + ErrnoText());
  }
  if (auto reason = UnwritableFolderReason(FolderOf(file.target_))) return IoError(path, *reason);
  return file;
}

Status OutputFile::Write(std::string_view bytes) const {
  switch (kind_) {
    case Kind::kReplace:
      return Replace(bytes);
    case Kind::kDirect:
      return WriteDirectly(bytes);
    case Kind::kStream:
      return WriteStream(bytes);
  }
  return IoError(path_, "unknown output kind");
}

Status OutputFile::Replace(std::string_view bytes) const {
  TemporaryFile temp(target_);
  if (!temp.is_open())
    return IoError(path_, "cannot create a temporary file beside it: " + ErrnoText());
  // fsync before the rename: after a crash the name holds either the old
  // content or the whole new one, never an empty file.
  source::FileSystem& file_system = source::FileSystemInUse();
  const bool written = WriteAll(temp.fd(), bytes) &&
                       (!existing_mode_ || RetryOnSignal([&] {
                                             return file_system.Fchmod(temp.fd(), *existing_mode_);
                                           }) == 0) &&
                       RetryOnSignal([&] { return file_system.Fsync(temp.fd()); }) == 0 &&
                       temp.CloseAndRenameTo(target_);
  if (!written) return IoError(path_, "cannot write: " + ErrnoText());
  return {};
}

Status OutputFile::WriteDirectly(std::string_view bytes) const {
  source::FileDescriptor fd(RetryOnSignal([&] {
    return source::FileSystemInUse().Open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY, 0);
  }));
  if (fd.get() < 0) return IoError(path_, "cannot open: " + ErrnoText());
  if (!WriteAll(fd.get(), bytes) || !fd.Close())
    return IoError(path_, "cannot write: " + ErrnoText());
  return {};
}

Status OutputFile::WriteStream(std::string_view bytes) const {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stream_) != bytes.size() ||
      std::fflush(stream_) != 0) {
    return IoError(path_, "cannot write: " + ErrnoText());
  }
  return {};
}

Status CheckOutputFolder(const fs::path& dir) {
  // The folder itself when it exists, else the closest existing one above
  // it, where create_directories() will make the rest.
  fs::path existing = dir;
  std::error_code error;
  while (!fs::exists(existing, error) && existing.has_relative_path() &&
         existing.has_parent_path()) {
    existing = existing.parent_path();
  }
  if (existing.empty() || !fs::exists(existing, error)) existing = FolderOf(existing);
  if (auto reason = UnwritableFolderReason(existing)) return IoError(dir, *reason);
  return {};
}

Status CheckOutsideFolders(const fs::path& path, const std::vector<fs::path>& folders) {
  const fs::path resolved = Resolved(path);
  for (const fs::path& folder : folders) {
    if (IsSameOrBelow(resolved, Resolved(folder))) {
      return IoError(path, "is inside the dataset folder " + Quoted(folder) +
                               "; write outputs elsewhere, never among the files being read");
    }
  }
  return {};
}

}  // namespace segfeed::output
