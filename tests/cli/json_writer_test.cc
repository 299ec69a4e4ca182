// JsonWriter: the reports are valid UTF-8 JSON whatever bytes the names in
// them hold, and the exact bytes of a name that is not UTF-8 stay readable.
#include "cli/json_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/python_checks.h"
#include "temp_dir.h"

namespace segfeed::tools {
namespace {

using segfeed::testing::TempDir;

const std::vector<std::string> kHostileNames = {
    "two\nlines",
    "\x1b[31mred\x1b[0m\x1b]0;title\x07",
    "bad\xff\xfe latin-1 caf\xe9",
    "cut \xe2\x82",
    "surrogate \xed\xa0\x80 overlong \xc0\xaf",
    "csi \xc2\x9b"
    "2J quote \" backslash \\ nul " +
        std::string(1, '\0'),
    std::string(255, '\xff'),
};

TEST(JsonWriterTest, HostileStringsGiveJsonThatPythonReadsBackExactly) {
  JsonWriter json;
  json.BeginObject().BeginArray("files");
  for (const std::string& name : kHostileNames) json.BeginObject().String("path", name).EndObject();
  json.EndArray().EndObject();
  TempDir dir;
  std::ofstream(dir / "report.json", std::ios::binary) << json.str();
  const auto strings = segfeed::testing::ReadJsonStrings(dir / "report.json");
  ASSERT_TRUE(strings.valid) << strings.error << "\n" << json.str();
  EXPECT_EQ(strings.At("files.path"), kHostileNames);
}

TEST(JsonWriterTest, BytesThatAreNotUtf8BecomeReplacementCharactersWithTheBytesBeside) {
  JsonWriter json;
  json.BeginObject()
      .String("path",
              "a\xff"
              "b")
      .String("stem", "caf\xc3\xa9")
      .EndObject();
  EXPECT_EQ(json.str(),
            "{\"path\":\"a\xef\xbf\xbd"
            "b\",\"path_bytes_hex\":\"61ff62\",\"stem\":\"caf\xc3\xa9\"}");
}

TEST(JsonWriterTest, ArrayItemsAreReplacedAndBytesHexIsExact) {
  JsonWriter json;
  json.BeginArray().String("", "\xfe").BytesHex("", std::string("\x00\x7f\xff", 3)).EndArray();
  EXPECT_EQ(json.str(), "[\"\xef\xbf\xbd\",\"007fff\"]");
}

TEST(JsonWriterTest, ControlCharactersAreEscaped) {
  JsonWriter json;
  json.BeginObject().String("s", "\n\t\r\x1b\x01\"\\").EndObject();
  EXPECT_EQ(json.str(), "{\"s\":\"\\n\\t\\r\\u001b\\u0001\\\"\\\\\"}");
}

}  // namespace
}  // namespace segfeed::tools
