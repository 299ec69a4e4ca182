#include "source/shard_samples.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::File;
using testing::RandomBytes;
using testing::TarFormat;
using testing::TempDir;

TEST(SplitMemberNameTest, KeyUpToTheFirstDotOfTheLastComponent) {
  using Split = std::pair<std::string_view, std::string_view>;
  EXPECT_EQ(SplitMemberName("train/aachen_000019.jpg"), (Split{"train/aachen_000019", "jpg"}));
  EXPECT_EQ(SplitMemberName("k.mask.png"), (Split{"k", "mask.png"}));
  EXPECT_EQ(SplitMemberName("v1.2/city.x/k.seg.png"), (Split{"v1.2/city.x/k", "seg.png"}));
  EXPECT_EQ(SplitMemberName("README"), (Split{"README", ""}));
}

std::vector<uint8_t> Bytes(uint32_t seed) { return RandomBytes(100 + seed, seed); }

const Error* Find(const std::vector<Error>& errors, const std::string& path) {
  for (const Error& error : errors) {
    if (error.path == path) return &error;
  }
  return nullptr;
}

TEST(ShardSamplesTest, RunsOfOneKeyInAnyOrderMakeSamples) {
  TempDir dir;
  testing::WriteTar(dir / "a.tar", TarFormat::kPax,
                    {File("v1.2/k1.mask.png", Bytes(1)), File("v1.2/k1.jpg", Bytes(2)),
                     File("v1.2/k1.json", Bytes(3)), File("k2.cls", Bytes(4)),
                     File("k2.jpg", Bytes(5)), File("k2.seg.png", Bytes(6))});
  testing::WriteTar(
      dir / "b.tar", TarFormat::kGnu,
      {File("k3.JPG", Bytes(7)), File("k3.txt", Bytes(8)), File("k3.mask.gif", Bytes(9))});
  const ShardListing listing = ScanShards({dir / "a.tar", dir / "b.tar"});
  EXPECT_TRUE(listing.errors.empty());
  EXPECT_TRUE(listing.problems.empty()) << listing.problems[0].Message();
  EXPECT_EQ(listing.extra_members, 3);
  const ShardCatalog& catalog = listing.catalog;
  ASSERT_EQ(catalog.sample_count(), 3u);
  EXPECT_EQ(catalog.Key(0), "v1.2/k1");
  EXPECT_EQ(catalog.Key(1), "k2");
  EXPECT_EQ(catalog.Key(2), "k3");
  EXPECT_EQ(catalog.FormOf(0, Member::kImage)->extension, "jpg");
  EXPECT_EQ(catalog.FormOf(0, Member::kMask)->extension, "mask.png");
  EXPECT_EQ(catalog.FormOf(1, Member::kMask)->extension, "seg.png");
  EXPECT_EQ(catalog.FormOf(2, Member::kImage)->extension, "JPG");
  EXPECT_EQ(catalog.ShardOf(2).path, dir / "b.tar");
  // The records point at the members' bytes.
  const std::vector<uint8_t> tar = testing::ReadAll(dir / "a.tar");
  const SampleRecord& record = catalog.record(0);
  const uint64_t mask_offset = catalog.MemberOffset(0, Member::kMask);
  EXPECT_EQ(std::vector<uint8_t>(tar.begin() + static_cast<int64_t>(mask_offset),
                                 tar.begin() + static_cast<int64_t>(mask_offset + record.size[1])),
            Bytes(1));
}

TEST(ShardSamplesTest, RolesCanBeChanged) {
  TempDir dir;
  testing::WriteTar(
      dir / "a.tar", TarFormat::kUstar,
      {File("k.webp", Bytes(1)), File("k.label.png", Bytes(2)), File("k.jpg", Bytes(3))});
  MemberRoles roles;
  roles.photo = {"webp"};
  roles.mask = {"label.png"};
  const ShardListing listing = ScanShards({dir / "a.tar"}, roles);
  ASSERT_EQ(listing.catalog.sample_count(), 1u);
  EXPECT_EQ(listing.catalog.FormOf(0, Member::kImage)->extension, "webp");
  EXPECT_EQ(listing.catalog.FormOf(0, Member::kMask)->extension, "label.png");
  EXPECT_EQ(listing.extra_members, 1);
}

