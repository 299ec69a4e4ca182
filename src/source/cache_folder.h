#pragma once

// The layout of a local cache folder (disk_cache.h), shared by every process
// that opens it:
//
//   <dir>/ledger                      the lock and the tally (cache_ledger.h)
//   <dir>/<xy>/<digest>-<size>        one entry: the bytes whose digest.h
//                                     Digest is <digest> (16 hex digits,
//                                     the first two are <xy>) and whose size
//                                     is <size> bytes (decimal)
//   <dir>/<xy>/.tmp-<pid>-<n>         an entry being written by process <pid>
//
// The 256 subfolders, each made by the first entry that goes there, keep
// 100,000 entries from sitting in one folder. An
// entry is written whole under a temporary name and renamed into place, so a
// reader never sees part of one. Every call goes through the file-system
// seam (file_system.h).

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "result.h"

namespace segfeed::source {

// What names an entry: its bytes' digest and size.
struct CacheKey {
  uint64_t digest = 0;
  uint64_t size_bytes = 0;
  // (Not a defaulted <=>: clang-tidy 14 misreads it as a literal 0 pointer.)
  bool operator<(const CacheKey& other) const {
    return digest != other.digest ? digest < other.digest : size_bytes < other.size_bytes;
  }
  bool operator==(const CacheKey& other) const = default;
};

// "<dir>/<xy>/<digest>-<size>".
std::filesystem::path CacheEntryPath(const std::filesystem::path& dir, const CacheKey& key);
// A name of the form "<digest>-<size>", read back; nullopt for any other.
std::optional<CacheKey> ParseCacheEntryName(std::string_view name);
// "<dir>/<xy>/.tmp-<pid>-<n>", a name no other writer uses: the pid, and a
// count that no two calls in one process share.
std::filesystem::path CacheTempPath(const std::filesystem::path& dir, const CacheKey& key);
// The pid in a temporary entry's name; nullopt for any other name.
std::optional<pid_t> CacheTempOwner(std::string_view name);

// An entry's use time: its modification time, in nanoseconds.
int64_t ModificationNs(const struct stat& info);

// Creates `dir` and its parents where missing.
Status CreateCacheFolder(const std::filesystem::path& dir);
// Opens (creating) the temporary file `temporary`, making its subfolder
// when missing: open(2)'s result.
int CreateCacheTemp(const std::filesystem::path& temporary);

// One entry found by ScanCacheFolder().
struct ScannedEntry {
  CacheKey key;
  int64_t last_use_ns = 0;  // its modification time (disk_cache.h: the use time)
};

// Every entry in `dir`, and the removal of the temporary files whose
// writers are gone: a temporary file whose pid no longer runs is what a
// writer that crashed mid-write left. Call with the ledger locked, so that
// nothing changes the entries meanwhile.
Result<std::vector<ScannedEntry>> ScanCacheFolder(const std::filesystem::path& dir);

}  // namespace segfeed::source
