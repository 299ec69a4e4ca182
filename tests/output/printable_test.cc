// PrintableText: what a name becomes before it is printed. One line, no
// control character, every escape reads back unambiguously.
#include "output/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace segfeed::output {
namespace {

TEST(PrintableTest, PlainTextAndUtf8PassUnchanged) {
  EXPECT_EQ(PrintableText("train/0cdf5b5d_01.jpg: file is empty [empty_file]"),
            "train/0cdf5b5d_01.jpg: file is empty [empty_file]");
  EXPECT_EQ(PrintableText("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x97"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x97");
}

TEST(PrintableTest, ControlCharactersAreEscapedVisibly) {
  EXPECT_EQ(PrintableText("two\nlines\r\tend"), "two\\nlines\\r\\tend");
  EXPECT_EQ(PrintableText("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(PrintableText(std::string("nul\0bell\x07"
                                      "del\x7f",
                                      13)),
            "nul\\x00bell\\x07del\\x7f");
  EXPECT_EQ(PrintableText("csi \xc2\x9b"
                          "2J, nel \xc2\x85, nbsp \xc2\xa0"),
            "csi \\u009b2J, nel \\u0085, nbsp \xc2\xa0");
}

TEST(PrintableTest, BytesThatAreNotUtf8AreEscapedByValue) {
  EXPECT_EQ(PrintableText("bad\xff\xfe latin-1 caf\xe9"), "bad\\xff\\xfe latin-1 caf\\xe9");
  EXPECT_EQ(PrintableText("cut \xe2\x82"), "cut \\xe2\\x82");
  EXPECT_EQ(PrintableText("\x9b"
                          "2J"),
            "\\x9b2J");  // a lone C1 byte, as an 8-bit terminal reads it
}

TEST(PrintableTest, BackslashIsEscapedSoEscapesAreUnambiguous) {
  EXPECT_EQ(PrintableText("a\\nb"), "a\\\\nb");
  EXPECT_NE(PrintableText("a\\nb"), PrintableText("a\nb"));
}

TEST(PrintableTest, ResultIsOneLineOfPrintableAscii) {
  std::string every_byte;
  for (int byte = 0; byte < 256; ++byte) every_byte += static_cast<char>(byte);
  const std::string printed = PrintableText(every_byte);
  for (char c : printed) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << static_cast<int>(static_cast<unsigned char>(c));
  }
}

}  // namespace
}  // namespace segfeed::output
