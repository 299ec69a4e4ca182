#include "source/cache_folder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

#include "source/file_system.h"

namespace segfeed::source {
namespace {

constexpr std::string_view kTempPrefix = ".tmp-";

// Distinguishes the temporary files of the caches of one process (several
// may share a folder); the pid distinguishes processes.
std::atomic<uint64_t> temp_count{0};

std::string Hex16(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::filesystem::path Subfolder(const std::filesystem::path& dir, uint64_t digest) {
  return dir / Hex16(digest).substr(0, 2);
}

Error FolderError(const std::filesystem::path& path, std::string_view what) {
  return Error{ErrorKind::kIoError, path.string(), std::string(what) + ": " + std::strerror(errno)};
}

// True unless the process is known to be gone: kill(pid, 0) fails with
// ESRCH only for a pid that no process has (EPERM: one that runs as another
// user).
bool ProcessRuns(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// Reads one subfolder into `entries`, removing dead writers' temporary files.
Status ScanSubfolder(const std::filesystem::path& folder, std::vector<ScannedEntry>* entries) {
  FileSystem& file_system = FileSystemInUse();
  DIR* listing = file_system.OpenDir(folder.c_str());
  if (listing == nullptr) {
    // Not made yet: no entry went there.
    if (errno == ENOENT) return {};
    return FolderError(folder, "cannot list the cache folder");
  }
  Status status;
  while (true) {
    errno = 0;
    struct dirent* item = file_system.ReadDir(listing);
    if (item == nullptr) {
      if (errno != 0) status = FolderError(folder, "cannot list the cache folder");
      break;
    }
    const std::string_view name = item->d_name;
    const std::filesystem::path path = folder / std::string(name);
    if (const std::optional<pid_t> owner = CacheTempOwner(name)) {
      if (!ProcessRuns(*owner)) file_system.Unlink(path.c_str());
      continue;
    }
    const std::optional<CacheKey> key = ParseCacheEntryName(name);
    struct stat info {};
    // An entry evicted between the listing and the stat is simply gone.
    if (!key || file_system.Stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    entries->push_back({*key, ModificationNs(info)});
  }
  file_system.CloseDir(listing);
  return status;
}

}  // namespace

int64_t ModificationNs(const struct stat& info) {
  return static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

std::filesystem::path CacheEntryPath(const std::filesystem::path& dir, const CacheKey& key) {
  return Subfolder(dir, key.digest) / (Hex16(key.digest) + "-" + std::to_string(key.size_bytes));
}

std::optional<CacheKey> ParseCacheEntryName(std::string_view name) {
  if (name.size() < 18 || name[16] != '-') return std::nullopt;
  CacheKey key;
  const char* end = name.data() + name.size();
  auto [digest_end, digest_error] = std::from_chars(name.data(), name.data() + 16, key.digest, 16);
  if (digest_error != std::errc() || digest_end != name.data() + 16) return std::nullopt;
  auto [size_end, size_error] = std::from_chars(name.data() + 17, end, key.size_bytes);
  if (size_error != std::errc() || size_end != end) return std::nullopt;
  // One spelling per key: "0x", "+" and upper case never come from us.
  if (name.substr(0, 16) != Hex16(key.digest)) return std::nullopt;
  if (name.substr(17) != std::to_string(key.size_bytes)) return std::nullopt;
  return key;
}

std::filesystem::path CacheTempPath(const std::filesystem::path& dir, const CacheKey& key) {
  return Subfolder(dir, key.digest) /
         (std::string(kTempPrefix) + std::to_string(static_cast<long>(::getpid())) + "-" +
          std::to_string(temp_count.fetch_add(1)));
}

std::optional<pid_t> CacheTempOwner(std::string_view name) {
  if (name.substr(0, kTempPrefix.size()) != kTempPrefix) return std::nullopt;
  name.remove_prefix(kTempPrefix.size());
  long pid = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (error != std::errc() || end == name.data() || pid <= 0 || *end != '-') return std::nullopt;
  return static_cast<pid_t>(pid);
}

Status CreateCacheFolder(const std::filesystem::path& dir) {
  FileSystem& file_system = FileSystemInUse();
  std::filesystem::path made;
  for (const std::filesystem::path& part : dir) {
    made /= part;
    if (file_system.Mkdir(made.c_str(), 0755) != 0 && errno != EEXIST)
      return FolderError(made, "cannot create the cache folder");
  }
  return {};
}

int CreateCacheTemp(const std::filesystem::path& temporary) {
  FileSystem& file_system = FileSystemInUse();
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  bool made_folder = false;
  while (true) {
    const int fd = file_system.Open(temporary.c_str(), kFlags, 0644);
    if (fd >= 0) return fd;
    if (errno == EINTR) continue;
    if (errno != ENOENT || made_folder) return -1;
    // The subfolder's first entry makes it; another process may make it at
    // the same moment (EEXIST).
    if (file_system.Mkdir(temporary.parent_path().c_str(), 0755) != 0 && errno != EEXIST) return -1;
    made_folder = true;
  }
}

Result<std::vector<ScannedEntry>> ScanCacheFolder(const std::filesystem::path& dir) {
  std::vector<ScannedEntry> entries;
  for (int sub = 0; sub < 256; ++sub) {
    Status scanned = ScanSubfolder(Subfolder(dir, static_cast<uint64_t>(sub) << 56), &entries);
    if (!scanned.ok()) return scanned.error();
  }
  return entries;
}

}  // namespace segfeed::source
