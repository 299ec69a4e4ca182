#include "source/tar_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "digest.h"
#include "fixtures/fixtures.h"
#include "source/fault_injecting_file_system.h"
#include "source/file_system.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::TarFormat;
using testing::TempDir;

// A name past ustar's 100-byte name field (and its 155-byte prefix, since
// it has no '/' to split at): GNU tar needs an 'L' entry, PAX a path record.
const std::string kLongName = "train/" + std::string(120, 'n') + ".jpg";

std::vector<testing::TarEntrySpec> Entries(TarFormat format) {
  std::vector<testing::TarEntrySpec> entries = {
      testing::File("train/aachen_000019.jpg", testing::RandomBytes(1000, 1)),
      testing::File("train/aachen_000019.mask.png", testing::RandomBytes(512, 2)),
      testing::File("b.png", testing::RandomBytes(1, 3)),
      testing::File("data.v2/c.jpg", testing::RandomBytes(70000, 4)),
  };
  // ustar cannot hold the long name at all; elsewhere it sits between
  // members, so that the members after its extra header are placed too.
  if (format != TarFormat::kUstar)
    entries.insert(entries.begin() + 2, testing::File(kLongName, testing::RandomBytes(3, 5)));
  return entries;
}

class TarScanFormatTest : public ::testing::TestWithParam<TarFormat> {};

TEST_P(TarScanFormatTest, OffsetsPointAtEachMembersBytes) {
  TempDir dir;
  const auto shard = dir / "shard.tar";
  const auto entries = Entries(GetParam());
  testing::WriteTar(shard, GetParam(), entries);
  const std::vector<uint8_t> tar = testing::ReadAll(shard);
  // The dialect is the one asked for: the long name is in a PAX extended
  // header ('x') or a GNU long-name entry ('L').
  if (GetParam() != TarFormat::kUstar) {
    const char extra_header = GetParam() == TarFormat::kPax ? 'x' : 'L';
    bool found = false;
    for (size_t block = 0; block + 512 <= tar.size(); block += 512)
      found |= tar[block + 156] == extra_header && tar[block + 257] == 'u';
    EXPECT_TRUE(found);
  }

  const TarScan scan = ScanTar(shard);
  ASSERT_FALSE(scan.stopped) << scan.stopped->Message();
  EXPECT_TRUE(scan.problems.empty());
  EXPECT_EQ(scan.bytes, static_cast<int64_t>(tar.size()));
  ASSERT_EQ(scan.members.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const TarMember& member = scan.members[i];
    EXPECT_EQ(member.name, entries[i].name);
    EXPECT_EQ(member.kind, TarEntryKind::kRegular);
    ASSERT_EQ(member.size, static_cast<int64_t>(entries[i].bytes.size()));
    ASSERT_LE(member.data_offset + member.size, scan.bytes);
    const auto at = tar.begin() + member.data_offset;
    EXPECT_EQ(std::vector<uint8_t>(at, at + member.size), entries[i].bytes) << member.name;
    Digest digest;
    digest.Update(entries[i].bytes.data(), entries[i].bytes.size());
    EXPECT_EQ(member.digest, digest.Value());
  }
  Digest whole;
  whole.Update(tar.data(), tar.size());
  EXPECT_EQ(scan.digest, whole.Value());
}

