#include "memory/cgroup_limit.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::memory {
namespace {

namespace fs = std::filesystem;

// v1 writes "unlimited" as PAGE_COUNTER_MAX pages (just under 2^63 bytes);
// nothing real is near 2^62 bytes.
constexpr uint64_t kUnlimitedFrom = uint64_t{1} << 62;

// The names of one cgroup version's files.
struct Layout {
  int version;
  const char* limit;  // the hard limit the OOM killer enforces
  const char* usage;  // the bytes charged to the cgroup, its children's included
  // memory.stat's keys of the file cache (hierarchical where v1 has both).
  const char* active_file;
  const char* inactive_file;
};
constexpr Layout kV1{1, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_active_file",
                     "total_inactive_file"};
constexpr Layout kV2{2, "memory.max", "memory.current", "active_file", "inactive_file"};

// The whole of a small file, or nothing when it cannot be read (missing, a
// directory, no permission).
std::optional<std::string> ReadSmallFile(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return text;
}

std::string_view Trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\n");
  return text.substr(first, last - first + 1);
}

// A decimal count of bytes filling the whole text, or nothing.
std::optional<uint64_t> ParseBytes(std::string_view text) {
  text = Trim(text);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The limit in `file`: nothing for no limit ("max", a huge value) and for
// a file that cannot be read or parsed.
std::optional<uint64_t> ReadLimit(const fs::path& file) {
  const std::optional<std::string> text = ReadSmallFile(file);
  if (!text || Trim(*text) == "max") return std::nullopt;
  const std::optional<uint64_t> bytes = ParseBytes(*text);
  if (!bytes || *bytes >= kUnlimitedFrom) return std::nullopt;
  return bytes;
}

// The value of `key` in a memory.stat ("key value" lines), or nothing when
// it has no such line.
std::optional<uint64_t> StatValue(const std::string& stat, std::string_view key) {
  std::istringstream lines(stat);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string_view view(line);
    if (view.size() > key.size() && view.substr(0, key.size()) == key && view[key.size()] == ' ') {
      return ParseBytes(view.substr(key.size() + 1));
    }
  }
  return std::nullopt;
}

// The file cache charged to the cgroup in `dir` (0 when memory.stat cannot
// be read).
uint64_t ReadFileCache(const fs::path& dir, const Layout& layout) {
  const std::string stat = ReadSmallFile(dir / "memory.stat").value_or("");
  std::optional<uint64_t> active = StatValue(stat, layout.active_file);
  std::optional<uint64_t> inactive = StatValue(stat, layout.inactive_file);
  if (!active && !inactive) {
    // A v1 kernel without the hierarchical totals: the cgroup's own figures.
    active = StatValue(stat, "active_file");
    inactive = StatValue(stat, "inactive_file");
  }
  return active.value_or(0) + inactive.value_or(0);
}

// What the cgroup in `dir` holds that the kernel cannot reclaim: its usage
// less its file cache. 0 when the usage cannot be read.
uint64_t ReadInUse(const fs::path& dir, const Layout& layout) {
  const std::optional<std::string> usage_text = ReadSmallFile(dir / layout.usage);
  const std::optional<uint64_t> usage = usage_text ? ParseBytes(*usage_text) : std::nullopt;
  if (!usage) return 0;
  const uint64_t cache = ReadFileCache(dir, layout);
  return cache < *usage ? *usage - cache : 0;
}

// The cgroup's path in the hierarchy `layout` names, from /proc/self/cgroup.
std::optional<std::string> OwnCgroupPath(const std::string& proc_cgroup, const Layout& layout) {
  std::istringstream lines(proc_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // "hierarchy-id:controllers:path"; the path may itself hold ':'.
    const auto first = line.find(':');
    if (first == std::string::npos) continue;
    const auto second = line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view id = std::string_view(line).substr(0, first);
    const std::string_view controllers =
        std::string_view(line).substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (layout.version == 2) {
      if (id == "0" && controllers.empty()) return path;
      continue;
    }
    for (size_t start = 0; start <= controllers.size();) {
      const size_t comma = std::min(controllers.find(',', start), controllers.size());
      if (controllers.substr(start, comma - start) == "memory") return path;
      start = comma + 1;
    }
  }
  return std::nullopt;
}