TEST(ShardSamplesTest, UnpairedAndEmptyRunsAreNamed) {
  TempDir dir;
  const auto shard = dir / "a.tar";
  testing::WriteTar(shard, TarFormat::kUstar,
                    {File("photo_only.jpg", Bytes(1)), File("mask_only.mask.png", Bytes(2)),
                     File("nothing.json", Bytes(3)), File("two.jpg", Bytes(4)),
                     File("two.png", Bytes(5)), File("two.mask.png", Bytes(6))});
  const ShardListing listing = ScanShards({shard});
  EXPECT_TRUE(listing.errors.empty());
  ASSERT_EQ(listing.catalog.sample_count(), 3u);
  EXPECT_EQ(listing.catalog.FormOf(0, Member::kMask), nullptr);
  EXPECT_EQ(listing.catalog.FormOf(1, Member::kImage), nullptr);
  const std::string at = shard.string() + ":";
  ASSERT_TRUE(Find(listing.problems, at + "photo_only"));
  EXPECT_EQ(Find(listing.problems, at + "photo_only")->kind, ErrorKind::kMissingMask);
  ASSERT_TRUE(Find(listing.problems, at + "mask_only"));
  EXPECT_EQ(Find(listing.problems, at + "mask_only")->kind, ErrorKind::kMissingImage);
  ASSERT_TRUE(Find(listing.problems, at + "nothing"));
  EXPECT_NE(Find(listing.problems, at + "nothing")->detail.find("left out"), std::string::npos);
  ASSERT_TRUE(Find(listing.problems, at + "two.png"));
  EXPECT_EQ(listing.catalog.FormOf(2, Member::kImage)->extension, "jpg");
}

TEST(ShardSamplesTest, AKeyInTwoPlacesIsAnErrorNamingBoth) {
  TempDir dir;
  testing::WriteTar(dir / "a.tar", TarFormat::kUstar,
                    {File("k.jpg", Bytes(1)), File("k.mask.png", Bytes(2)), File("j.jpg", Bytes(3)),
                     File("j.mask.png", Bytes(4)), File("k.json", Bytes(5))});
  testing::WriteTar(dir / "b.tar", TarFormat::kUstar,
                    {File("j.jpg", Bytes(6)), File("j.mask.png", Bytes(7))});
  const ShardListing listing = ScanShards({dir / "a.tar", dir / "b.tar"});
  // k again in its own shard (not consecutive), j again in the next.
  ASSERT_EQ(listing.catalog.sample_count(), 2u);
  ASSERT_EQ(listing.errors.size(), 1u) << "k.json alone makes no sample, so no clash";
  const Error& error = listing.errors[0];
  EXPECT_EQ(error.kind, ErrorKind::kDuplicateKey);
  EXPECT_EQ(error.path, (dir / "b.tar").string() + ":j");
  EXPECT_NE(error.detail.find((dir / "a.tar").string()), std::string::npos) << error.Message();
  EXPECT_EQ(listing.catalog.Key(1), "j");
  EXPECT_EQ(listing.catalog.ShardOf(1).path, dir / "a.tar");
}

TEST(ShardSamplesTest, ARepeatedKeyWithinAShardIsAnError) {
  TempDir dir;
  testing::WriteTar(
      dir / "a.tar", TarFormat::kUstar,
      {File("k.jpg", Bytes(1)), File("j.jpg", Bytes(3)), File("k.mask.png", Bytes(2))});
  const ShardListing listing = ScanShards({dir / "a.tar"});
  ASSERT_EQ(listing.errors.size(), 1u);
  EXPECT_EQ(listing.errors[0].kind, ErrorKind::kDuplicateKey);
  EXPECT_EQ(listing.catalog.sample_count(), 2u);
}

// Two whole samples, a and b, in one ustar shard; the tests damage b.
class StoppedShardTest : public ::testing::Test {
 protected:
  StoppedShardTest() {
    testing::WriteTar(shard_, TarFormat::kUstar,
                      {File("a.jpg", Bytes(1)), File("a.mask.png", Bytes(2)),
                       File("b.jpg", Bytes(3)), File("b.mask.png", Bytes(4))});
    whole_ = ScanTar(shard_);
    tar_ = testing::ReadAll(shard_);
  }

  ShardListing ListDamaged() {
    testing::WriteAll(shard_, tar_);
    return ScanShards({shard_});
  }

  // The end of member i's padded bytes: where reading stops after it.
  int64_t EndOf(size_t i) const {
    return (whole_.members[i].data_offset + whole_.members[i].size + 511) / 512 * 512;
  }

  TempDir dir_;
  std::filesystem::path shard_ = dir_ / "a.tar";
  TarScan whole_;
  std::vector<uint8_t> tar_;
};

