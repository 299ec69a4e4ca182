#pragma once

// A file system (io/file_system.h) that counts every call by kind and fails
// the N-th call of one kind the way a test chooses, and a scratch-growth
// observer (io/scratch_growth.h) that makes the N-th growth throw
// std::bad_alloc: the tools of the fault sweeps. Thread-safe.

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "source/file_system.h"
#include "source/scratch_growth.h"

namespace segfeed::testing {

enum class FileCall {
  kOpen,
  kFstat,
  kStat,
  kRead,
  kWrite,
  kFchmod,
  kFsync,
  kClose,
  kRename,
  kUnlink,
  kOpenDir,
  kReadDir,
  kCloseDir,
  kPread,
  kMkdir,
  kFlock,
  kFutimens,
  kPwrite,
};
inline constexpr int kFileCallKinds = 18;
std::string_view FileCallName(FileCall call);

// What the chosen call does instead of its work.
struct Fault {
  enum class Kind {
    kErrno,          // fails with `error` (a close or closedir still releases it)
    kShortTransfer,  // a read or write moves half the bytes asked (at least one)
    kEarlyEnd,       // a read returns 0: the file ends before its stat'ed size
  };
  Kind kind = Kind::kErrno;
  int error = 0;
};
// "EIO", "short transfer", "early end", for messages.
std::string FaultName(const Fault& fault);

class FaultInjectingFileSystem final : public source::FileSystem {
 public:
  // Counts from zero; fails the `nth` (1-based) call of `call` from now on.
  void Arm(FileCall call, int64_t nth, Fault fault);
  // Counts from zero and fails nothing.
  void Disarm();
  // Counts (and fails) only the calls about paths starting with `prefix`
  // (all when empty): an output folder's, say, and not the dataset's.
  // Set while nothing runs.
  void CountOnlyUnder(std::string prefix) { prefix_ = std::move(prefix); }

  int64_t calls(FileCall call) const { return counts_[static_cast<size_t>(call)].load(); }
  bool fired() const { return fired_.load(); }
  // The file or folder the failed call was about.
  std::string faulted_path() const;

  int Open(const char* path, int flags, mode_t mode) override;
  int Fstat(int fd, struct stat* info) override;
  int Stat(const char* path, struct stat* info) override;
  ssize_t Read(int fd, void* buffer, size_t bytes) override;
  ssize_t Pread(int fd, void* buffer, size_t bytes, off_t offset) override;
  ssize_t Write(int fd, const void* buffer, size_t bytes) override;
  int Fchmod(int fd, mode_t mode) override;
  int Fsync(int fd) override;
  int Close(int fd) override;
  int Rename(const char* from, const char* to) override;
  int Unlink(const char* path) override;
  DIR* OpenDir(const char* path) override;
  struct dirent* ReadDir(DIR* dir) override;
  int CloseDir(DIR* dir) override;
  int Mkdir(const char* path, mode_t mode) override;
  int Flock(int fd, int operation) override;
  int Futimens(int fd, const struct timespec times[2]) override;
  ssize_t Pwrite(int fd, const void* buffer, size_t bytes, off_t offset) override;

 private:
  // Counts the call; true (with the path recorded) when it is the one to fail.
  bool Counts(FileCall call, const std::string& path);
  std::string PathOf(int fd) const;
  std::string PathOf(DIR* dir) const;

  source::FileSystem& real_ = source::DefaultFileSystem();
  std::string prefix_;
  std::array<std::atomic<int64_t>, kFileCallKinds> counts_{};
  std::atomic<bool> armed_{false};
  FileCall armed_call_ = FileCall::kOpen;
  int64_t armed_nth_ = 0;
  Fault fault_;
  std::atomic<bool> fired_{false};
  mutable std::mutex mu_;
  std::string faulted_path_;
  std::map<int, std::string> fd_paths_;
  std::map<DIR*, std::string> dir_paths_;
};

// Makes the N-th growth of a decode buffer throw std::bad_alloc.
class FailingScratchGrowth final : public source::ScratchGrowthObserverForTesting {
 public:
  // Counts from zero; `nth` 0 fails nothing.
  void Arm(int64_t nth) {
    fired_ = false;
    growths_ = 0;
    nth_ = nth;
  }
  int64_t growths() const { return growths_.load(); }
  bool fired() const { return fired_.load(); }

  void BeforeGrowth(size_t bytes) override;

 private:
  std::atomic<int64_t> growths_{0};
  std::atomic<int64_t> nth_{0};
  std::atomic<bool> fired_{false};
};

// Open file descriptors of this process (/proc/self/fd), for leak checks.
int CountOpenFileDescriptors();

}  // namespace segfeed::testing