// The cgroup folders whose limits apply: the process's own, then each
// ancestor up to the mount's root; only the root when the own path is not
// visible under the mount (or lies outside it: a cgroup namespace shows a
// cgroup outside its root as "/../..").
std::vector<fs::path> LimitFolders(const fs::path& mount, const std::string& cgroup_path) {
  std::vector<fs::path> folders;
  fs::path relative = fs::path(cgroup_path).relative_path().lexically_normal();
  std::error_code error;
  const bool inside = !relative.empty() && relative != "." && *relative.begin() != "..";
  if (inside && fs::is_directory(mount / relative, error)) {
    for (; !relative.empty() && relative != "."; relative = relative.parent_path()) {
      folders.push_back(mount / relative);
    }
  }
  folders.push_back(mount);
  return folders;
}

CgroupMemoryLimit ReadLimitOf(const fs::path& mount, const std::string& cgroup_path,
                              const Layout& layout) {
  CgroupMemoryLimit tightest;
  for (const fs::path& folder : LimitFolders(mount, cgroup_path)) {
    const std::optional<uint64_t> limit = ReadLimit(folder / layout.limit);
    if (!limit) continue;
    CgroupMemoryLimit here;
    here.cgroup_version = layout.version;
    here.limit_bytes = *limit;
    here.in_use_bytes = ReadInUse(folder, layout);
    here.limit_file = folder / layout.limit;
    if (!tightest.limited() || here.room_bytes() < tightest.room_bytes()) tightest = here;
  }
  return tightest;
}

std::string MiBText(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

CgroupMemoryLimit ReadCgroupMemoryLimit(const fs::path& root) {
  const std::optional<std::string> proc_cgroup = ReadSmallFile(root / "proc/self/cgroup");
  if (!proc_cgroup) return {};
  // v1 first: a hybrid system lists both, and its memory controller is then
  // the v1 one (the v2 hierarchy has no memory files).
  if (const auto path = OwnCgroupPath(*proc_cgroup, kV1)) {
    return ReadLimitOf(root / "sys/fs/cgroup/memory", *path, kV1);
  }
  if (const auto path = OwnCgroupPath(*proc_cgroup, kV2)) {
    return ReadLimitOf(root / "sys/fs/cgroup", *path, kV2);
  }
  return {};
}

std::string DescribeCgroupLimit(const CgroupMemoryLimit& limit) {
  if (!limit.limited()) return "no container memory limit";
  return "cgroup v" + std::to_string(limit.cgroup_version) + " limit " +
         std::to_string(limit.limit_bytes) + " bytes (" + MiBText(limit.limit_bytes) + ") in " +
         limit.limit_file.string() + ", " + std::to_string(limit.in_use_bytes) + " bytes (" +
         MiBText(limit.in_use_bytes) + ") already in use";
}

void CheckPlanFitsCgroup(const MemoryPlan& plan, const CgroupMemoryLimit& limit) {
  if (!limit.limited() || plan.total_bytes <= limit.room_bytes()) return;
  throw ConfigError("the memory plan needs " + std::to_string(plan.total_bytes) + " bytes (" +
                    MiBText(plan.total_bytes) + "; pool " + std::to_string(plan.pool_bytes) +
                    "), more than the " + std::to_string(limit.room_bytes()) + " bytes (" +
                    MiBText(limit.room_bytes()) + ") left under the container's memory limit (" +
                    DescribeCgroupLimit(limit) +
                    "): lower batch_size, prefetch_batches, the output size or threads");
}

}  // namespace segfeed::memory
