#pragma once

// The ledger of a local cache folder (disk_cache.h): one file, "<dir>/ledger",
// that every process sharing the folder opens. Its flock(2) is the folder's
// lock: whoever changes the set of entries (puts one in place, evicts one,
// drops a corrupt one) holds it, so the tally it keeps (the bytes the
// entries take, 8 bytes at offset 0) always matches the entries, and a limit
// checked under it holds for every process at once.
//
// flock(2) excludes open file descriptions, not threads: the owner
// serialises its own threads (DiskCache holds its mutex around Lock()), and
// a ledger opened before fork() must not be used by both processes (each
// opens its own). Not thread-safe.

#include <cstdint>
#include <filesystem>
#include <memory>

#include "result.h"

namespace segfeed::source {

class CacheLedger {
 public:
  // Opens (creating when missing) "<dir>/ledger"; an error names the path.
  static Result<std::unique_ptr<CacheLedger>> Open(const std::filesystem::path& dir);
  CacheLedger(const CacheLedger&) = delete;
  CacheLedger& operator=(const CacheLedger&) = delete;
  ~CacheLedger();

  // Waits for the folder's lock (held only while entries change: a rename
  // and a few unlinks, never while bytes are written). Unlock() gives it back.
  Status Lock();
  void Unlock();

  // The tally, with the lock held: 0 for a new ledger.
  Result<uint64_t> total_bytes() const;
  Status set_total_bytes(uint64_t total);

  const std::filesystem::path& path() const { return path_; }

 private:
  CacheLedger(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  Error LedgerError(const char* what) const;

  std::filesystem::path path_;
  int fd_;
};

// Holds a ledger's lock for its lifetime (when Lock() succeeded: check ok()).
class CacheLedgerLock {
 public:
  explicit CacheLedgerLock(CacheLedger* ledger) : ledger_(ledger), status_(ledger->Lock()) {}
  CacheLedgerLock(const CacheLedgerLock&) = delete;
  CacheLedgerLock& operator=(const CacheLedgerLock&) = delete;
  ~CacheLedgerLock() {
    if (status_.ok()) ledger_->Unlock();
  }
  const Status& status() const { return status_; }

 private:
  CacheLedger* ledger_;
  Status status_;
};

}  // namespace segfeed::source
