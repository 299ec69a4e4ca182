#pragma once

// The file system as the library reads and writes it: every open, stat,
// read, pread, write, fsync, rename and folder listing of the reading stage, the
// dataset listing, the output files and the local cache (disk_cache.h) goes
// through FileSystemInUse(), so
// that a test can make any one of those calls fail (tests/source/
// fault_injecting_file_system.h) and check that nothing else is lost. In
// the style of LevelDB's Env, but internal: the public API never shows it.
//
// Production uses the POSIX calls; the cost is one virtual call per system
// call, nothing per byte.

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <string_view>

namespace segfeed::source {

// The system calls, with their POSIX contracts: -1 (or nullptr) with errno
// set on failure. Implementations are thread-safe.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual int Open(const char* path, int flags, mode_t mode) = 0;
  virtual int Fstat(int fd, struct stat* info) = 0;
  virtual int Stat(const char* path, struct stat* info) = 0;
  virtual ssize_t Read(int fd, void* buffer, size_t bytes) = 0;
  // pread(2): reads at `offset` without moving the file position, so that
  // several threads can read one open shard at once.
  virtual ssize_t Pread(int fd, void* buffer, size_t bytes, off_t offset) = 0;
  virtual ssize_t Write(int fd, const void* buffer, size_t bytes) = 0;
  virtual int Fchmod(int fd, mode_t mode) = 0;
  virtual int Fsync(int fd) = 0;
  // The descriptor is released even when it fails (Linux): never retried.
  virtual int Close(int fd) = 0;
  virtual int Rename(const char* from, const char* to) = 0;
  virtual int Unlink(const char* path) = 0;
  // readdir(3): nullptr at the end with errno untouched, nullptr with errno
  // set on failure.
  virtual DIR* OpenDir(const char* path) = 0;
  virtual struct dirent* ReadDir(DIR* dir) = 0;
  virtual int CloseDir(DIR* dir) = 0;
  // The calls the local cache (disk_cache.h) adds: its folders, the lock
  // that several processes sharing one cache folder take (flock(2)), the
  // use times its eviction order reads (futimens(2)), and its tally, written
  // in place.
  virtual int Mkdir(const char* path, mode_t mode) = 0;
  virtual int Flock(int fd, int operation) = 0;
  virtual int Futimens(int fd, const struct timespec times[2]) = 0;
  virtual ssize_t Pwrite(int fd, const void* buffer, size_t bytes, off_t offset) = 0;
};

// What kind of file `mode` (st_mode) describes, for messages about a file
// that is not what was expected: "a regular file", "a folder", "a FIFO", "a
// character device", "a block device", "a socket", "a symbolic link".
std::string_view FileTypeName(mode_t mode);

// The POSIX functions themselves.
FileSystem& DefaultFileSystem();

// What the library calls: DefaultFileSystem() unless a test replaced it.
FileSystem& FileSystemInUse();

// Replaces the file system of the whole process for this object's lifetime,
// for tests only: it is internal (never exported by libsegfeed, so neither
// users nor the Python package can reach it), replacements do not nest
// (a second one while one is active aborts), and it must be made and
// destroyed while no loader, checker or writer is running.
class FileSystemOverrideForTesting {
 public:
  explicit FileSystemOverrideForTesting(FileSystem* replacement);
  FileSystemOverrideForTesting(const FileSystemOverrideForTesting&) = delete;
  FileSystemOverrideForTesting& operator=(const FileSystemOverrideForTesting&) = delete;
  ~FileSystemOverrideForTesting();
};

}  // namespace segfeed::source
