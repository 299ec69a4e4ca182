#include "memory/cgroup_limit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "segfeed/errors.h"
#include "segfeed/memory.h"
#include "temp_dir.h"

namespace segfeed::memory {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
// What cgroup v1 writes for "no limit" on 4 KiB pages.
constexpr const char* kV1Unlimited = "9223372036854771712\n";

// A fake root: proc/self/cgroup and cgroup trees under a temporary folder.
class CgroupLimitTest : public ::testing::Test {
 protected:
  // Writes `text` to root/`relative`, making its folders.
  void Write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = dir_.path() / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  // A v1 memory cgroup at sys/fs/cgroup/memory/`path` (empty: the mount's root).
  void WriteV1(const std::string& path, const std::string& limit, size_t usage_bytes,
               size_t active_file_bytes = 0, size_t inactive_file_bytes = 0) {
    const std::string dir = "sys/fs/cgroup/memory/" + path + (path.empty() ? "" : "/");
    Write(dir + "memory.limit_in_bytes", limit);
    Write(dir + "memory.usage_in_bytes", std::to_string(usage_bytes) + "\n");
    Write(dir + "memory.stat",
          "cache 1\nrss 2\nactive_file 7\ninactive_file 9\n"
          "total_active_file " +
              std::to_string(active_file_bytes) + "\ntotal_inactive_file " +
              std::to_string(inactive_file_bytes) + "\n");
  }
  void WriteV2(const std::string& path, const std::string& max, size_t current_bytes,
               size_t active_file_bytes = 0, size_t inactive_file_bytes = 0) {
    const std::string dir = "sys/fs/cgroup/" + path + (path.empty() ? "" : "/");
    Write(dir + "memory.max", max);
    Write(dir + "memory.current", std::to_string(current_bytes) + "\n");
    Write(dir + "memory.stat", "anon 5\nfile 6\nactive_file " + std::to_string(active_file_bytes) +
                                   "\ninactive_file " + std::to_string(inactive_file_bytes) + "\n");
  }
  CgroupMemoryLimit Read() const { return ReadCgroupMemoryLimit(dir_.path()); }
  std::filesystem::path Root() const { return dir_.path(); }

