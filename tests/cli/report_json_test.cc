// The --json reports (report_json.h): they are valid UTF-8 JSON whatever bytes the names in
// them hold, and the exact bytes of a name that is not UTF-8 stay readable.
#include "cli/report_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cli/python_checks.h"
#include "segfeed/augment.h"
#include "segfeed/loader.h"
#include "segfeed/memory.h"
#include "temp_dir.h"

namespace segfeed::cli {
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

TEST(ReportJsonTest, HostileStringsGiveJsonThatPythonReadsBackExactly) {
  Json files = Json::array();
  for (const std::string& name : kHostileNames) {
    Json file = Json::object();
    SetText(&file, "path", name);
    files.push_back(std::move(file));
  }
  const std::string text = DumpJson({{"files", files}});
  TempDir dir;
  std::ofstream(dir / "report.json", std::ios::binary) << text;
  const auto strings = segfeed::testing::ReadJsonStrings(dir / "report.json");
  ASSERT_TRUE(strings.valid) << strings.error << "\n" << text;
  EXPECT_EQ(strings.At("files.path"), kHostileNames);
}

TEST(ReportJsonTest, BytesThatAreNotUtf8BecomeReplacementCharactersWithTheBytesBeside) {
  Json json = Json::object();
  SetText(&json, "path",
          "a\xff"
          "b");
  SetText(&json, "stem", "caf\xc3\xa9");
  EXPECT_EQ(DumpJson(json),
            "{\"path\":\"a\xef\xbf\xbd"
            "b\",\"path_bytes_hex\":\"61ff62\",\"stem\":\"caf\xc3\xa9\"}\n");
}

TEST(ReportJsonTest, EachByteOfACutSequenceIsReplacedOnItsOwn) {
  // Two bytes, two replacement characters: the text lines up with the hex.
  EXPECT_EQ(JsonText("cut \xe2\x82!"), "cut \xef\xbf\xbd\xef\xbf\xbd!");
}

TEST(ReportJsonTest, ArrayItemsAreReplacedAndBytesHexIsExact) {
  const Json json = {JsonText("\xfe"), BytesHex(std::string("\x00\x7f\xff", 3))};
  EXPECT_EQ(DumpJson(json), "[\"\xef\xbf\xbd\",\"007fff\"]\n");
}

TEST(ReportJsonTest, ControlCharactersAreEscaped) {
  Json json = Json::object();
  SetText(&json, "s", "\n\t\r\x1b\x01\"\\");
  EXPECT_EQ(DumpJson(json), "{\"s\":\"\\n\\t\\r\\u001b\\u0001\\\"\\\\\"}\n");
}

TEST(ReportJsonTest, KeysStayInTheOrderTheyAreSet) {
  Json json = Json::object();
  json["b"] = 1;
  json["a"] = 2;
  EXPECT_EQ(DumpJson(json), "{\"b\":1,\"a\":2}\n");
}

TEST(ReportJsonTest, NumbersThatAreNotFiniteAreNull) {
  const Json json = {{"x", NAN}, {"y", 0.1}};
  EXPECT_EQ(DumpJson(json), "{\"x\":null,\"y\":0.1}\n");
}

// The names ForEachField calls `fn` with, in order.
template <typename Record>
std::vector<std::string> FieldNames(const Record& record) {
  std::vector<std::string> names;
  ForEachField(record, [&](std::string_view name, const auto&) { names.emplace_back(name); });
  return names;
}

std::vector<std::string> Keys(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

// The field list is the reference: the JSON object has one key per field,
// under its name, in its order, and no name is given twice.
template <typename Record>
void ExpectOneKeyPerField(const Record& record) {
  const std::vector<std::string> names = FieldNames(record);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(Keys(FieldsJson(record)), names);
}

TEST(ReportJsonTest, EveryFieldOfTheReportedStructsIsOneKey) {
  ExpectOneKeyPerField(LoaderStats{});
  ExpectOneKeyPerField(StageSeconds{});
  ExpectOneKeyPerField(MemoryPlan{});
  ExpectOneKeyPerField(AugmentParams{});
  ExpectOneKeyPerField(Affine2x3{});
  ExpectOneKeyPerField(Error{});
  EXPECT_EQ(FieldNames(LoaderStats{}).size(), 29u);
  EXPECT_EQ(FieldNames(StageSeconds{}).size(), 10u);
  EXPECT_EQ(FieldNames(MemoryPlan{}).size(), 16u);
  EXPECT_EQ(FieldNames(AugmentParams{}).size(), 18u);
  EXPECT_EQ(FieldNames(Affine2x3{}).size(), 6u);
}

TEST(ReportJsonTest, FieldsKeepTheirValuesNestedStructsAndErrors) {
  LoaderStats stats;
  stats.pool_kind = PoolKind::kMlocked;
  stats.samples_loaded = 41;
  stats.stage_seconds.warp = 0.5;
  stats.skipped_files.push_back(Error{ErrorKind::kEmptyFile, "bad\xff.jpg", "file is empty"});
  const Json json = FieldsJson(stats);
  EXPECT_EQ(json["pool_kind"], "mlocked");
  EXPECT_EQ(json["samples_loaded"], 41);
  EXPECT_EQ(json["stage_seconds"]["warp"], 0.5);
  EXPECT_EQ(Keys(json["stage_seconds"]), FieldNames(StageSeconds{}));
  EXPECT_EQ(json["skipped_files"][0]["path"], "bad\xef\xbf\xbd.jpg");
  EXPECT_EQ(json["skipped_files"][0]["path_bytes_hex"], BytesHex("bad\xff.jpg"));
  EXPECT_EQ(json["skipped_files"][0]["kind"], "empty_file");
  // Each file's problem is Error's field list, the message included, as in
  // Python's dicts.
  EXPECT_EQ(Keys(json["skipped_files"][0]),
            (std::vector<std::string>{"path", "path_bytes_hex", "kind", "detail", "message",
                                      "message_bytes_hex"}));
  EXPECT_EQ(json["skipped_files"][0]["message"], "bad\xef\xbf\xbd.jpg: file is empty [empty_file]");
  EXPECT_EQ(FieldNames(Error{}), (std::vector<std::string>{"path", "kind", "detail", "message"}));
  EXPECT_EQ(Keys(ErrorsJson({Error{}})[0]), FieldNames(Error{}));
}

}  // namespace
}  // namespace segfeed::cli
