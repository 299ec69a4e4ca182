#include "source/file_system.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace segfeed::source {
namespace {

class PosixFileSystem final : public FileSystem {
 public:
  int Open(const char* path, int flags, mode_t mode) override { return ::open(path, flags, mode); }
  int Fstat(int fd, struct stat* info) override { return ::fstat(fd, info); }
  int Stat(const char* path, struct stat* info) override { return ::stat(path, info); }
  ssize_t Read(int fd, void* buffer, size_t bytes) override { return ::read(fd, buffer, bytes); }
  ssize_t Pread(int fd, void* buffer, size_t bytes, off_t offset) override {
    return ::pread(fd, buffer, bytes, offset);
  }
  ssize_t Write(int fd, const void* buffer, size_t bytes) override {
    return ::write(fd, buffer, bytes);
  }
  int Fchmod(int fd, mode_t mode) override { return ::fchmod(fd, mode); }
  int Fsync(int fd) override { return ::fsync(fd); }
  int Close(int fd) override { return ::close(fd); }
  int Rename(const char* from, const char* to) override { return ::rename(from, to); }
  int Unlink(const char* path) override { return ::unlink(path); }
  DIR* OpenDir(const char* path) override { return ::opendir(path); }
  struct dirent* ReadDir(DIR* dir) override {
    return ::readdir(dir);
  }
  int CloseDir(DIR* dir) override { return ::closedir(dir); }
  int Mkdir(const char* path, mode_t mode) override { return ::mkdir(path, mode); }
  int Flock(int fd, int operation) override { return ::flock(fd, operation); }
  int Futimens(int fd, const struct timespec times[2]) override { return ::futimens(fd, times); }
  ssize_t Pwrite(int fd, const void* buffer, size_t bytes, off_t offset) override {
    return ::pwrite(fd, buffer, bytes, offset);
  }
};

// Null: the default. Acquire/release so that a replacement made before the
// threads that use it start is seen whole by them.
std::atomic<FileSystem*> replacement{nullptr};

}  // namespace

std::string_view FileTypeName(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a file of an unknown kind";
}

FileSystem& DefaultFileSystem() {
  static PosixFileSystem posix;
  return posix;
}

FileSystem& FileSystemInUse() {
  FileSystem* replaced = replacement.load(std::memory_order_acquire);
  return replaced ? *replaced : DefaultFileSystem();
}

FileSystemOverrideForTesting::FileSystemOverrideForTesting(FileSystem* replacement_fs) {
  FileSystem* expected = nullptr;
  if (!replacement.compare_exchange_strong(expected, replacement_fs, std::memory_order_acq_rel)) {
    std::fputs("FileSystemOverrideForTesting: a file system is already replaced\n", stderr);
    std::abort();
  }
}

FileSystemOverrideForTesting::~FileSystemOverrideForTesting() {
  replacement.store(nullptr, std::memory_order_release);
}

}  // namespace segfeed::source
