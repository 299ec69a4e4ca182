#include "source/files_source.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "source/file_descriptor.h"
#include "source/file_system.h"

namespace segfeed::source {
namespace {

Error IoError(const std::filesystem::path& path, const std::string& detail) {
  return Error{ErrorKind::kIoError, path.string(), detail};
}

}  // namespace

std::filesystem::path FilesSource::MemberPath(SampleId id, Member member) const {
  SamplePair pair = pairs_[id];
  return std::move(member == Member::kImage ? pair.image_path : pair.mask_path);
}

std::string FilesSource::Key(SampleId id) const { return pairs_[id].stem; }

std::string FilesSource::MemberName(SampleId id, Member member) const {
  return MemberPath(id, member).string();
}

std::optional<int64_t> FilesSource::MemberSize(SampleId id, Member member) const {
  struct stat info {};
  int result = 0;
  const std::filesystem::path path = MemberPath(id, member);
  do {
    result = FileSystemInUse().Stat(path.c_str(), &info);
  } while (result != 0 && errno == EINTR);
  if (result != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return static_cast<int64_t>(info.st_size);
}

Result<std::span<const uint8_t>> FilesSource::Read(SampleId id, Member member, ReadBuffer* into,
                                                   const HeadCheck* head) {
  return ReadWholeFile(MemberPath(id, member), into, head);
}

Result<std::span<const uint8_t>> ReadWholeFile(const std::filesystem::path& path, ReadBuffer* into,
                                               const HeadCheck* head) {
  into->Resize(0);
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
  if (info.st_size > into->max_bytes()) {
    return Error{ErrorKind::kTooLarge, path.string(),
                 "file is " + std::to_string(info.st_size) +
                     " bytes, more than max_file_bytes = " + std::to_string(into->max_bytes())};
  }

  // read(2) may return fewer bytes than asked (signals, network file
  // systems): reading goes on until `want` bytes are in. Only a return of 0
  // means the file ended early: it shrank since fstat(2), an io_error (a
  // re-stat could read a file being rewritten half old, half new).
  size_t done = 0;
  const auto read_until = [&](uint8_t* bytes, size_t want) -> Status {
    while (done < want) {
      const ssize_t n = file_system.Read(fd.get(), bytes + done, want - done);
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
  uint8_t* bytes = nullptr;
  if (head) {
    // The first bytes say what the file is: a file of the wrong kind is
    // refused before a buffer of its size is allocated. A failed read is
    // the read's error, never a verdict on bytes that were not read.
    uint8_t first[HeadCheck::kBytes];
    if (Status status = read_until(first, std::min(size, sizeof first)); !status.ok())
      return status.error();
    if (Status status = head->Check(std::span<const uint8_t>(first, done), path.native());
        !status.ok())
      return status.error();
    bytes = into->Resize(size);
    std::memcpy(bytes, first, done);
  } else {
    bytes = into->Resize(size);
  }
  // Resize() never shrinks the capacity, so a file no larger than the
  // largest one seen before costs no allocation and no fresh pages.
  if (Status status = read_until(bytes, size); !status.ok()) {
    into->Resize(0);
    return status.error();
  }
  return into->bytes();
}

}  // namespace segfeed::source
