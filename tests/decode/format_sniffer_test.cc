#include "decode/format_sniffer.h"

#include <gtest/gtest.h>

#include <vector>

namespace segfeed::decode {
namespace {

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

TEST(FormatSnifferTest, RecognisesMagicNumbers) {
  EXPECT_EQ(SniffFormat(Bytes("\xFF\xD8\xFF\xE0")), SniffedFormat::kJpeg);
  EXPECT_EQ(SniffFormat(Bytes("GIF89a...")), SniffedFormat::kGif);
  EXPECT_EQ(SniffFormat(Bytes("GIF87a...")), SniffedFormat::kGif);
  EXPECT_EQ(SniffFormat(Bytes("\x89PNG\r\n\x1A\n")), SniffedFormat::kPng);
  EXPECT_EQ(SniffFormat(Bytes("RIFF1234WEBPVP8 ")), SniffedFormat::kWebp);
  EXPECT_EQ(SniffFormat(Bytes("GIF8")), SniffedFormat::kUnknown);  // too short
  EXPECT_EQ(SniffFormat({}), SniffedFormat::kUnknown);
}

TEST(FormatSnifferTest, DescribesUnknownDataByItsFirstBytes) {
  EXPECT_EQ(DescribeContent(Bytes("\x89PNG\r\n\x1A\n")), "PNG data");
  EXPECT_EQ(DescribeContent(Bytes(std::string("\x00\x11\x22\x33\x44", 5))),
            "data starting 00 11 22 33");
}

}  // namespace
}  // namespace segfeed::decode
