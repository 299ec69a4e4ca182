// PreviewDumpName: dump file names always fit in a file name, stay unique
// and keep whole characters.
#include "cli/preview_dump.h"

#include <gtest/gtest.h>

#include <string>

#include "output/utf8.h"
#include "support/hostile_names.h"

namespace segfeed::tools {
namespace {

using segfeed::testing::LongStem;

TEST(PreviewDumpTest, StemsThatFitAreKept) {
  EXPECT_EQ(PreviewDumpName("0cdf5b5d_01"), "0cdf5b5d_01");
  const std::string longest = LongStem("a", 255 - std::string("_image.png").size());
  EXPECT_EQ(PreviewDumpName(longest), longest);
}

TEST(PreviewDumpTest, LongStemsAreCutAtACharacterAndTaggedWithADigest) {
  for (size_t bytes : {246u, 247u, 300u, 1000u}) {
    for (const std::string prefix : {"a", "ab"}) {  // both parities of the cut
      const std::string stem = LongStem(prefix, bytes);
      const std::string name = PreviewDumpName(stem);
      EXPECT_LE(name.size() + std::string("_image.png").size(), 255u) << bytes;
      EXPECT_TRUE(IsValidUtf8(name)) << bytes << " " << prefix;
      const size_t tilde = name.rfind('~');
      ASSERT_NE(tilde, std::string::npos) << name;
      EXPECT_EQ(name.size() - tilde, 9u) << name;
      EXPECT_EQ(stem.compare(0, tilde, name, 0, tilde), 0) << "a prefix of the stem";
      EXPECT_EQ(PreviewDumpName(stem), name) << "the same every run";
    }
  }
}

TEST(PreviewDumpTest, StemsSharingALongPrefixGetDifferentNames) {
  const std::string prefix = LongStem("p", 400);
  EXPECT_NE(PreviewDumpName(prefix + "_01"), PreviewDumpName(prefix + "_02"));
}

TEST(PreviewDumpTest, ParamsJsonKeepsTheWholeStemAndNamesTheFiles) {
  PreviewSample sample;
  sample.stem = LongStem("s", 300);
  sample.width = 1;
  sample.height = 1;
  const PreviewSample samples[] = {sample};
  const std::string json = PreviewParamsJson(samples, 0, 0);
  EXPECT_NE(json.find("\"stem\":\"" + sample.stem + "\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"image\":\"" + PreviewDumpName(sample.stem) + "_image.png\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"mask\":\"" + PreviewDumpName(sample.stem) + "_mask.png\""),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace segfeed::tools
