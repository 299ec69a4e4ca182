// What ShardsSource does beyond the contract every source keeps
// (sample_source_test.cc): its member names, its shard descriptors, and each
// read system call failing in turn.

#include "source/shards_source.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "source/fault_injecting_file_system.h"
#include "source/shard_samples.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::FaultInjectingFileSystem;
using testing::FileCall;
using testing::TempDir;

class ShardsSourceTest : public ::testing::Test {
 protected:
  ShardsSourceTest() {
    for (int shard = 0; shard < 2; ++shard) {
      std::vector<testing::TarEntrySpec> entries;
      for (int i = 0; i < 3; ++i) {
        const std::string key = "city.v2/k" + std::to_string(shard * 3 + i);
        photos_.push_back(testing::RandomBytes(900 + static_cast<size_t>(i), shard * 10 + i));
        entries.push_back(testing::File(key + ".jpg", photos_.back()));
        entries.push_back(testing::File(key + ".mask.png", testing::RandomBytes(40, 99)));
      }
      testing::WriteTar(Shard(shard), testing::TarFormat::kGnu, entries);
    }
    ShardListing listing = ScanShards({Shard(0), Shard(1)});
    EXPECT_TRUE(listing.errors.empty());
    source_ = std::make_unique<ShardsSource>(std::move(listing.catalog));
  }

  std::filesystem::path Shard(int i) const {
    return dir_ / ("shard-00000" + std::to_string(i) + ".tar");
  }

  TempDir dir_;
  std::vector<std::vector<uint8_t>> photos_;
  std::unique_ptr<ShardsSource> source_;
};

TEST_F(ShardsSourceTest, MembersAreNamedByShardAndMemberPath) {
  EXPECT_EQ(source_->Key(4), "city.v2/k4");
  EXPECT_EQ(source_->MemberName(4, Member::kImage), Shard(1).string() + ":city.v2/k4.jpg");
  EXPECT_EQ(source_->MemberName(4, Member::kMask), Shard(1).string() + ":city.v2/k4.mask.png");
  EXPECT_EQ(source_->MemberSize(4, Member::kImage), 901);
}

TEST_F(ShardsSourceTest, EachShardIsOpenedOnceAndClosedWithTheSource) {
  FaultInjectingFileSystem file_system;
  FileSystemOverrideForTesting override(&file_system);
  const int before = testing::CountOpenFileDescriptors();
  ReadBuffer buffer;
  for (int round = 0; round < 3; ++round) {
    for (SampleId id = 0; id < 6; ++id) {
      auto read = source_->Read(id, Member::kImage, &buffer);
      ASSERT_TRUE(read.ok()) << read.error().Message();
      EXPECT_EQ(std::vector<uint8_t>(read.value().begin(), read.value().end()), photos_[id]);
    }
  }
  EXPECT_EQ(file_system.calls(FileCall::kOpen), 2);
  EXPECT_EQ(file_system.calls(FileCall::kPread), 18);
  EXPECT_EQ(testing::CountOpenFileDescriptors(), before + 2);
  source_.reset();
  EXPECT_EQ(testing::CountOpenFileDescriptors(), before);
}

TEST_F(ShardsSourceTest, EveryFailingCallFailsThatReadOnly) {
  FaultInjectingFileSystem file_system;
  FileSystemOverrideForTesting override(&file_system);
  struct Case {
    FileCall call;
    testing::Fault fault;
    bool read_fails;
  };
  using Kind = testing::Fault::Kind;
  const Case cases[] = {
      {FileCall::kOpen, {Kind::kErrno, EACCES}, true},
      {FileCall::kOpen, {Kind::kErrno, EINTR}, false},  // retried
      {FileCall::kPread, {Kind::kErrno, EIO}, true},
      {FileCall::kPread, {Kind::kErrno, EINTR}, false},
      {FileCall::kPread, {Kind::kShortTransfer, 0}, false},  // read on
      {FileCall::kPread, {Kind::kEarlyEnd, 0}, true},
  };
  for (const Case& c : cases) {
    // A fresh source each time, so the open is the first call.
    ShardListing listing = ScanShards({Shard(0), Shard(1)});
    ShardsSource source(std::move(listing.catalog));
    file_system.Arm(c.call, 1, c.fault);
    ReadBuffer buffer;
    auto read = source.Read(1, Member::kImage, &buffer);
    const std::string what =
        std::string(testing::FileCallName(c.call)) + " " + testing::FaultName(c.fault);
    EXPECT_TRUE(file_system.fired()) << what;
    EXPECT_EQ(!read.ok(), c.read_fails) << what;
    if (!read.ok()) {
      EXPECT_EQ(read.error().kind, ErrorKind::kIoError) << what;
      EXPECT_EQ(read.error().path, source.MemberName(1, Member::kImage)) << what;
      EXPECT_TRUE(buffer.bytes().empty());
    } else {
      EXPECT_EQ(std::vector<uint8_t>(read.value().begin(), read.value().end()), photos_[1]) << what;
    }
    // The next read, on the same buffer, is whole.
    auto next = source.Read(1, Member::kImage, &buffer);
    ASSERT_TRUE(next.ok()) << what << ": " << next.error().Message();
    EXPECT_EQ(std::vector<uint8_t>(next.value().begin(), next.value().end()), photos_[1]) << what;
    file_system.Disarm();
  }
}

TEST_F(ShardsSourceTest, AShardCutShortSinceItWasScannedSaysSo) {
  std::vector<uint8_t> tar = testing::ReadAll(Shard(1));
  tar.resize(static_cast<size_t>(source_->catalog().MemberOffset(5, Member::kImage) + 10));
  testing::WriteAll(Shard(1), tar);
  ReadBuffer buffer;
  auto read = source_->Read(5, Member::kImage, &buffer);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().detail.find("segfeed index"), std::string::npos) << read.error().Message();
  EXPECT_TRUE(source_->Read(0, Member::kImage, &buffer).ok());
}

}  // namespace
}  // namespace segfeed::source
