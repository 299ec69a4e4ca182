// Utf8SequenceLength, IsValidUtf8, Utf8Prefix: RFC 3629's well-formed UTF-8,
// and nothing else, counts as text.
#include "output/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace segfeed::output {
namespace {

TEST(Utf8Test, SequenceLengthOfWellFormedCharacters) {
  EXPECT_EQ(Utf8SequenceLength("a"), 1u);
  EXPECT_EQ(Utf8SequenceLength(std::string(1, '\0')), 1u);
  EXPECT_EQ(Utf8SequenceLength("\x7f"), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xc2\x80"), 2u);          // U+0080
  EXPECT_EQ(Utf8SequenceLength("\xc3\xa9x"), 2u);         // é
  EXPECT_EQ(Utf8SequenceLength("\xe0\xa0\x80"), 3u);      // U+0800
  EXPECT_EQ(Utf8SequenceLength("\xef\xbf\xbd"), 3u);      // U+FFFD
  EXPECT_EQ(Utf8SequenceLength("\xf0\x90\x80\x80"), 4u);  // U+10000
  EXPECT_EQ(Utf8SequenceLength("\xf4\x8f\xbf\xbf"), 4u);  // U+10FFFF
}

TEST(Utf8Test, MalformedSequencesAreNotText) {
  for (const char* bad :
       {"", "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc3", "\xc3x", "\xe0\x80\x80", "\xed\xa0\x80",
        "\xe2\x82", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xfe", "\xff"}) {
    EXPECT_EQ(Utf8SequenceLength(bad), 0u) << testing::PrintToString(std::string(bad));
  }
}

TEST(Utf8Test, IsValidUtf8OnlyWhenEverySequenceIs) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("train/0cdf5b5d_01.jpg"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \x1b[31m\n"));  // controls are text, just not printable
  EXPECT_FALSE(IsValidUtf8("caf\xe9"));                // Latin-1
  EXPECT_FALSE(IsValidUtf8("ok\xc3"));                 // cut at the end
  EXPECT_FALSE(IsValidUtf8("\xed\xb0\x80"));           // a surrogate
}

TEST(Utf8Test, PrefixNeverCutsACharacter) {
  const std::string text = "a\xc3\xa9\xe2\x82\xac";  // a é €
  EXPECT_EQ(Utf8Prefix(text, 0), "");
  EXPECT_EQ(Utf8Prefix(text, 1), "a");
  EXPECT_EQ(Utf8Prefix(text, 2), "a");
  EXPECT_EQ(Utf8Prefix(text, 3), "a\xc3\xa9");
  EXPECT_EQ(Utf8Prefix(text, 5), "a\xc3\xa9");
  EXPECT_EQ(Utf8Prefix(text, 6), text);
  EXPECT_EQ(Utf8Prefix(text, 100), text);
  // A byte outside any sequence is one character of its own.
  EXPECT_EQ(Utf8Prefix("\xff\xfe\xc3\xa9", 3), "\xff\xfe");
}

}  // namespace
}  // namespace segfeed::output
