#include "source/disk_cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "digest.h"
#include "source/cache_folder.h"
#include "source/cache_ledger.h"
#include "source/fault_injecting_file_system.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::TempDir;

// The bytes of entry `id`: `size` bytes that differ for every id.
std::vector<std::byte> Payload(uint64_t id, size_t size) {
  std::vector<std::byte> bytes(size);
  uint64_t state = id * 0x9E3779B97F4A7C15ull + 1;
  for (std::byte& byte : bytes) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    byte = static_cast<std::byte>(state >> 56);
  }
  return bytes;
}

uint64_t DigestOf(const std::vector<std::byte>& bytes) {
  Digest digest;
  digest.Update(bytes.data(), bytes.size());
  return digest.Value();
}

// Every entry's size in `dir` (not the ledger, not temporary files).
uint64_t EntryBytesOnDisk(const std::filesystem::path& dir) {
  uint64_t total = 0;
  std::error_code ignored;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ignored);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
    const std::string name = it->path().filename().string();
    if (!ParseCacheEntryName(name)) continue;
    const auto bytes = std::filesystem::file_size(it->path(), ignored);
    if (!ignored) total += bytes;
  }
  return total;
}

// Temporary files left in `dir`.
int TemporaryFiles(const std::filesystem::path& dir) {
  int count = 0;
  for (const auto& item : std::filesystem::recursive_directory_iterator(dir))
    if (CacheTempOwner(item.path().filename().string())) ++count;
  return count;
}

std::unique_ptr<DiskCache> OpenCache(const std::filesystem::path& dir, uint64_t limit_bytes) {
  Result<std::unique_ptr<DiskCache>> cache = DiskCache::Open(dir, limit_bytes);
  EXPECT_TRUE(cache.ok()) << cache.error().Message();
  return cache.ok() ? std::move(cache).value() : nullptr;
}

void InsertPayload(DiskCache& cache, const std::vector<std::byte>& bytes) {
  Status inserted = cache.Insert(DigestOf(bytes), bytes);
  ASSERT_TRUE(inserted.ok()) << inserted.error().Message();
}

// true: a hit with exactly `bytes`; false: a miss. A hit with other bytes
// fails the test.
bool LookupPayload(DiskCache& cache, const std::vector<std::byte>& bytes) {
  std::vector<std::byte> out(bytes.size());
  Result<bool> found = cache.Lookup(DigestOf(bytes), bytes.size(), out);
  EXPECT_TRUE(found.ok()) << found.error().Message();
  if (!found.ok() || !found.value()) return false;
  EXPECT_EQ(out, bytes);
  return true;
}

TEST(DiskCacheTest, MissesThenHitsAfterInsert) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  const auto bytes = Payload(1, 5000);
  EXPECT_FALSE(LookupPayload(*cache, bytes));
  InsertPayload(*cache, bytes);
  EXPECT_TRUE(LookupPayload(*cache, bytes));
  // The same digest with another size is another entry.
  std::vector<std::byte> other_size(4999);
  EXPECT_FALSE(cache->Lookup(DigestOf(bytes), other_size.size(), other_size).value());
  const DiskCache::Stats stats = cache->stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.inserts, 1u);
  EXPECT_EQ(stats.bytes_held, 5000u);
  EXPECT_TRUE(std::filesystem::exists(CacheEntryPath(dir.path(), {DigestOf(bytes), 5000})));
}

TEST(DiskCacheTest, RefusesLookupIntoBufferOfOtherSize) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  std::vector<std::byte> out(10);
  Result<bool> found = cache->Lookup(1, 11, out);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.error().detail.find("11 bytes"), std::string::npos);
}

TEST(DiskCacheTest, EvictsLeastRecentlyUsed) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 3000);
  ASSERT_TRUE(cache);
  const auto a = Payload(1, 1000), b = Payload(2, 1000), c = Payload(3, 1000), d = Payload(4, 1000);
  InsertPayload(*cache, a);
  InsertPayload(*cache, b);
  InsertPayload(*cache, c);
  ASSERT_TRUE(LookupPayload(*cache, a));  // b is now the oldest
  InsertPayload(*cache, d);
  EXPECT_EQ(cache->stats().evictions, 1u);
  EXPECT_FALSE(LookupPayload(*cache, b));
  EXPECT_TRUE(LookupPayload(*cache, a));
  EXPECT_TRUE(LookupPayload(*cache, c));
  EXPECT_TRUE(LookupPayload(*cache, d));
  // a was used before c and d: it goes next, then c.
  const auto e = Payload(5, 2000);
  InsertPayload(*cache, e);
  EXPECT_FALSE(LookupPayload(*cache, a));
  EXPECT_FALSE(LookupPayload(*cache, c));
  EXPECT_TRUE(LookupPayload(*cache, d));
  EXPECT_TRUE(LookupPayload(*cache, e));
  EXPECT_EQ(cache->stats().bytes_held, 3000u);
  EXPECT_EQ(EntryBytesOnDisk(dir.path()), 3000u);
}