  segfeed::testing::TempDir dir_;
};

constexpr const char* kV1ProcCgroup =
    "12:pids:/job/task\n4:memory:/job/task\n1:name=systemd:/job/task\n0::/\n";
constexpr const char* kV2ProcCgroup = "0::/job/task\n";

TEST_F(CgroupLimitTest, ReadsV1LimitAndUsageLessFileCache) {
  Write("proc/self/cgroup", kV1ProcCgroup);
  WriteV1("job/task", "104857600\n", 30 * kMiB, 4 * kMiB, 6 * kMiB);
  const CgroupMemoryLimit limit = Read();
  ASSERT_TRUE(limit.limited());
  EXPECT_EQ(limit.cgroup_version, 1);
  EXPECT_EQ(limit.limit_bytes, 100 * kMiB);
  EXPECT_EQ(limit.in_use_bytes, 20 * kMiB);  // the hierarchical totals, not the 7 + 9 bytes
  EXPECT_EQ(limit.room_bytes(), 80 * kMiB);
  EXPECT_EQ(limit.limit_file, Root() / "sys/fs/cgroup/memory/job/task/memory.limit_in_bytes");
}

TEST_F(CgroupLimitTest, ReadsV2LimitAndUsageLessFileCache) {
  Write("proc/self/cgroup", kV2ProcCgroup);
  WriteV2("job/task", "104857600\n", 30 * kMiB, 4 * kMiB, 6 * kMiB);
  const CgroupMemoryLimit limit = Read();
  ASSERT_TRUE(limit.limited());
  EXPECT_EQ(limit.cgroup_version, 2);
  EXPECT_EQ(limit.limit_bytes, 100 * kMiB);
  EXPECT_EQ(limit.in_use_bytes, 20 * kMiB);
  EXPECT_EQ(limit.limit_file, Root() / "sys/fs/cgroup/job/task/memory.max");
}

TEST_F(CgroupLimitTest, MaxAndHugeValuesAreNoLimit) {
  Write("proc/self/cgroup", kV2ProcCgroup);
  WriteV2("job/task", "max\n", 30 * kMiB);
  EXPECT_FALSE(Read().limited());

  Write("proc/self/cgroup", kV1ProcCgroup);
  WriteV1("job/task", kV1Unlimited, 30 * kMiB);
  WriteV1("job", kV1Unlimited, 30 * kMiB);
  WriteV1("", kV1Unlimited, 30 * kMiB);
  const CgroupMemoryLimit limit = Read();
  EXPECT_FALSE(limit.limited());
  EXPECT_EQ(DescribeCgroupLimit(limit), "no container memory limit");
}

TEST_F(CgroupLimitTest, ParentWithTheSmallerLimitApplies) {
  Write("proc/self/cgroup", kV1ProcCgroup);
  WriteV1("job/task", "1073741824\n", 10 * kMiB);
  WriteV1("job", "209715200\n", 50 * kMiB);  // 200 MiB for the job's tasks together
  WriteV1("", kV1Unlimited, 500 * kMiB);
  const CgroupMemoryLimit limit = Read();
  ASSERT_TRUE(limit.limited());
  EXPECT_EQ(limit.limit_bytes, 200 * kMiB);
  EXPECT_EQ(limit.in_use_bytes, 50 * kMiB);
  EXPECT_EQ(limit.limit_file, Root() / "sys/fs/cgroup/memory/job/memory.limit_in_bytes");
}

TEST_F(CgroupLimitTest, TheLimitWithTheLeastRoomLeftApplies) {
  // The parent's limit is larger, but its other children fill most of it.
  Write("proc/self/cgroup", kV2ProcCgroup);
  WriteV2("job/task", "104857600\n", 10 * kMiB);
  WriteV2("job", "157286400\n", 120 * kMiB);
  const CgroupMemoryLimit limit = Read();
  ASSERT_TRUE(limit.limited());
  EXPECT_EQ(limit.limit_bytes, 150 * kMiB);
  EXPECT_EQ(limit.room_bytes(), 30 * kMiB);
}

TEST_F(CgroupLimitTest, V1WithoutHierarchicalTotalsUsesTheCgroupsOwnCache) {
  Write("proc/self/cgroup", kV1ProcCgroup);
  WriteV1("job/task", "104857600\n", 30 * kMiB);
  Write("sys/fs/cgroup/memory/job/task/memory.stat", "active_file " + std::to_string(2 * kMiB) +
                                                         "\ninactive_file " +
                                                         std::to_string(3 * kMiB) + "\n");
  EXPECT_EQ(Read().in_use_bytes, 25 * kMiB);
}

TEST_F(CgroupLimitTest, NamespacedPathReadsTheMountRoot) {
  // A container without its own cgroup namespace names its host path, which
  // its mount does not show: the mount's root is the container's cgroup.
  Write("proc/self/cgroup", "4:memory:/docker/0123abcd\n");
  WriteV1("", "104857600\n", 8 * kMiB);
  const CgroupMemoryLimit limit = Read();
  ASSERT_TRUE(limit.limited());
  EXPECT_EQ(limit.limit_bytes, 100 * kMiB);
  EXPECT_EQ(limit.limit_file, Root() / "sys/fs/cgroup/memory/memory.limit_in_bytes");

  // A path outside the namespace's root never leaves the mount.
  Write("proc/self/cgroup", "4:memory:/../outside\n");
  WriteV1("../outside", "1048576\n", 0);  // mount/../outside
  EXPECT_EQ(Read().limit_file, Root() / "sys/fs/cgroup/memory/memory.limit_in_bytes");

  Write("proc/self/cgroup", "0::/\n");
  WriteV2("", "52428800\n", 8 * kMiB);
  std::filesystem::remove_all(Root() / "sys/fs/cgroup/memory");
  const CgroupMemoryLimit v2 = Read();
  ASSERT_TRUE(v2.limited());
  EXPECT_EQ(v2.cgroup_version, 2);
  EXPECT_EQ(v2.limit_bytes, 50 * kMiB);
}

TEST_F(CgroupLimitTest, ControllerListWithMemoryAmongOthers) {
  Write("proc/self/cgroup", "3:cpu,cpuacct:/x\n5:blkio,memory:/job/task\n");
  WriteV1("job/task", "104857600\n", 0);
  EXPECT_EQ(Read().limit_bytes, 100 * kMiB);
}

TEST_F(CgroupLimitTest, HybridSystemUsesTheV1MemoryController) {
  // systemd's hybrid layout lists a v2 line too, without memory files.
  Write("proc/self/cgroup", kV1ProcCgroup);
  WriteV1("job/task", "104857600\n", 0);
  Write("sys/fs/cgroup/unified/cgroup.procs", "1\n");
  EXPECT_EQ(Read().cgroup_version, 1);
}

TEST_F(CgroupLimitTest, MissingOrUnreadableFilesAreNoLimit) {
  EXPECT_FALSE(Read().limited());  // no proc/self/cgroup at all

  Write("proc/self/cgroup", kV1ProcCgroup);
  EXPECT_FALSE(Read().limited());  // no cgroup tree

  // A folder where the limit file should be cannot be read (this test may
  // run as root, for whom permissions do not stop reading).
  std::filesystem::create_directories(Root() /
                                      "sys/fs/cgroup/memory/job/task/memory.limit_in_bytes");
  EXPECT_FALSE(Read().limited());

  WriteV1("job", "a lot\n", 0);
  EXPECT_FALSE(Read().limited());
  WriteV1("job", "", 0);
  EXPECT_FALSE(Read().limited());
  WriteV1("job", "-1\n", 0);
  EXPECT_FALSE(Read().limited());
  WriteV1("job", "12 34\n", 0);
  EXPECT_FALSE(Read().limited());

  Write("proc/self/cgroup", "garbage without colons\n\n4:memory\n");
  EXPECT_FALSE(Read().limited());
}

TEST_F(CgroupLimitTest, UnreadableUsageCountsAsNothingInUse) {
  Write("proc/self/cgroup", kV2ProcCgroup);
  Write("sys/fs/cgroup/job/task/memory.max", "104857600\n");
  Write("sys/fs/cgroup/job/task/memory.current", "?\n");
  const CgroupMemoryLimit limit = Read();
  ASSERT_TRUE(limit.limited());
  EXPECT_EQ(limit.in_use_bytes, 0u);
  EXPECT_EQ(limit.room_bytes(), 100 * kMiB);
}

TEST_F(CgroupLimitTest, FileCacheLargerThanUsageLeavesNothingInUse) {
  Write("proc/self/cgroup", kV2ProcCgroup);
  WriteV2("job/task", "104857600\n", 10 * kMiB, 8 * kMiB, 8 * kMiB);
  EXPECT_EQ(Read().in_use_bytes, 0u);
}

TEST_F(CgroupLimitTest, FullCgroupLeavesNoRoom) {
  Write("proc/self/cgroup", kV2ProcCgroup);
  WriteV2("job/task", "104857600\n", 200 * kMiB);
  EXPECT_EQ(Read().room_bytes(), 0u);
}

MemoryPlan PlanOf(size_t total_bytes) {
  MemoryPlan plan;
  plan.total_bytes = total_bytes;
  plan.pool_bytes = total_bytes / 2;
  return plan;
}

TEST_F(CgroupLimitTest, PlanAboveTheRoomLeftIsRefusedNamingEverything) {
  Write("proc/self/cgroup", kV1ProcCgroup);
  WriteV1("job/task", "104857600\n", 10 * kMiB);
  const CgroupMemoryLimit limit = Read();
  EXPECT_NO_THROW(CheckPlanFitsCgroup(PlanOf(90 * kMiB), limit));  // exactly the room
  try {
    CheckPlanFitsCgroup(PlanOf(90 * kMiB + 1), limit);
    FAIL() << "a plan one byte above the room was not refused";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("the memory plan needs 94371841 bytes (90.0 MiB; pool 47185920)"),
              std::string::npos)
        << message;
    EXPECT_NE(
        message.find("more than the 94371840 bytes (90.0 MiB) left under the container's "
                     "memory limit (cgroup v1 limit 104857600 bytes (100.0 MiB) in " +
                     (Root() / "sys/fs/cgroup/memory/job/task/memory.limit_in_bytes").string() +
                     ", 10485760 bytes (10.0 MiB) already in use)"),
        std::string::npos)
        << message;
    EXPECT_NE(message.find(": lower batch_size, prefetch_batches, the output size or threads"),
              std::string::npos)
        << message;
  }
}

TEST_F(CgroupLimitTest, NoLimitRefusesNothing) {
  EXPECT_NO_THROW(CheckPlanFitsCgroup(PlanOf(size_t{1} << 60), CgroupMemoryLimit{}));
}

}  // namespace
}  // namespace segfeed::memory