TEST_P(TarScanFormatTest, EntriesOfOtherKindsAndOddNamesAreReported) {
  TempDir dir;
  const auto shard = dir / "shard.tar";
  using Type = testing::TarEntrySpec::Type;
  std::vector<testing::TarEntrySpec> entries = {
      testing::File("a.jpg", testing::RandomBytes(10, 1)),
      {"folder.jpg", {}, Type::kFolder},
      {"link.jpg", {}, Type::kSymlink},
      testing::File("empty.jpg", {}),
      testing::File("../up.jpg", testing::RandomBytes(10, 2)),
      testing::File("/etc/abs.jpg", testing::RandomBytes(10, 3)),
      testing::File("z.jpg", testing::RandomBytes(10, 4)),
  };
  // A name that is not UTF-8 (Latin-1 'e acute'), where the format stores
  // the bytes as given.
  if (GetParam() == TarFormat::kUstar)
    entries.insert(entries.end() - 1, testing::File("caf\xe9.jpg", testing::RandomBytes(10, 5)));
  testing::WriteTar(shard, GetParam(), entries);
  const TarScan scan = ScanTar(shard);
  ASSERT_FALSE(scan.stopped) << scan.stopped->Message();
  std::vector<std::string> names;
  for (const TarMember& member : scan.members) names.push_back(member.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"a.jpg", "folder.jpg", "link.jpg", "empty.jpg", "z.jpg"}));
  EXPECT_EQ(scan.members[1].kind, TarEntryKind::kFolder);
  EXPECT_EQ(scan.members[2].kind, TarEntryKind::kLink);
  EXPECT_EQ(scan.members[3].size, 0);
  const auto problem_of = [&](const std::string& member) -> const Error* {
    for (const Error& problem : scan.problems) {
      if (problem.path == shard.string() + ":" + member) return &problem;
    }
    return nullptr;
  };
  ASSERT_TRUE(problem_of("folder.jpg"));
  EXPECT_NE(problem_of("folder.jpg")->detail.find("a folder entry"), std::string::npos);
  ASSERT_TRUE(problem_of("link.jpg"));
  EXPECT_NE(problem_of("link.jpg")->detail.find("a link entry"), std::string::npos);
  ASSERT_TRUE(problem_of("empty.jpg"));
  EXPECT_EQ(problem_of("empty.jpg")->kind, ErrorKind::kEmptyFile);
  ASSERT_TRUE(problem_of("../up.jpg"));
  EXPECT_EQ(problem_of("../up.jpg")->kind, ErrorKind::kOutsideRoot);
  ASSERT_TRUE(problem_of("/etc/abs.jpg"));
  EXPECT_EQ(problem_of("/etc/abs.jpg")->kind, ErrorKind::kOutsideRoot);
  if (GetParam() == TarFormat::kUstar) {
    ASSERT_TRUE(problem_of("caf\xe9.jpg"));
    EXPECT_NE(problem_of("caf\xe9.jpg")->detail.find("not UTF-8"), std::string::npos);
  }
  // The member after them all is still placed right.
  const std::vector<uint8_t> tar = testing::ReadAll(shard);
  const TarMember& last = scan.members.back();
  EXPECT_EQ(std::vector<uint8_t>(tar.begin() + last.data_offset,
                                 tar.begin() + last.data_offset + last.size),
            entries.back().bytes);
}

INSTANTIATE_TEST_SUITE_P(Dialects, TarScanFormatTest,
                         ::testing::Values(TarFormat::kUstar, TarFormat::kGnu, TarFormat::kPax),
                         [](const auto& info) { return testing::TarFormatName(info.param); });

TEST(TarScanTest, UnicodeNamesSurviveEveryDialect) {
  for (TarFormat format : {TarFormat::kUstar, TarFormat::kGnu, TarFormat::kPax}) {
    TempDir dir;
    const std::string name =
        "st\xc3\xa4"
        "dte/k\xc3\xb6ln_1.jpg";
    testing::WriteTar(dir / "s.tar", format, {testing::File(name, testing::RandomBytes(5, 1))});
    const TarScan scan = ScanTar(dir / "s.tar");
    ASSERT_FALSE(scan.stopped) << scan.stopped->Message();
    ASSERT_EQ(scan.members.size(), 1u) << testing::TarFormatName(format);
    EXPECT_EQ(scan.members[0].name, name) << testing::TarFormatName(format);
  }
}

// Three members in a ustar tar; the damage is done to the bytes on disk.
class DamagedTarTest : public ::testing::Test {
 protected:
  DamagedTarTest() {
    testing::WriteTar(shard_, TarFormat::kUstar,
                      {testing::File("a.jpg", testing::RandomBytes(600, 1)),
                       testing::File("b.jpg", testing::RandomBytes(700, 2)),
                       testing::File("c.jpg", testing::RandomBytes(800, 3))});
    tar_ = testing::ReadAll(shard_);
    good_ = ScanTar(shard_);
  }

  TarScan ScanDamaged() {
    testing::WriteAll(shard_, tar_);
    return ScanTar(shard_);
  }

  // Also: where the whole members end (the offset reading stopped at) and
  // the member being read then (`member`, empty for a damaged header).
  void ExpectStoppedAt(const TarScan& scan, const std::string& where, const std::string& detail,
                       size_t whole_members, const std::string& member = "") {
    ASSERT_TRUE(scan.stopped);
    EXPECT_EQ(scan.stopped_member, member);
    const TarMember& last = good_.members[whole_members - 1];
    EXPECT_EQ(scan.stopped_at_offset, (last.data_offset + last.size + 511) / 512 * 512);
    EXPECT_EQ(scan.stopped->path, where) << scan.stopped->Message();
    EXPECT_NE(scan.stopped->detail.find(detail), std::string::npos) << scan.stopped->Message();
    ASSERT_EQ(scan.members.size(), whole_members);
    for (size_t i = 0; i < whole_members; ++i) {
      EXPECT_EQ(scan.members[i].name, good_.members[i].name);
      EXPECT_EQ(scan.members[i].data_offset, good_.members[i].data_offset);
      EXPECT_EQ(scan.members[i].digest, good_.members[i].digest);
    }
  }

  TempDir dir_;
  std::filesystem::path shard_ = dir_ / "shard-000007.tar";
  std::vector<uint8_t> tar_;
  TarScan good_;
};

TEST_F(DamagedTarTest, TruncatedInsideAMemberNamesIt) {
  tar_.resize(static_cast<size_t>(good_.members[2].data_offset + 100));
  ExpectStoppedAt(ScanDamaged(), shard_.string() + ":c.jpg", "ends inside it", 2, "c.jpg");
}

