#include "source/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <string>

#include "digest.h"
#include "source/file_descriptor.h"
#include "source/file_system.h"

namespace segfeed::source {
namespace {

// How often, at most, a cache rescans the folder because other processes
// changed it: often enough that their entries take their place in the
// eviction order, seldom enough that a scan (a stat per entry) costs little.
constexpr int64_t kRescanIntervalNs = 10'000'000'000;

int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Sets the modification time (the use time) and leaves the access time.
void SetUseTime(int fd, int64_t stamp_ns) {
  const struct timespec times[2] = {
      {0, UTIME_OMIT},
      {static_cast<time_t>(stamp_ns / 1'000'000'000), static_cast<long>(stamp_ns % 1'000'000'000)}};
  // Failing leaves the entry looking older than it is: it is evicted sooner.
  FileSystemInUse().Futimens(fd, times);
}

int OpenRetrying(const std::filesystem::path& path, int flags, mode_t mode) {
  int fd = -1;
  do {
    fd = FileSystemInUse().Open(path.c_str(), flags, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// False when the file holds fewer bytes than `out` or cannot be read.
bool ReadWhole(int fd, std::span<std::byte> out) {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        FileSystemInUse().Pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Writes `bytes` to a new file at `temporary` whose use time is `stamp_ns`;
// false (and no file left) when any step fails: a full disk, for one.
bool WriteTemporary(const std::filesystem::path& temporary, std::span<const std::byte> bytes,
                    int64_t stamp_ns) {
  FileSystem& file_system = FileSystemInUse();
  const int fd = CreateCacheTemp(temporary);
  if (fd < 0) return false;
  FileDescriptor file(fd);
  bool written = true;
  size_t done = 0;
  while (written && done < bytes.size()) {
    const ssize_t n = file_system.Write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) written = false;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (written) SetUseTime(fd, stamp_ns);
  // Close reports what a network file system could not write.
  if (!file.Close()) written = false;
  if (!written) file_system.Unlink(temporary.c_str());
  return written;
}

}  // namespace

Result<std::unique_ptr<DiskCache>> DiskCache::Open(const std::filesystem::path& dir,
                                                   uint64_t limit_bytes) {
  Status made = CreateCacheFolder(dir);
  if (!made.ok()) return made.error();
  Result<std::unique_ptr<CacheLedger>> ledger = CacheLedger::Open(dir);
  if (!ledger.ok()) return ledger.error();
  std::unique_ptr<DiskCache> cache(new DiskCache(dir, limit_bytes, std::move(ledger).value()));
  {
    MutexLock lock(&cache->mu_);
    CacheLedgerLock locked(cache->ledger_.get());
    if (!locked.status().ok()) return locked.status().error();
    // The scan makes the tally match the folder, whatever a crashed process
    // left, and a limit lower than the last run's is enforced at once.
    uint64_t total = 0;
    Status scanned = cache->RescanLocked(&total);
    if (!scanned.ok()) return scanned.error();
    cache->MakeRoomLocked(0, &total);
    Status written = cache->ledger_->set_total_bytes(total);
    if (!written.ok()) return written.error();
    cache->stats_.bytes_held = total;
  }
  return cache;
}

Result<bool> DiskCache::Lookup(uint64_t digest, uint64_t size, std::span<std::byte> out) {
  const CacheKey key{digest, size};
  const std::filesystem::path path = CacheEntryPath(dir_, key);
  if (out.size() != size)
    return Error{ErrorKind::kIoError, path.string(),
                 "a lookup of " + std::to_string(size) + " bytes into a buffer of " +
                     std::to_string(out.size())};
  const int fd = OpenRetrying(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) {
    const int open_error = errno;
    MutexLock lock(&mu_);
    ++stats_.misses;
    if (open_error == ENOENT) Forget(key);
    return false;
  }
  FileDescriptor file(fd);
  struct stat info {};
  const bool stated = FileSystemInUse().Fstat(fd, &info) == 0;
  bool intact = stated && S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) == size &&
                ReadWhole(fd, out);
  if (intact) {
    Digest read;
    read.Update(out.data(), out.size());
    intact = read.Value() == digest;
  }
  if (!intact) {
    Status dropped = DropCorrupt(key, stated ? info.st_ino : 0);
    if (!dropped.ok()) return dropped.error();
    return false;
  }
  const int64_t stamp_ns = NextStamp();
  SetUseTime(fd, stamp_ns);
  MutexLock lock(&mu_);
  ++stats_.hits;
  Remember(key, stamp_ns);
  return true;
}

Status DiskCache::DropCorrupt(const CacheKey& key, ino_t inode) {
  MutexLock lock(&mu_);
  ++stats_.misses;
  ++stats_.corrupt_dropped;
  CacheLedgerLock locked(ledger_.get());
  if (!locked.status().ok()) return locked.status();
  Result<uint64_t> total = ledger_->total_bytes();
  if (!total.ok()) return total.error();
  uint64_t held = total.value();
  RemoveLocked(key, inode, &held);
  stats_.bytes_held = held;
  return ledger_->set_total_bytes(held);
}

Status DiskCache::Insert(uint64_t digest, std::span<const std::byte> bytes) {
  const CacheKey key{digest, bytes.size()};
  if (bytes.size() > limit_bytes_) {
    MutexLock lock(&mu_);
    ++stats_.oversized_inserts;
    return {};
  }
  // Already there (another process may have fetched it too): nothing to write.
  struct stat info {};
  if (FileSystemInUse().Stat(CacheEntryPath(dir_, key).c_str(), &info) == 0) return {};
  // Written outside every lock, so that writers work in parallel.
  const std::filesystem::path temporary = CacheTempPath(dir_, key);
  const int64_t stamp_ns = NextStamp();
  if (!WriteTemporary(temporary, bytes, stamp_ns)) {
    MutexLock lock(&mu_);
    ++stats_.write_failures;
    return {};
  }
  return PutInPlace(key, temporary, stamp_ns);
}

Status DiskCache::PutInPlace(const CacheKey& key, const std::filesystem::path& temporary,
                             int64_t stamp_ns) {
  FileSystem& file_system = FileSystemInUse();
  MutexLock lock(&mu_);
  CacheLedgerLock locked(ledger_.get());
  Result<uint64_t> total =
      locked.status().ok() ? ledger_->total_bytes() : Result<uint64_t>(locked.status().error());
  if (!total.ok()) {
    file_system.Unlink(temporary.c_str());
    return total.error();
  }
  uint64_t held = total.value();
  const std::filesystem::path path = CacheEntryPath(dir_, key);
  struct stat info {};
  if (file_system.Stat(path.c_str(), &info) == 0) {
    // Another process put the same bytes in place meanwhile.
    file_system.Unlink(temporary.c_str());
    return {};
  }
  if (!MakeRoomLocked(key.size_bytes, &held) ||
      file_system.Rename(temporary.c_str(), path.c_str()) != 0) {
    file_system.Unlink(temporary.c_str());
    ++stats_.write_failures;
  } else {
    held += key.size_bytes;
    ++stats_.inserts;
    Remember(key, stamp_ns);
  }
  stats_.bytes_held = held;
  return ledger_->set_total_bytes(held);
}

Status DiskCache::RescanLocked(uint64_t* total) {
  Result<std::vector<ScannedEntry>> scanned = ScanCacheFolder(dir_);
  if (!scanned.ok()) return scanned.error();
  view_.clear();
  by_last_use_.clear();
  view_bytes_ = 0;
  uint64_t sum = 0;
  for (const ScannedEntry& entry : scanned.value()) {
    Remember(entry.key, entry.last_use_ns);
    sum += entry.key.size_bytes;
  }
  *total = sum;
  last_scan_ns_ = MonotonicNs();
  return {};
}

bool DiskCache::MakeRoomLocked(uint64_t needed, uint64_t* total) {
  FileSystem& file_system = FileSystemInUse();
  bool scanned = false;
  // The tally differs from this cache's view: other processes changed the
  // folder, and their entries belong in the order.
  if (*total + needed > limit_bytes_ && *total != view_bytes_ &&
      MonotonicNs() - last_scan_ns_ >= kRescanIntervalNs) {
    if (!RescanLocked(total).ok()) return false;
    scanned = true;
  }
  while (*total + needed > limit_bytes_) {
    if (by_last_use_.empty()) {
      // What the tally counts is entries this cache has not seen; after a
      // scan it has seen them all, so a second empty view cannot happen
      // unless the folder cannot be read.
      if (scanned || !RescanLocked(total).ok()) return false;
      scanned = true;
      continue;
    }
    const auto [recorded_ns, key] = *by_last_use_.begin();
    const std::filesystem::path path = CacheEntryPath(dir_, key);
    struct stat info {};
    if (file_system.Stat(path.c_str(), &info) != 0) {
      Forget(key);  // another process evicted it (and took it off the tally)
      continue;
    }
    if (ModificationNs(info) > recorded_ns) {
      // Used by another process since this cache saw it: not the oldest.
      Remember(key, ModificationNs(info));
      continue;
    }
    const bool removed = file_system.Unlink(path.c_str()) == 0;
    Forget(key);
    if (!removed) return false;
    *total -= std::min(*total, key.size_bytes);
    ++stats_.evictions;
  }
  return true;
}

void DiskCache::RemoveLocked(const CacheKey& key, ino_t inode, uint64_t* total) {
  FileSystem& file_system = FileSystemInUse();
  const std::filesystem::path path = CacheEntryPath(dir_, key);
  struct stat info {};
  if (file_system.Stat(path.c_str(), &info) != 0) {
    Forget(key);
    return;
  }
  // Another process replaced the damaged file with good bytes meanwhile.
  if (inode != 0 && info.st_ino != inode) return;
  if (file_system.Unlink(path.c_str()) == 0) *total -= std::min(*total, key.size_bytes);
  Forget(key);
}

void DiskCache::Remember(const CacheKey& key, int64_t last_use_ns) {
  Forget(key);
  view_[key] = last_use_ns;
  by_last_use_.insert({last_use_ns, key});
  view_bytes_ += key.size_bytes;
}

void DiskCache::Forget(const CacheKey& key) {
  auto it = view_.find(key);
  if (it == view_.end()) return;
  by_last_use_.erase({it->second, key});
  view_bytes_ -= key.size_bytes;
  view_.erase(it);
}

int64_t DiskCache::NextStamp() {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  MutexLock lock(&mu_);
  last_stamp_ns_ = std::max(now_ns, last_stamp_ns_ + 1);
  return last_stamp_ns_;
}

DiskCache::Stats DiskCache::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

}  // namespace segfeed::source
