#include "source/fault_injecting_file_system.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

namespace segfeed::testing {

std::string_view FileCallName(FileCall call) {
  switch (call) {
    case FileCall::kOpen:
      return "open";
    case FileCall::kFstat:
      return "fstat";
    case FileCall::kStat:
      return "stat";
    case FileCall::kRead:
      return "read";
    case FileCall::kWrite:
      return "write";
    case FileCall::kFchmod:
      return "fchmod";
    case FileCall::kFsync:
      return "fsync";
    case FileCall::kClose:
      return "close";
    case FileCall::kRename:
      return "rename";
    case FileCall::kUnlink:
      return "unlink";
    case FileCall::kOpenDir:
      return "opendir";
    case FileCall::kReadDir:
      return "readdir";
    case FileCall::kCloseDir:
      return "closedir";
    case FileCall::kPread:
      return "pread";
    case FileCall::kMkdir:
      return "mkdir";
    case FileCall::kFlock:
      return "flock";
    case FileCall::kFutimens:
      return "futimens";
    case FileCall::kPwrite:
      return "pwrite";
  }
  return "?";
}

std::string FaultName(const Fault& fault) {
  switch (fault.kind) {
    case Fault::Kind::kShortTransfer:
      return "short transfer";
    case Fault::Kind::kEarlyEnd:
      return "early end";
    case Fault::Kind::kErrno:
      break;
  }
  switch (fault.error) {
    case EIO:
      return "EIO";
    case ENOMEM:
      return "ENOMEM";
    case EACCES:
      return "EACCES";
    case ENOENT:
      return "ENOENT";
    case EINTR:
      return "EINTR";
    case ENOSPC:
      return "ENOSPC";
    default:
      return "errno " + std::to_string(fault.error);
  }
}

void FaultInjectingFileSystem::Arm(FileCall call, int64_t nth, Fault fault) {
  armed_ = false;
  for (auto& count : counts_) count = 0;
  fired_ = false;
  armed_call_ = call;
  armed_nth_ = nth;
  fault_ = fault;
  {
    std::lock_guard<std::mutex> lock(mu_);
    faulted_path_.clear();
  }
  armed_ = true;
}

void FaultInjectingFileSystem::Disarm() {
  armed_ = false;
  for (auto& count : counts_) count = 0;
  fired_ = false;
}

std::string FaultInjectingFileSystem::faulted_path() const {
  std::lock_guard<std::mutex> lock(mu_);
  return faulted_path_;
}

bool FaultInjectingFileSystem::Counts(FileCall call, const std::string& path) {
  if (path.compare(0, prefix_.size(), prefix_) != 0) return false;
  const int64_t n = ++counts_[static_cast<size_t>(call)];
  if (!armed_.load() || call != armed_call_ || n != armed_nth_) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    faulted_path_ = path;
  }
  fired_ = true;
  return true;
}

std::string FaultInjectingFileSystem::PathOf(int fd) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = fd_paths_.find(fd);
  return it == fd_paths_.end() ? std::string() : it->second;
}

std::string FaultInjectingFileSystem::PathOf(DIR* dir) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = dir_paths_.find(dir);
  return it == dir_paths_.end() ? std::string() : it->second;
}

int FaultInjectingFileSystem::Open(const char* path, int flags, mode_t mode) {
  if (Counts(FileCall::kOpen, path)) {
    errno = fault_.error;
    return -1;
  }
  const int fd = real_.Open(path, flags, mode);
  if (fd >= 0) {
    std::lock_guard<std::mutex> lock(mu_);
    fd_paths_[fd] = path;
  }
  return fd;
}

int FaultInjectingFileSystem::Fstat(int fd, struct stat* info) {
  if (Counts(FileCall::kFstat, PathOf(fd))) {
    errno = fault_.error;
    return -1;
  }
  return real_.Fstat(fd, info);
}

int FaultInjectingFileSystem::Stat(const char* path, struct stat* info) {
  if (Counts(FileCall::kStat, path)) {
    errno = fault_.error;
    return -1;
  }
  return real_.Stat(path, info);
}

ssize_t FaultInjectingFileSystem::Read(int fd, void* buffer, size_t bytes) {
  if (Counts(FileCall::kRead, PathOf(fd))) {
    switch (fault_.kind) {
      case Fault::Kind::kShortTransfer:
        return real_.Read(fd, buffer, bytes > 1 ? bytes / 2 : bytes);
      case Fault::Kind::kEarlyEnd:
        return 0;
      case Fault::Kind::kErrno:
        errno = fault_.error;
        return -1;
    }
  }
  return real_.Read(fd, buffer, bytes);
}

