#include "io/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/file_descriptor.h"
#include "io/file_system.h"
#include "io/format_sniffer.h"
#include "io/scratch_growth.h"

namespace segfeed::internal {
namespace {

Error IoError(const std::filesystem::path& path, const std::string& detail) {
  return Error{ErrorKind::kIoError, path.string(), detail};
}

}  // namespace

Result<std::span<const uint8_t>> FileReader::Read(const std::filesystem::path& path,
                                                  std::optional<SniffedFormat> expected,
                                                  std::optional<SniffedFormat> also) {
  FileSystem& file_system = FileSystemInUse();
  // open(2) follows symlinks; a dangling one fails here with ENOENT.
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever;
  // for regular files it changes nothing.
  int opened = -1;
  do {
    opened = file_system.Open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  } while (opened < 0 && errno == EINTR);
  FileDescriptor fd(opened);
  if (fd.get() < 0) return IoError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  int stat_result = 0;
  do {
    stat_result = file_system.Fstat(fd.get(), &info);
  } while (stat_result != 0 && errno == EINTR);
  if (stat_result != 0) return IoError(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return IoError(path, "not a regular file");
  const size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) return Error{ErrorKind::kEmptyFile, path.string(), "file is empty (0 bytes)"};
  if (info.st_size > max_bytes_) {
    return Error{ErrorKind::kTooLarge, path.string(),
                 "file is " + std::to_string(info.st_size) +
                     " bytes, more than max_file_bytes = " + std::to_string(max_bytes_)};
  }

  // read(2) may return fewer bytes than asked (signals, network file
  // systems): reading goes on until `want` bytes are in. Only a return of 0
  // means the file ended early: it shrank since fstat(2), an io_error (a
  // re-stat could read a file being rewritten half old, half new).
  size_t done = 0;
  const auto read_until = [&](uint8_t* into, size_t want) -> Status {
    while (done < want) {
      const ssize_t n = file_system.Read(fd.get(), into + done, want - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return IoError(path, std::string("cannot read: ") + std::strerror(errno));
      }
      if (n == 0) {
        return IoError(path, "file shrank while reading (read " + std::to_string(done) + " of " +
                                 std::to_string(size) + " bytes)");
      }
      done += static_cast<size_t>(n);
    }
    return {};
  };
  if (expected) {
    // The first bytes say what the file is: a file of the wrong kind is
    // refused before a buffer of its size is allocated. A failed read is
    // the read's error, never a verdict on bytes that were not read.
    uint8_t head[kSniffBytes];
    if (Status status = read_until(head, std::min(size, sizeof head)); !status.ok())
      return status.error();
    const std::span<const uint8_t> first(head, done);
    const SniffedFormat found = SniffFormat(first);
    if (found != *expected && (!also || found != *also)) {
      return Error{ErrorKind::kUnsupportedFormat, path.string(),
                   "not a " + std::string(FormatName(*expected)) +
                       (also ? " or " + std::string(FormatName(*also)) : std::string()) +
                       " file (" + DescribeContent(first) + ")"};
    }
    ResizeScratch(&buffer_, size);
    std::memcpy(buffer_.data(), head, done);
  } else {
    ResizeScratch(&buffer_, size);
  }
  // resize() never shrinks the capacity, so a file no larger than the
  // largest one seen before costs no allocation and no fresh pages.
  if (Status status = read_until(buffer_.data(), size); !status.ok()) return status.error();
  return std::span<const uint8_t>(buffer_.data(), size);
}

void FileReader::Shrink(size_t keep_bytes) {
  if (buffer_.capacity() > keep_bytes) std::vector<uint8_t>().swap(buffer_);
}

}  // namespace segfeed::internal