TEST(DiskCacheTest, EvictionOrderSeesUsesByAnotherCacheOfTheFolder) {
  TempDir dir;
  auto first = OpenCache(dir.path(), 3000);
  ASSERT_TRUE(first);
  const auto a = Payload(1, 1000), b = Payload(2, 1000), c = Payload(3, 1000), d = Payload(4, 1000);
  InsertPayload(*first, a);
  InsertPayload(*first, b);
  InsertPayload(*first, c);
  // The second cache (another process's, say) uses a: first's own view
  // still has a as the oldest, but the use time on disk says otherwise.
  auto second = OpenCache(dir.path(), 3000);
  ASSERT_TRUE(second);
  ASSERT_TRUE(LookupPayload(*second, a));
  InsertPayload(*first, d);
  EXPECT_TRUE(LookupPayload(*first, a));
  EXPECT_FALSE(LookupPayload(*first, b));
}

TEST(DiskCacheTest, ReopenedFolderKeepsEntriesAndAppliesALowerLimit) {
  TempDir dir;
  const auto a = Payload(1, 1000), b = Payload(2, 1000), c = Payload(3, 1000);
  {
    auto cache = OpenCache(dir.path(), 3000);
    ASSERT_TRUE(cache);
    InsertPayload(*cache, a);
    InsertPayload(*cache, b);
    InsertPayload(*cache, c);
    ASSERT_TRUE(LookupPayload(*cache, a));
  }
  auto reopened = OpenCache(dir.path(), 2000);
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->stats().bytes_held, 2000u);
  EXPECT_EQ(reopened->stats().evictions, 1u);
  EXPECT_FALSE(LookupPayload(*reopened, b));  // the least recently used
  EXPECT_TRUE(LookupPayload(*reopened, a));
  EXPECT_TRUE(LookupPayload(*reopened, c));
}

TEST(DiskCacheTest, EntryLargerThanTheLimitIsNotKept) {
  for (const uint64_t limit : {uint64_t{0}, uint64_t{999}}) {
    TempDir dir;
    auto cache = OpenCache(dir.path(), limit);
    ASSERT_TRUE(cache);
    const auto big = Payload(1, 1000);
    InsertPayload(*cache, big);  // returns at once: nothing waits for room
    EXPECT_FALSE(LookupPayload(*cache, big));
    EXPECT_EQ(cache->stats().oversized_inserts, 1u);
    EXPECT_EQ(cache->stats().inserts, 0u);
    EXPECT_EQ(EntryBytesOnDisk(dir.path()), 0u);
    EXPECT_EQ(TemporaryFiles(dir.path()), 0);
    if (limit == 0) continue;
    // A smaller entry still fits.
    const auto small = Payload(2, 999);
    InsertPayload(*cache, small);
    EXPECT_TRUE(LookupPayload(*cache, small));
  }
}

TEST(DiskCacheTest, DropsEntryWithAFlippedByte) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  const auto bytes = Payload(1, 4096);
  InsertPayload(*cache, bytes);
  const auto path = CacheEntryPath(dir.path(), {DigestOf(bytes), bytes.size()});
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(2000);
    const char flipped = static_cast<char>(static_cast<unsigned char>(bytes[2000]) ^ 0x01);
    file.write(&flipped, 1);
  }
  EXPECT_FALSE(LookupPayload(*cache, bytes));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(cache->stats().corrupt_dropped, 1u);
  EXPECT_EQ(cache->stats().bytes_held, 0u);
  // Fetched again, it is kept and served.
  InsertPayload(*cache, bytes);
  EXPECT_TRUE(LookupPayload(*cache, bytes));
}

