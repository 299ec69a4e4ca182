#include "pack/tar_shard_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "source/tar_scan.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::pack {
namespace {

using segfeed::testing::RandomBytes;
using segfeed::testing::TempDir;

struct Member {
  std::string name;
  std::vector<uint8_t> bytes;
};

std::vector<Member> SomeMembers() {
  return {{"a.jpg", RandomBytes(700, 1)},
          {"a.mask.png", RandomBytes(512, 2)},
          {"a.json", {}},
          {std::string(120, 'k') + ".jpg", RandomBytes(3, 3)},   // past ustar's 100 bytes
          {"dir/\xc3\xa9t\xc3\xa9.jpg", RandomBytes(1025, 4)}};  // not ASCII
}

void Write(const std::filesystem::path& path, const std::vector<Member>& members) {
  TarShardWriter writer;
  ASSERT_TRUE(writer.Open(path).ok());
  for (const Member& member : members) {
    const Status added = writer.Add(member.name, member.bytes);
    ASSERT_TRUE(added.ok()) << added.error().Message();
  }
  ASSERT_TRUE(writer.Finish().ok());
}

TEST(TarShardWriterTest, TheScanReadsBackEveryMemberAtItsOffset) {
  TempDir dir;
  const std::vector<Member> members = SomeMembers();
  Write(dir / "s.tar", members);
  const source::TarScan scan = source::ScanTar(dir / "s.tar");
  ASSERT_FALSE(scan.stopped) << scan.stopped->Message();
  EXPECT_TRUE(scan.problems.empty() || scan.problems.size() == 1);  // the 0-byte member
  ASSERT_EQ(scan.members.size(), members.size());
  const std::vector<uint8_t> tar = segfeed::testing::ReadAll(dir / "s.tar");
  int64_t estimated = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(scan.members[i].name, members[i].name);
    ASSERT_EQ(scan.members[i].size, static_cast<int64_t>(members[i].bytes.size()));
    const auto begin = tar.begin() + scan.members[i].data_offset;
    EXPECT_TRUE(std::equal(members[i].bytes.begin(), members[i].bytes.end(), begin)) << i;
    estimated += TarMemberBytes(members[i].name, scan.members[i].size);
  }
  // The estimate that cuts shards is not below what the members take.
  EXPECT_GE(estimated + 1024, scan.members.back().data_offset + scan.members.back().size);
}

TEST(TarShardWriterTest, SameMembersSameBytesWithFixedHeaders) {
  TempDir dir;
  Write(dir / "one.tar", SomeMembers());
  Write(dir / "two.tar", SomeMembers());
  const std::vector<uint8_t> one = segfeed::testing::ReadAll(dir / "one.tar");
  EXPECT_EQ(one, segfeed::testing::ReadAll(dir / "two.tar"));
  // The first ustar header: mode 0644, uid and gid 0, mtime 0, no owner names.
  const std::string header(one.begin(), one.begin() + 512);
  EXPECT_EQ(header.substr(100, 7), "000644 ");
  EXPECT_EQ(header.substr(108, 7), "000000 ");
  EXPECT_EQ(header.substr(116, 7), "000000 ");
  EXPECT_EQ(header.substr(136, 11), "00000000000");
  EXPECT_EQ(header[265], '\0');  // uname
  EXPECT_EQ(header[297], '\0');  // gname
}

TEST(TarShardWriterTest, RefusesAnExistingFileNamingIt) {
  TempDir dir;
  segfeed::testing::WriteAll(dir / "s.tar", {1, 2, 3});
  TarShardWriter writer;
  const Status opened = writer.Open(dir / "s.tar");
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().Message().find("s.tar"), std::string::npos);
}

}  // namespace
}  // namespace segfeed::pack
