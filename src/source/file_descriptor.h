#pragma once

#include "source/file_system.h"

namespace segfeed::source {

// An open file descriptor, closed by the destructor on every path that does
// not close it explicitly with Close() (which reports the error).
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) FileSystemInUse().Close(fd_);
  }
  int get() const { return fd_; }
  // False with errno set when close(2) fails: on NFS, for one, that is
  // where a failed write shows.
  bool Close() {
    const int fd = fd_;
    fd_ = -1;
    return FileSystemInUse().Close(fd) == 0;
  }

 private:
  int fd_;
};

}  // namespace segfeed::source