TEST_F(StoppedShardTest, CutInsideAMemberKeepsTheWholeSamplesAndNamesTheLostOne) {
  tar_.resize(static_cast<size_t>(whole_.members[3].data_offset + 10));  // inside b's mask
  const ShardListing listing = ListDamaged();
  ASSERT_EQ(listing.catalog.sample_count(), 1u);
  EXPECT_EQ(listing.catalog.Key(0), "a");
  ASSERT_EQ(listing.errors.size(), 2u);
  // The lost sample, by the member being read and why.
  EXPECT_EQ(listing.errors[0].path, shard_.string() + ":b.mask.png");
  EXPECT_NE(listing.errors[0].detail.find("sample 'b' lost: "), std::string::npos);
  EXPECT_NE(listing.errors[0].detail.find("ends inside it"), std::string::npos);
  // The shard: where reading stopped, and that what follows is unknown.
  EXPECT_EQ(listing.errors[1].path, shard_.string());
  const std::string& detail = listing.errors[1].detail;
  EXPECT_EQ(detail.rfind("reading stopped at byte offset " + std::to_string(EndOf(2)) +
                             " in member b.mask.png (",
                         0),
            0u)
      << detail;
  EXPECT_NE(detail.find("ends inside it"), std::string::npos) << detail;
  EXPECT_NE(detail.find("): the samples after it in this shard are unknown (1 whole sample"),
            std::string::npos)
      << detail;
}

TEST_F(StoppedShardTest, AMemberRunningPastTheEndLosesItsSample) {
  testing::SetUstarSize(&tar_, whole_.members[2].data_offset, 1 << 20);  // b's photo
  const ShardListing listing = ListDamaged();
  ASSERT_EQ(listing.catalog.sample_count(), 1u);
  ASSERT_EQ(listing.errors.size(), 2u);
  EXPECT_EQ(listing.errors[0].path, shard_.string() + ":b.jpg");
  EXPECT_NE(listing.errors[0].detail.find("sample 'b' lost"), std::string::npos);
  EXPECT_NE(listing.errors[1].detail.find("byte offset " + std::to_string(EndOf(1))),
            std::string::npos)
      << listing.errors[1].Message();
}

TEST_F(StoppedShardTest, ABadHeaderAfterAWholeSampleKeepsIt) {
  tar_[static_cast<size_t>(whole_.members[2].data_offset - 512 + 1)] ^= 0x40;  // b.jpg's name
  const ShardListing listing = ListDamaged();
  ASSERT_EQ(listing.catalog.sample_count(), 1u) << "a's photo and mask were both read";
  ASSERT_EQ(listing.errors.size(), 1u) << listing.errors[0].Message();
  EXPECT_EQ(listing.errors[0].path, shard_.string());
  EXPECT_NE(listing.errors[0].detail.find("damaged tar header"), std::string::npos);
  EXPECT_NE(listing.errors[0].detail.find("byte offset " + std::to_string(EndOf(1))),
            std::string::npos);
}

TEST_F(StoppedShardTest, ABadHeaderInsideASampleLosesIt) {
  tar_[static_cast<size_t>(whole_.members[3].data_offset - 512 + 1)] ^= 0x40;  // b.mask.png's
  const ShardListing listing = ListDamaged();
  ASSERT_EQ(listing.catalog.sample_count(), 1u);
  ASSERT_EQ(listing.errors.size(), 2u);
  // b's mask may lie past the damage: b is named by the member read last.
  EXPECT_EQ(listing.errors[0].path, shard_.string() + ":b.jpg");
  EXPECT_NE(listing.errors[0].detail.find("sample 'b' lost: its members may go on"),
            std::string::npos)
      << listing.errors[0].Message();
}

TEST(ShardSamplesTest, AShardThatCannotBeOpenedListsNoSampleAndTheOthersStay) {
  TempDir dir;
  testing::WriteTar(dir / "b.tar", TarFormat::kUstar,
                    {File("k.jpg", Bytes(1)), File("k.mask.png", Bytes(2))});
  const ShardListing listing = ScanShards({dir / "a.tar", dir / "b.tar"});
  ASSERT_EQ(listing.catalog.sample_count(), 1u);
  EXPECT_EQ(listing.catalog.Key(0), "k");
  ASSERT_EQ(listing.errors.size(), 1u);
  EXPECT_EQ(listing.errors[0].path, (dir / "a.tar").string());
  EXPECT_NE(listing.errors[0].detail.find("nothing in the shard could be read (cannot open"),
            std::string::npos)
      << listing.errors[0].Message();
  EXPECT_NE(listing.errors[0].detail.find("its samples are unknown"), std::string::npos);
}

}  // namespace
}  // namespace segfeed::source