TEST(DiskCacheTest, DropsTruncatedEntry) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  const auto bytes = Payload(1, 4096), other = Payload(2, 100);
  InsertPayload(*cache, bytes);
  InsertPayload(*cache, other);
  const auto path = CacheEntryPath(dir.path(), {DigestOf(bytes), bytes.size()});
  std::filesystem::resize_file(path, 1000);
  EXPECT_FALSE(LookupPayload(*cache, bytes));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(cache->stats().corrupt_dropped, 1u);
  EXPECT_EQ(cache->stats().bytes_held, 100u);
  EXPECT_TRUE(LookupPayload(*cache, other));
}

TEST(DiskCacheTest, OpenRemovesTemporaryFileOfACrashedWriter) {
  TempDir dir;
  ASSERT_TRUE(OpenCache(dir.path(), 1 << 20));
  const CacheKey key{DigestOf(Payload(1, 100)), 100};
  // The writer dies between writing its temporary file and the rename.
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    const int fd = CreateCacheTemp(CacheTempPath(dir.path(), key));
    const bool written = fd >= 0 && ::write(fd, "half an entry", 13) == 13;
    ::_exit(written ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(TemporaryFiles(dir.path()), 1);
  // A live writer's file (this process's) stays.
  const auto live = CacheTempPath(dir.path(), key);
  std::ofstream(live) << "being written";
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  EXPECT_EQ(TemporaryFiles(dir.path()), 1);
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_EQ(cache->stats().bytes_held, 0u);
}

TEST(DiskCacheTest, FullDiskIsCountedAndNotAnError) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  const auto bytes = Payload(1, 4096);
  testing::FaultInjectingFileSystem file_system;
  {
    FileSystemOverrideForTesting replaced(&file_system);
    file_system.Arm(testing::FileCall::kWrite, 1, {testing::Fault::Kind::kErrno, ENOSPC});
    InsertPayload(*cache, bytes);
    EXPECT_TRUE(file_system.fired());
  }
  EXPECT_EQ(cache->stats().write_failures, 1u);
  EXPECT_EQ(cache->stats().inserts, 0u);
  EXPECT_EQ(TemporaryFiles(dir.path()), 0);
  EXPECT_FALSE(LookupPayload(*cache, bytes));
  // Room again: the next fetch is kept.
  InsertPayload(*cache, bytes);
  EXPECT_TRUE(LookupPayload(*cache, bytes));
}

TEST(DiskCacheTest, FailedRenameIsCountedAndLeavesNothing) {
  TempDir dir;
  auto cache = OpenCache(dir.path(), 1 << 20);
  ASSERT_TRUE(cache);
  const auto bytes = Payload(1, 4096);
  testing::FaultInjectingFileSystem file_system;
  {
    FileSystemOverrideForTesting replaced(&file_system);
    file_system.Arm(testing::FileCall::kRename, 1, {testing::Fault::Kind::kErrno, EIO});
    InsertPayload(*cache, bytes);
    EXPECT_TRUE(file_system.fired());
  }
  EXPECT_EQ(cache->stats().write_failures, 1u);
  EXPECT_EQ(cache->stats().bytes_held, 0u);
  EXPECT_EQ(TemporaryFiles(dir.path()), 0);
  EXPECT_EQ(EntryBytesOnDisk(dir.path()), 0u);
}

// Reads the folder's entries under its lock, as the caches change them,
// then waits a millisecond: flock(2) is not fair, and a monitor that took
// the lock again at once would keep the caches from working.
uint64_t LockedEntryBytes(CacheLedger& ledger, const std::filesystem::path& dir) {
  uint64_t bytes = 0;
  {
    CacheLedgerLock locked(&ledger);
    EXPECT_TRUE(locked.status().ok());
    bytes = EntryBytesOnDisk(dir);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return bytes;
}

TEST(DiskCacheTest, LimitHoldsWithFourThreads) {
  TempDir dir;
  constexpr uint64_t kLimit = 20000;
  auto cache = OpenCache(dir.path(), kLimit);
  ASSERT_TRUE(cache);
  auto ledger = CacheLedger::Open(dir.path());
  ASSERT_TRUE(ledger.ok());
  std::atomic<int> running{4};
  std::atomic<uint64_t> hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 150; ++i) {
        // Ids overlap between threads: the same bytes are inserted twice,
        // and looked up while others insert.
        const uint64_t id = i * 2 + static_cast<uint64_t>(t % 2);
        const auto bytes = Payload(id, 500 + id * 13 % 2500);
        if (!LookupPayload(*cache, bytes)) InsertPayload(*cache, bytes);
        for (uint64_t back = 1; back <= 3 && back <= id; ++back) {
          const auto recent = Payload(id - back, 500 + (id - back) * 13 % 2500);
          if (LookupPayload(*cache, recent)) ++hits;
        }
        EXPECT_LE(cache->stats().bytes_held, kLimit);
      }
      --running;
    });
  }
  uint64_t checks = 0, most_held = 0;
  while (running.load() > 0) {
    most_held = std::max(most_held, LockedEntryBytes(*ledger.value(), dir.path()));
    ++checks;
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GT(checks, 0u);
  EXPECT_LE(most_held, kLimit);
  EXPECT_GT(hits.load(), 0u);
  const DiskCache::Stats stats = cache->stats();
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_EQ(stats.bytes_held, EntryBytesOnDisk(dir.path()));
  EXPECT_EQ(stats.write_failures, 0u);
  EXPECT_EQ(TemporaryFiles(dir.path()), 0);
}

