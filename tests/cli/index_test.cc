// Runs `segfeed index` itself: the index it writes is the catalog of the
// shards, damaged shards are named and leave no index unless asked, and
// usage errors exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "run_segfeed.h"
#include "source/shard_index.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using segfeed::testing::File;
using segfeed::testing::Quoted;
using segfeed::testing::RandomBytes;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TarFormat;
using segfeed::testing::TempDir;

class IndexCommandTest : public ::testing::Test {
 protected:
  IndexCommandTest() {
    testing::WriteTar(
        dir_ / "d-000000.tar", TarFormat::kPax,
        {File("train/a.jpg", RandomBytes(500, 1)), File("train/a.mask.png", RandomBytes(50, 2)),
         File("train/a.json", RandomBytes(5, 3))});
    testing::WriteTar(
        dir_ / "d-000001.tar", TarFormat::kGnu,
        {File("train/b.mask.png", RandomBytes(60, 4)), File("train/b.jpg", RandomBytes(600, 5)),
         File("train/c.jpg", RandomBytes(7, 6))});
    shards_ = Quoted(dir_ / "d-000000.tar") + " " + Quoted(dir_ / "d-000001.tar");
  }

  TempDir dir_;
  std::string shards_;
};

TEST_F(IndexCommandTest, WritesTheIndexBesideTheFirstShard) {
  const auto result = RunSegfeed("index " + shards_);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("3 samples, 1 extra members"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("d-000001.tar:train/c: unpaired"), std::string::npos)
      << result.output;
  auto catalog =
      source::ReadShardIndex(dir_ / source::kShardIndexFileName, source::ShardCheck::kDigests);
  ASSERT_TRUE(catalog.ok()) << catalog.error().Message();
  ASSERT_EQ(catalog.value().sample_count(), 3u);
  EXPECT_EQ(catalog.value().Key(0), "train/a");
  EXPECT_EQ(catalog.value().Key(1), "train/b");
  EXPECT_EQ(catalog.value().record(1).size[0], 600u);
  EXPECT_EQ(catalog.value().FormOf(2, source::Member::kMask), nullptr);
}

TEST_F(IndexCommandTest, OtherRolesAndOutput) {
  const auto result = RunSegfeed("index " + shards_ + " --photo json --mask jpg --output " +
                                 Quoted(dir_ / "other.sfidx"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto catalog = source::ReadShardIndex(dir_ / "other.sfidx");
  ASSERT_TRUE(catalog.ok()) << catalog.error().Message();
  EXPECT_EQ(catalog.value().FormOf(0, source::Member::kImage)->extension, "json");
  EXPECT_EQ(catalog.value().FormOf(0, source::Member::kMask)->extension, "jpg");
}

TEST_F(IndexCommandTest, ADamagedShardIsNamedAndLeavesNoIndexUnlessAllowed) {
  std::vector<uint8_t> tar = testing::ReadAll(dir_ / "d-000001.tar");
  tar.resize(1700);  // inside b.jpg's data (its header is at 1024)
  testing::WriteAll(dir_ / "d-000001.tar", tar);
  auto result = RunSegfeed("index " + shards_);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("d-000001.tar:train/b.jpg"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("no index written"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / source::kShardIndexFileName));
  result = RunSegfeed("index " + shards_ + " --allow-errors");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  auto catalog = source::ReadShardIndex(dir_ / source::kShardIndexFileName);
  ASSERT_TRUE(catalog.ok()) << catalog.error().Message();
  EXPECT_EQ(catalog.value().sample_count(), 1u);
}

TEST_F(IndexCommandTest, UsageErrors) {
  EXPECT_EQ(RunSegfeed("index").exit_code, 2);
  EXPECT_EQ(RunSegfeed("index " + shards_ + " --photo ,").exit_code, 2);
  EXPECT_EQ(RunSegfeed("index " + shards_ + " --bogus").exit_code, 2);
  const auto help = RunSegfeed("index --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("usage: segfeed index SHARD..."), std::string::npos);
}

}  // namespace
}  // namespace segfeed
