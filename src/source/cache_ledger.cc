#include "source/cache_ledger.h"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "source/file_system.h"

namespace segfeed::source {

Result<std::unique_ptr<CacheLedger>> CacheLedger::Open(const std::filesystem::path& dir) {
  std::filesystem::path path = dir / "ledger";
  int fd = -1;
  do {
    fd = FileSystemInUse().Open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Error{ErrorKind::kIoError, path.string(),
                 std::string("cannot open the cache ledger: ") + std::strerror(errno)};
  return std::unique_ptr<CacheLedger>(new CacheLedger(std::move(path), fd));
}

CacheLedger::~CacheLedger() { FileSystemInUse().Close(fd_); }

Error CacheLedger::LedgerError(const char* what) const {
  return Error{ErrorKind::kIoError, path_.string(),
               std::string(what) + ": " + std::strerror(errno)};
}

Status CacheLedger::Lock() {
  int locked = -1;
  do {
    locked = FileSystemInUse().Flock(fd_, LOCK_EX);
  } while (locked != 0 && errno == EINTR);
  if (locked != 0) return LedgerError("cannot lock the cache ledger");
  return {};
}

void CacheLedger::Unlock() { FileSystemInUse().Flock(fd_, LOCK_UN); }

Result<uint64_t> CacheLedger::total_bytes() const {
  unsigned char bytes[8] = {};
  size_t done = 0;
  while (done < sizeof bytes) {
    const ssize_t n =
        FileSystemInUse().Pread(fd_, bytes + done, sizeof bytes - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return LedgerError("cannot read the cache ledger");
    // A new ledger is empty: nothing is held yet.
    if (n == 0) return uint64_t{0};
    done += static_cast<size_t>(n);
  }
  uint64_t total = 0;
  for (int i = 7; i >= 0; --i) total = (total << 8) | bytes[i];
  return total;
}

Status CacheLedger::set_total_bytes(uint64_t total) {
  unsigned char bytes[8];
  for (unsigned char& byte : bytes) {
    byte = static_cast<unsigned char>(total & 0xff);
    total >>= 8;
  }
  size_t done = 0;
  while (done < sizeof bytes) {
    const ssize_t n =
        FileSystemInUse().Pwrite(fd_, bytes + done, sizeof bytes - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return LedgerError("cannot write the cache ledger");
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace segfeed::source