ssize_t FaultInjectingFileSystem::Pread(int fd, void* buffer, size_t bytes, off_t offset) {
  if (Counts(FileCall::kPread, PathOf(fd))) {
    switch (fault_.kind) {
      case Fault::Kind::kShortTransfer:
        return real_.Pread(fd, buffer, bytes > 1 ? bytes / 2 : bytes, offset);
      case Fault::Kind::kEarlyEnd:
        return 0;
      case Fault::Kind::kErrno:
        errno = fault_.error;
        return -1;
    }
  }
  return real_.Pread(fd, buffer, bytes, offset);
}

ssize_t FaultInjectingFileSystem::Write(int fd, const void* buffer, size_t bytes) {
  if (Counts(FileCall::kWrite, PathOf(fd))) {
    if (fault_.kind == Fault::Kind::kShortTransfer)
      return real_.Write(fd, buffer, bytes > 1 ? bytes / 2 : bytes);
    errno = fault_.error;
    return -1;
  }
  return real_.Write(fd, buffer, bytes);
}

int FaultInjectingFileSystem::Fchmod(int fd, mode_t mode) {
  if (Counts(FileCall::kFchmod, PathOf(fd))) {
    errno = fault_.error;
    return -1;
  }
  return real_.Fchmod(fd, mode);
}

int FaultInjectingFileSystem::Fsync(int fd) {
  if (Counts(FileCall::kFsync, PathOf(fd))) {
    errno = fault_.error;
    return -1;
  }
  return real_.Fsync(fd);
}

int FaultInjectingFileSystem::Close(int fd) {
  const std::string path = PathOf(fd);
  {
    std::lock_guard<std::mutex> lock(mu_);
    fd_paths_.erase(fd);
  }
  // Linux releases the descriptor whatever close(2) then reports.
  const int result = real_.Close(fd);
  if (Counts(FileCall::kClose, path)) {
    errno = fault_.error;
    return -1;
  }
  return result;
}

int FaultInjectingFileSystem::Rename(const char* from, const char* to) {
  if (Counts(FileCall::kRename, to)) {
    errno = fault_.error;
    return -1;
  }
  return real_.Rename(from, to);
}

int FaultInjectingFileSystem::Unlink(const char* path) {
  if (Counts(FileCall::kUnlink, path)) {
    errno = fault_.error;
    return -1;
  }
  return real_.Unlink(path);
}

DIR* FaultInjectingFileSystem::OpenDir(const char* path) {
  if (Counts(FileCall::kOpenDir, path)) {
    errno = fault_.error;
    return nullptr;
  }
  DIR* dir = real_.OpenDir(path);
  if (dir) {
    std::lock_guard<std::mutex> lock(mu_);
    dir_paths_[dir] = path;
  }
  return dir;
}

struct dirent* FaultInjectingFileSystem::ReadDir(DIR* dir) {
  if (Counts(FileCall::kReadDir, PathOf(dir))) {
    errno = fault_.error;
    return nullptr;
  }
  return real_.ReadDir(dir);
}

int FaultInjectingFileSystem::CloseDir(DIR* dir) {
  const std::string path = PathOf(dir);
  {
    std::lock_guard<std::mutex> lock(mu_);
    dir_paths_.erase(dir);
  }
  const int result = real_.CloseDir(dir);
  if (Counts(FileCall::kCloseDir, path)) {
    errno = fault_.error;
    return -1;
  }
  return result;
}

int FaultInjectingFileSystem::Mkdir(const char* path, mode_t mode) {
  if (Counts(FileCall::kMkdir, path)) {
    errno = fault_.error;
    return -1;
  }
  return real_.Mkdir(path, mode);
}

int FaultInjectingFileSystem::Flock(int fd, int operation) {
  if (Counts(FileCall::kFlock, PathOf(fd))) {
    errno = fault_.error;
    return -1;
  }
  return real_.Flock(fd, operation);
}

int FaultInjectingFileSystem::Futimens(int fd, const struct timespec times[2]) {
  if (Counts(FileCall::kFutimens, PathOf(fd))) {
    errno = fault_.error;
    return -1;
  }
  return real_.Futimens(fd, times);
}

ssize_t FaultInjectingFileSystem::Pwrite(int fd, const void* buffer, size_t bytes, off_t offset) {
  if (Counts(FileCall::kPwrite, PathOf(fd))) {
    if (fault_.kind == Fault::Kind::kShortTransfer)
      return real_.Pwrite(fd, buffer, bytes > 1 ? bytes / 2 : bytes, offset);
    errno = fault_.error;
    return -1;
  }
  return real_.Pwrite(fd, buffer, bytes, offset);
}

void FailingScratchGrowth::BeforeGrowth(size_t) {
  if (++growths_ == nth_.load()) {
    fired_ = true;
    throw std::bad_alloc();
  }
}

int CountOpenFileDescriptors() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    ++count;
  return count;
}

}  // namespace segfeed::testing