TEST_F(DamagedTarTest, TruncatedBetweenMembersIsNoticed) {
  tar_.resize(static_cast<size_t>(good_.members[1].data_offset + 1024));
  const TarScan scan = ScanDamaged();
  ExpectStoppedAt(scan, shard_.string(), "without its end-of-archive blocks", 2);
  EXPECT_NE(scan.stopped->detail.find("b.jpg"), std::string::npos) << scan.stopped->Message();
}

TEST_F(DamagedTarTest, BadHeaderChecksumStopsAfterTheLastGoodMember) {
  tar_[static_cast<size_t>(good_.members[1].data_offset - 512 + 10)] ^= 0x40;  // in b's name
  const TarScan scan = ScanDamaged();
  ExpectStoppedAt(scan, shard_.string(), "damaged tar header after", 1);
  EXPECT_NE(scan.stopped->detail.find("a.jpg"), std::string::npos) << scan.stopped->Message();
}

TEST_F(DamagedTarTest, SizeRunningPastTheEndNamesTheMember) {
  testing::SetUstarSize(&tar_, good_.members[2].data_offset, 1 << 20);
  ExpectStoppedAt(ScanDamaged(), shard_.string() + ":c.jpg", "ends inside it", 2, "c.jpg");
}

TEST_F(DamagedTarTest, NotATarAtAll) {
  tar_ = testing::RandomBytes(4096, 9);
  const TarScan scan = ScanDamaged();
  ASSERT_TRUE(scan.stopped);
  EXPECT_EQ(scan.stopped->kind, ErrorKind::kUnsupportedFormat) << scan.stopped->Message();
  EXPECT_TRUE(scan.members.empty());
}

// Every read(2) of the scan failing in turn, each way a read can fail: the
// scan stops with an error naming the shard, or reads on (EINTR, a short
// read), and what it kept is always a prefix of the whole scan.
TEST(TarScanTest, EveryFailingReadStopsTheScanOrIsReadPast) {
  TempDir dir;
  const auto shard = dir / "shard.tar";
  testing::WriteTar(shard, TarFormat::kPax,
                    {testing::File("a.jpg", testing::RandomBytes(1500000, 1)),
                     testing::File("b.jpg", testing::RandomBytes(1500000, 2)),
                     testing::File("c.jpg", testing::RandomBytes(10, 3))});
  const TarScan good = ScanTar(shard);
  ASSERT_FALSE(good.stopped);
  testing::FaultInjectingFileSystem file_system;
  FileSystemOverrideForTesting override(&file_system);
  file_system.Disarm();
  ASSERT_FALSE(ScanTar(shard).stopped);
  const int64_t reads = file_system.calls(testing::FileCall::kRead);
  ASSERT_GE(reads, 4);
  using Kind = testing::Fault::Kind;
  for (const testing::Fault fault :
       {testing::Fault{Kind::kErrno, EIO}, testing::Fault{Kind::kErrno, EINTR},
        testing::Fault{Kind::kShortTransfer, 0}, testing::Fault{Kind::kEarlyEnd, 0}}) {
    for (int64_t nth = 1; nth <= reads; ++nth) {
      file_system.Arm(testing::FileCall::kRead, nth, fault);
      const TarScan scan = ScanTar(shard);
      const std::string what = testing::FaultName(fault) + " at read " + std::to_string(nth);
      ASSERT_TRUE(file_system.fired()) << what;
      // The last read finds the end anyway: an early end there is none.
      const bool reads_on = fault.kind == Kind::kShortTransfer || fault.error == EINTR ||
                            (fault.kind == Kind::kEarlyEnd && nth == reads);
      EXPECT_EQ(!scan.stopped, reads_on) << what;
      if (scan.stopped) {
        EXPECT_EQ(scan.stopped->path.rfind(shard.string(), 0), 0u) << scan.stopped->Message();
      } else {
        EXPECT_EQ(scan.digest, good.digest) << what;
      }
      ASSERT_LE(scan.members.size(), good.members.size()) << what;
      for (size_t i = 0; i < scan.members.size(); ++i) {
        EXPECT_EQ(scan.members[i].data_offset, good.members[i].data_offset) << what;
        EXPECT_EQ(scan.members[i].digest, good.members[i].digest) << what;
      }
    }
  }
}

TEST(TarScanTest, MissingShardIsAnIoErrorNamingIt) {
  TempDir dir;
  const TarScan scan = ScanTar(dir / "nowhere.tar");
  ASSERT_TRUE(scan.stopped);
  EXPECT_EQ(scan.stopped->kind, ErrorKind::kIoError);
  EXPECT_EQ(scan.stopped->path, (dir / "nowhere.tar").string());
  EXPECT_NE(scan.stopped->detail.find("No such file"), std::string::npos);
}

}  // namespace
}  // namespace segfeed::source
