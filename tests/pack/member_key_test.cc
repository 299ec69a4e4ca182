#include "pack/member_key.h"

#include <gtest/gtest.h>

#include <string>

#include "source/shard_samples.h"

namespace segfeed::pack {
namespace {

TEST(MemberKeyTest, KeysWithoutDotsAreUnchanged) {
  for (const std::string key : {"0cdf5b5d_01", "aachen/aachen_000000_000019", "a b/c-d_e"}) {
    EXPECT_EQ(MemberKeyOf(key), key);
    EXPECT_EQ(DatasetKeyOf(key), key);
  }
}

TEST(MemberKeyTest, DotsAndPercentsOfTheLastComponentRoundTrip) {
  const std::pair<std::string, std::string> cases[] = {
      {"img.v2", "img%2Ev2"},
      {"v1.0/scan.01.final", "v1.0/scan%2E01%2Efinal"},  // a folder's dots stay
      {"50%.x", "50%25%2Ex"},
      {"%2E", "%252E"},  // already looks encoded: still reversible
      {".hidden", "%2Ehidden"},
  };
  for (const auto& [key, member_key] : cases) {
    EXPECT_EQ(MemberKeyOf(key), member_key) << key;
    EXPECT_EQ(DatasetKeyOf(member_key), key) << member_key;
    // WebDataset's first-dot rule gives back the whole member key.
    const std::string member_name = member_key + ".mask.png";
    const auto [split_key, extension] = source::SplitMemberName(member_name);
    EXPECT_EQ(split_key, member_key);
    EXPECT_EQ(extension, "mask.png");
  }
}

TEST(MemberKeyTest, KeysThatCannotBeMemberNames) {
  EXPECT_FALSE(UnusableKeyReason("train/aachen/a_1"));
  EXPECT_TRUE(UnusableKeyReason(""));
  EXPECT_TRUE(UnusableKeyReason("/etc/passwd"));
  EXPECT_TRUE(UnusableKeyReason("../x"));
  EXPECT_TRUE(UnusableKeyReason("a/./x"));
  EXPECT_TRUE(UnusableKeyReason("a//x"));
  EXPECT_TRUE(UnusableKeyReason("a/"));
  EXPECT_TRUE(UnusableKeyReason(std::string("bad\xff", 4)));
}

}  // namespace
}  // namespace segfeed::pack