// One process's share of TwoProcessesShareOneFolder: its own cache on the
// folder, many inserts and lookups. Exits 0 when every hit held the right
// bytes and the cache's tally never passed the limit.
[[noreturn]] void InsertAndLookUpInChild(const std::filesystem::path& dir, uint64_t limit,
                                         uint64_t first_id) {
  Result<std::unique_ptr<DiskCache>> opened = DiskCache::Open(dir, limit);
  if (!opened.ok()) ::_exit(2);
  DiskCache& cache = *opened.value();
  int code = 0;
  for (uint64_t i = 0; i < 400; ++i) {
    // Half the ids are the other process's too.
    const uint64_t id = first_id + i;
    const auto bytes = Payload(id % 600, 300 + id % 600 * 7);
    std::vector<std::byte> out(bytes.size());
    Result<bool> found = cache.Lookup(DigestOf(bytes), bytes.size(), out);
    if (!found.ok()) code = 3;
    if (found.ok() && found.value() && out != bytes) code = 4;
    if (found.ok() && !found.value() && !cache.Insert(DigestOf(bytes), bytes).ok()) code = 5;
    // And one lookup of an older entry, which may be gone.
    const uint64_t older = first_id + i / 2;
    const auto old_bytes = Payload(older % 600, 300 + older % 600 * 7);
    std::vector<std::byte> old_out(old_bytes.size());
    Result<bool> old_found = cache.Lookup(DigestOf(old_bytes), old_bytes.size(), old_out);
    if (!old_found.ok()) code = 3;
    if (old_found.ok() && old_found.value() && old_out != old_bytes) code = 4;
    if (cache.stats().bytes_held > limit) code = 6;
  }
  if (cache.stats().write_failures != 0) code = 7;
  ::_exit(code);
}

TEST(DiskCacheTest, TwoProcessesShareOneFolder) {
  TempDir dir;
  constexpr uint64_t kLimit = 50000;
  ASSERT_TRUE(OpenCache(dir.path(), kLimit));
  auto ledger = CacheLedger::Open(dir.path());
  ASSERT_TRUE(ledger.ok());
  std::vector<pid_t> children;
  for (const uint64_t first_id : {uint64_t{0}, uint64_t{200}}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) InsertAndLookUpInChild(dir.path(), kLimit, first_id);
    children.push_back(child);
  }
  std::vector<int> codes;
  uint64_t most_held = 0;
  while (codes.size() < children.size()) {
    most_held = std::max(most_held, LockedEntryBytes(*ledger.value(), dir.path()));
    for (pid_t& child : children) {
      int status = 0;
      if (child > 0 && ::waitpid(child, &status, WNOHANG) == child) {
        codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        child = 0;
      }
    }
  }
  EXPECT_EQ(codes, (std::vector<int>{0, 0}));
  EXPECT_LE(most_held, kLimit);
  EXPECT_LE(EntryBytesOnDisk(dir.path()), kLimit);
  EXPECT_EQ(TemporaryFiles(dir.path()), 0);
  // The tally the processes kept matches the folder.
  auto reopened = OpenCache(dir.path(), kLimit);
  ASSERT_TRUE(reopened);
  Result<uint64_t> tally = [&] {
    CacheLedgerLock locked(ledger.value().get());
    return ledger.value()->total_bytes();
  }();
  ASSERT_TRUE(tally.ok());
  EXPECT_EQ(tally.value(), EntryBytesOnDisk(dir.path()));
}

}  // namespace
}  // namespace segfeed::source
