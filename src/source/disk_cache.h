#pragma once

// A bounded cache on local disk of bytes fetched from object storage, for
// the ranks of one node to share: what was fetched once is read from here
// the next time, and the least recently used entries make room for new ones.
// Content-addressed: an entry is named by the digest.h Digest and the size
// of its bytes, the pair a shard index stores for every member, so a Lookup
// checks what it read against both and a damaged entry is never served.
//
// The folder (cache_folder.h has its layout) may be shared by any number of
// DiskCaches, in one process or in several:
//  - An entry is written under a temporary name and renamed into place, so a
//    reader never sees part of one, and a reader that opened an entry keeps
//    reading it whole even if it is evicted meanwhile.
//  - The limit holds for all of them at once: an entry is put in place only
//    under the folder's lock (cache_ledger.h, flock(2)), after the entries it
//    displaces are removed, against the shared tally (of the sizes in the
//    entries' names, so a file damaged by hand counts what it should hold).
//    The entries never take more than the limit; the temporary files of
//    writes in progress (one per inserting thread) come on top. An entry
//    larger than the limit is not kept (no waiting for room that cannot
//    come).
//  - Least recently used across processes: every hit sets the entry's
//    modification time, and an eviction takes the entry this cache saw used
//    longest ago, after checking its time again on disk (another process may
//    have used it since). Entries other processes inserted are learnt by a
//    scan of the folder, under the lock: at Open(), when the shared tally
//    shows that others changed the folder (at most once every 10 seconds:
//    a scan stats every entry), and whenever this cache's own view holds
//    too little to make room. Between scans the order is approximate: an
//    entry this cache never saw is evicted only after a scan.
//  - A writer that crashed mid-write leaves only a temporary file; the scans
//    remove those whose writer's pid no longer runs. The pid (rather than an
//    age) because it cleans up at once and never removes a live writer's file
//    on the one node that shares a folder; a writer in another pid namespace
//    (a container) may lose its file to that check, and then its insert
//    fails like a full disk.
//  - Entries are not fsync'ed: after a power loss an entry may hold garbage,
//    which the digest catches.
//
// A failed write (a full disk) is not an error: the insert is counted in
// stats().write_failures and the caller serves the bytes uncached.
// Thread-safe. Do not use one DiskCache in two processes after fork(): open
// one in each.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <utility>

#include "mutex.h"
#include "result.h"
#include "source/cache_folder.h"
#include "source/cache_ledger.h"

namespace segfeed::source {

class DiskCache {
 public:
  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;             // not cached, or dropped as corrupt
    uint64_t inserts = 0;            // entries this cache put in place
    uint64_t evictions = 0;          // entries this cache removed to make room
    uint64_t corrupt_dropped = 0;    // entries whose size or digest was wrong
    uint64_t bytes_held = 0;         // the folder's entries, all processes' (last seen)
    uint64_t write_failures = 0;     // inserts a failed write (ENOSPC, EIO) left out
    uint64_t oversized_inserts = 0;  // inserts larger than the limit, not kept
  };

  // Opens (creating) the cache folder `dir`, whose entries may take at most
  // `limit_bytes` (0: nothing is kept), scans it (removing the temporary
  // files of crashed writers) and makes the tally match what it holds. An
  // error names the folder and the reason.
  static Result<std::unique_ptr<DiskCache>> Open(const std::filesystem::path& dir,
                                                 uint64_t limit_bytes);
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  // true: the bytes with this digest and size were cached and verified,
  // copied into out (out.size() must be size); false: not cached, or the
  // cached file was partial or corrupt, and is removed. An error only when
  // the folder's lock fails.
  Result<bool> Lookup(uint64_t digest, uint64_t size, std::span<std::byte> out);
  // Keeps the bytes (whose digest the caller verified against the index)
  // unless they alone exceed the limit, evicting the least recently used
  // entries to make room. A failed write is counted, not returned; an error
  // only when the folder's lock fails.
  Status Insert(uint64_t digest, std::span<const std::byte> bytes);

  Stats stats() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  DiskCache(std::filesystem::path dir, uint64_t limit_bytes, std::unique_ptr<CacheLedger> ledger)
      : dir_(std::move(dir)), limit_bytes_(limit_bytes), ledger_(std::move(ledger)) {}

  // Reads the folder into the view, and its entries' bytes into `total`.
  Status RescanLocked(uint64_t* total) REQUIRES(mu_);
  // Evicts until `needed` more bytes fit the limit; false when they cannot.
  bool MakeRoomLocked(uint64_t needed, uint64_t* total) REQUIRES(mu_);
  // Removes the entry's file if it is still `inode` (0: whatever it is).
  void RemoveLocked(const CacheKey& key, ino_t inode, uint64_t* total) REQUIRES(mu_);
  void Remember(const CacheKey& key, int64_t last_use_ns) REQUIRES(mu_);
  void Forget(const CacheKey& key) REQUIRES(mu_);
  // Drops a damaged entry (still `inode`) under the lock.
  Status DropCorrupt(const CacheKey& key, ino_t inode);
  // Puts the temporary file in place as the entry, making room first.
  Status PutInPlace(const CacheKey& key, const std::filesystem::path& temporary, int64_t stamp_ns);
  // A use time later than every one this cache gave before.
  int64_t NextStamp();

  const std::filesystem::path dir_;
  const uint64_t limit_bytes_;
  mutable Mutex mu_;
  // Taken only with mu_ held (flock excludes processes, mu_ threads).
  std::unique_ptr<CacheLedger> ledger_ GUARDED_BY(mu_);
  // This cache's view of the entries: their last use by key, and by last
  // use (oldest first). view_bytes_ is the sum of their sizes, which equals
  // the tally while no other process changed the folder.
  std::map<CacheKey, int64_t> view_ GUARDED_BY(mu_);
  std::set<std::pair<int64_t, CacheKey>> by_last_use_ GUARDED_BY(mu_);
  uint64_t view_bytes_ GUARDED_BY(mu_) = 0;
  int64_t last_scan_ns_ GUARDED_BY(mu_) = 0;
  int64_t last_stamp_ns_ GUARDED_BY(mu_) = 0;
  Stats stats_ GUARDED_BY(mu_);
};

}  // namespace segfeed::source
