#include "dataset/brace_pattern.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::dataset {
namespace {

using Names = std::vector<std::string>;

TEST(BracePatternTest, ARangeIsEveryNumberZeroPaddedAsWritten) {
  EXPECT_EQ(ExpandBraces("d/train-{000008..000011}.tar"),
            (Names{"d/train-000008.tar", "d/train-000009.tar", "d/train-000010.tar",
                   "d/train-000011.tar"}));
  EXPECT_EQ(ExpandBraces("s{8..10}"), (Names{"s8", "s9", "s10"}));
  EXPECT_EQ(ExpandBraces("s{9..011}"), (Names{"s009", "s010", "s011"}));  // the wider end's width
  EXPECT_EQ(ExpandBraces("s{3..1}"), (Names{"s3", "s2", "s1"}));
  EXPECT_EQ(ExpandBraces("s{5..5}"), (Names{"s5"}));
}

TEST(BracePatternTest, AlternativesAndSeveralBracesExpandLeftToRight) {
  EXPECT_EQ(ExpandBraces("{train,val}-{0..1}.tar"),
            (Names{"train-0.tar", "train-1.tar", "val-0.tar", "val-1.tar"}));
  EXPECT_EQ(ExpandBraces("plain.tar"), (Names{"plain.tar"}));
  EXPECT_TRUE(HasBraces("a{0..1}"));
  EXPECT_FALSE(HasBraces("a.tar"));
}

TEST(BracePatternTest, MalformedPatternsAreRefusedNamingThem) {
  for (const char* pattern : {"a{0..1", "a{}", "a{x..3}", "a{0..1{2}}", "a{0..99999999}"}) {
    try {
      ExpandBraces(pattern);
      ADD_FAILURE() << pattern << " expanded";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(pattern), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace segfeed::dataset
