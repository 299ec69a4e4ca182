#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "segfeed/memory.h"

namespace segfeed::memory {

// The memory limit of the control group (container) this process runs in:
// the one that leaves the least room, when the process's cgroup and its
// ancestors have several (a parent's limit applies to its children too).
// A limit is what the kernel OOM-kills at, so a plan above the room it
// leaves cannot run to the end.
struct CgroupMemoryLimit {
  int cgroup_version = 0;  // 1 or 2 when a limit applies; 0 when none is known
  size_t limit_bytes = 0;  // memory.limit_in_bytes (v1) or memory.max (v2)
  // What that cgroup already holds that the kernel cannot reclaim: its
  // usage (memory.usage_in_bytes, memory.current) less its file cache
  // (active_file + inactive_file of memory.stat), which the kernel drops
  // before it OOM-kills. The anonymous memory of every process in the
  // cgroup (this one's libraries and heap included) and kernel memory stay.
  size_t in_use_bytes = 0;
  std::filesystem::path limit_file;  // the file the limit was read from

  bool limited() const { return cgroup_version != 0; }
  // limit_bytes - in_use_bytes, or 0 when the cgroup is already full.
  size_t room_bytes() const { return in_use_bytes < limit_bytes ? limit_bytes - in_use_bytes : 0; }
};

// Reads the limit that applies to this process below `root` ("/" outside
// tests): its cgroup from root/proc/self/cgroup (the `memory` controller's
// line for cgroup v1, else the `0::` line for v2), then the limit files of
// that cgroup and of each ancestor up to the mount
// (root/sys/fs/cgroup/memory/<path> for v1, root/sys/fs/cgroup/<path> for
// v2). Where the path is not visible under the mount (a container that
// shows its own cgroup as the mount's root), the mount's root files are
// read. "max" (v2) and values of 2^62 bytes or more (v1's "unlimited" is
// about 2^63) are no limit. A missing, unreadable or malformed file is no
// known limit at that level, never an error; usage that cannot be read
// counts as 0. Never throws for what it reads. Safe to call from any
// thread (it only reads files); the figures are a snapshot.
CgroupMemoryLimit ReadCgroupMemoryLimit(const std::filesystem::path& root = "/");

// Throws ConfigError when plan.total_bytes is more than the room `limit`
// leaves, naming the plan, the limit, the memory already in use, the file,
// and the options that make the plan smaller. Does nothing when
// !limit.limited().
void CheckPlanFitsCgroup(const MemoryPlan& plan, const CgroupMemoryLimit& limit);

// "cgroup v1 limit 100.0 MiB in /sys/fs/cgroup/memory/a/memory.limit_in_bytes,
// 3.2 MiB in use": the words segfeed plan and the refusal use.
std::string DescribeCgroupLimit(const CgroupMemoryLimit& limit);

}  // namespace segfeed::memory
