// Runs `segfeed check` itself: exit codes, the text report, the JSON report
// (parsed, so it is valid) and usage errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/python_checks.h"
#include "cli/run_segfeed.h"
#include "fixtures/fixtures.h"
#include "fixtures/mixed_dataset.h"
#include "segfeed/errors.h"
#include "support/hostile_names.h"
#include "support/planted_dataset.h"
#include "temp_dir.h"

namespace {

using segfeed::testing::Quoted;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A strict JSON reader (RFC 8259), enough to prove the report is valid and
// to look into it. Throws std::runtime_error at the first mistake.
struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> members;

  const Json& at(const std::string& key) const {
    auto it = members.find(key);
    if (it == members.end()) throw std::runtime_error("no key " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return members.count(key) != 0; }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}
  Json ParseDocument() {
    Json value = Value();
    Space();
    if (i_ != s_.size()) Fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) {
    throw std::runtime_error("invalid JSON at " + std::to_string(i_) + ": " + why);
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  void Expect(char c) {
    Space();
    if (i_ >= s_.size() || s_[i_] != c) Fail(std::string("expected ") + c);
    ++i_;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (s_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }
  std::string String() {
    Expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      const unsigned char c = s_[i_++];
      if (c < 0x20) Fail("control character in string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) Fail("cut escape");
      const char e = s_[i_++];
      if (e == 'u') {
        if (i_ + 4 > s_.size()) Fail("cut \\u escape");
        out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));  // ASCII is enough here
        i_ += 4;
      } else if (std::string("\"\\/bfnrt").find(e) != std::string::npos) {
        out += e == 'n'   ? '\n'
               : e == 't' ? '\t'
               : e == 'r' ? '\r'
               : e == 'b' ? '\b'
               : e == 'f' ? '\f'
                          : e;
      } else {
        Fail("bad escape");
      }
    }
    Expect('"');
    return out;
  }
  Json Value() {
    Space();
    if (i_ >= s_.size()) Fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.type = Json::Type::kObject;
      ++i_;
      Space();
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, v;
      for (;;) {
        std::string key = String();
        Expect(':');
        if (v.members.count(key)) Fail("duplicate key " + key);
        v.members[key] = Value();
        Space();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        Expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.type = Json::Type::kArray;
      ++i_;
      Space();
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, v;
      for (;;) {
        v.items.push_back(Value());
        Space();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        Expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.type = Json::Type::kString;
      v.text = String();
      return v;
    }
    if (Literal("true") || Literal("false")) {
      v.type = Json::Type::kBool;
      return v;
    }
    if (Literal("null")) return v;
    const size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) Fail("bad value");
    while (i_ < s_.size() && std::string("0123456789.eE+-").find(s_[i_]) != std::string::npos) ++i_;
    v.type = Json::Type::kNumber;
    v.number = std::stod(s_.substr(start, i_ - start));
    return v;
  }

  const std::string& s_;
  size_t i_ = 0;
};

TEST(CheckTest, CleanDatasetExitsZero) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 4);
  const auto r = RunSegfeed("check --data " + Quoted(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("problems: 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("clean: 0 problems in 4 pairs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("image sizes      64x48 (4)"), std::string::npos) << r.output;
}

// Files whose headers claim 10000x10000 pixels are too_large, as the
// loader finds them, and the summary states the bound of each thread's
// memory (the same for any --threads: the report does not change with it).
TEST(CheckTest, HugeHeadersAreTooLargeAndTheMemoryBoundIsStated) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 4);
  const auto huge = segfeed::testing::WriteHugeHeaderPairs(dir / "data");
  const std::string check = "check --data " + Quoted(dir / "data");
  const auto one = RunSegfeed(check + " --threads 1 --json " + Quoted(dir / "1.json"),
                              segfeed::testing::Streams::kStdoutOnly);
  const auto two = RunSegfeed(check + " --threads 2 --json " + Quoted(dir / "2.json"),
                              segfeed::testing::Streams::kStdoutOnly);
  EXPECT_EQ(one.exit_code, 1) << one.output;
  EXPECT_EQ(one.output, two.output);
  EXPECT_EQ(ReadText(dir / "1.json"), ReadText(dir / "2.json"));
  for (const std::string& path : huge.claiming)
    EXPECT_NE(one.output.find(path + ": "), std::string::npos) << path << "\n" << one.output;
  EXPECT_NE(one.output.find("problems         " + std::to_string(huge.claiming.size()) +
                            " (too_large " + std::to_string(huge.claiming.size()) + ")"),
            std::string::npos)
      << one.output;
  EXPECT_NE(one.output.find("memory           at most "), std::string::npos) << one.output;
  const Json memory =
      JsonParser(ReadText(dir / "1.json")).ParseDocument().at("summary").at("memory_per_thread");
  EXPECT_GT(memory.at("decode_budget_bytes").number, 0);
  EXPECT_LT(memory.at("decode_budget_bytes").number, 1 << 20);  // 64x48 photos
  EXPECT_EQ(memory.at("read_buffer_bytes").number, 2.0 * (16 << 20));
}

// --stats block (the default) gives the mean of the block means and no std
// (null in the JSON, "not computed" in the text); --stats exact both, at
// full resolution. The two means agree closely; anything else is refused.
TEST(CheckTest, StatsChoosesBlockMeansOrTheExactMeanAndStd) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 4);
  std::map<std::string, Json> reports;
  for (const char* stats : {"", " --stats block", " --stats exact"}) {
    const auto json_path = dir / "report.json";
    const auto r =
        RunSegfeed("check --data " + Quoted(dir / "data") + stats + " --json " + Quoted(json_path));
    ASSERT_EQ(r.exit_code, 0) << stats << "\n" << r.output;
    const bool exact = std::string(stats) == " --stats exact";
    EXPECT_EQ(r.output.find("channel std      not computed") != std::string::npos, !exact)
        << r.output;
    reports[stats] =
        JsonParser(ReadText(json_path)).ParseDocument().at("summary").at("channel_stats");
  }
  const Json& block = reports[" --stats block"];
  const Json& exact = reports[" --stats exact"];
  EXPECT_EQ(reports[""].at("method").text, "block");
  EXPECT_EQ(block.at("method").text, "block");
  EXPECT_EQ(exact.at("method").text, "exact");
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(block.at("std").items[c].type, Json::Type::kNull);
    EXPECT_EQ(exact.at("std").items[c].type, Json::Type::kNumber);
    EXPECT_GT(exact.at("std_0_255").items[c].number, 1.0);
    // Demo photos are smooth; photo-like ones stay within 0.1 (BENCHMARKS.md).
    EXPECT_NEAR(block.at("mean_0_255").items[c].number, exact.at("mean_0_255").items[c].number,
                1.0);
  }
  const auto bad = RunSegfeed("check --data " + Quoted(dir / "data") + " --stats fast");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--stats must be one of block, exact (got 'fast')"), std::string::npos)
      << bad.output;
}

TEST(CheckTest, PlantedProblemsExitOneAndAreListedWithPathAndKind) {
  TempDir dir;
  const auto planted = segfeed::testing::WritePlantedDataset(dir / "data");
  const auto r = RunSegfeed("check --images " + Quoted(dir / "data" / "train") + " --masks " +
                            Quoted(dir / "data" / "train_masks"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const auto& p : planted.problems) {
    const std::string line = p.path + ": ";
    const size_t at = r.output.find(line);
    ASSERT_NE(at, std::string::npos) << line << "\n" << r.output;
    std::string kind = "[";
    kind.append(segfeed::ErrorKindName(p.kind)).append("]");
    EXPECT_NE(r.output.find(kind, at), std::string::npos) << kind << "\n" << r.output;
  }
  EXPECT_NE(r.output.find(planted.duplicates[0] + " = " + planted.duplicates[1]), std::string::npos)
      << r.output;
}

TEST(CheckTest, JsonIsValidAndHasTheKeys) {
  TempDir dir;
  const auto planted = segfeed::testing::WritePlantedDataset(dir / "data");
  const auto json_path = dir / "report.json";
  const auto r =
      RunSegfeed("check --data " + Quoted(dir / "data") + " --json " + Quoted(json_path));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  Json report;
  ASSERT_NO_THROW(report = JsonParser(ReadText(json_path)).ParseDocument());
  ASSERT_EQ(report.type, Json::Type::kObject);
  EXPECT_EQ(report.at("pairs").number, planted.pairs);
  const Json& problems = report.at("problems");
  ASSERT_EQ(problems.items.size(), planted.problems.size());
  for (size_t i = 0; i < problems.items.size(); ++i) {
    const Json& p = problems.items[i];
    EXPECT_EQ(p.at("path").text, planted.problems[i].path);
    EXPECT_EQ(p.at("kind").text, segfeed::ErrorKindName(planted.problems[i].kind));
    EXPECT_FALSE(p.at("detail").text.empty());
  }
  const Json& summary = report.at("summary");
  for (const char* key : {"pairs", "problems_by_kind", "image_sizes", "mask_sizes", "jpeg",
                          "channel_stats", "mask_foreground_fraction", "duplicates", "ignored"}) {
    EXPECT_TRUE(summary.has(key)) << key;
  }
  EXPECT_EQ(summary.at("problems_by_kind").members.size(), 15u);  // every ErrorKind
  EXPECT_EQ(summary.at("problems_by_kind").at("unsupported_format").number, 2);
  EXPECT_EQ(summary.at("channel_stats").at("mean").items.size(), 3u);
  EXPECT_EQ(summary.at("jpeg").at("subsampling").at("4:2:0").number,
            9);  // 14 images, 5 without a readable header
  ASSERT_EQ(summary.at("duplicates").items.size(), 1u);
  EXPECT_EQ(summary.at("duplicates").items[0].items.size(), 2u);
}

TEST(CheckTest, OutputIsTheSameForAnyThreadCount) {
  TempDir dir;
  segfeed::testing::WritePlantedDataset(dir / "data");
  const auto one = RunSegfeed(
      "check --data " + Quoted(dir / "data") + " --threads 1 --json " + Quoted(dir / "1.json"),
      segfeed::testing::Streams::kStdoutOnly);
  const auto two = RunSegfeed(
      "check --data " + Quoted(dir / "data") + " --threads 2 --json " + Quoted(dir / "2.json"),
      segfeed::testing::Streams::kStdoutOnly);
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(one.output, two.output);
  EXPECT_EQ(ReadText(dir / "1.json"), ReadText(dir / "2.json"));
}

TEST(CheckTest, NoProgressLineWhenStderrIsNotATerminal) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  const auto r = RunSegfeed("check --data " + Quoted(dir.path()) + " 2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "");
}

TEST(CheckTest, UsageErrorsExitTwoAndNameTheOption) {
  TempDir dir;
  auto r = RunSegfeed("check");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--data"), std::string::npos) << r.output;
  r = RunSegfeed("check --data " + Quoted(dir.path()) + " --thread 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown option --thread"), std::string::npos) << r.output;
  r = RunSegfeed("check --data " + Quoted(dir.path()) + " --threads many");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--threads must be an integer"), std::string::npos) << r.output;
  r = RunSegfeed("check --data " + Quoted(dir / "absent"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--data"), std::string::npos) << r.output;
  r = RunSegfeed("check --images " + Quoted(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--images needs --masks"), std::string::npos) << r.output;
  r = RunSegfeed("check --data " + Quoted(dir.path()) + " --json " +
                 Quoted(dir / "no" / "such" / "x.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--json"), std::string::npos) << r.output;
  r = RunSegfeed("check --data " + Quoted(dir.path()) + " extra");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unexpected argument 'extra'"), std::string::npos) << r.output;
}

std::vector<char> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every entry of `dir`, hidden ones included, by name.
std::vector<std::string> Entries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The first report: --json naming a training image emptied it.
TEST(CheckTest, JsonOnATrainingImageIsRefusedAndTheImageKept) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 3);
  const auto image =
      (dir / "data" / "train").string() + "/" + Entries(dir / "data" / "train").front();
  const std::vector<char> before = ReadBytes(image);
  const auto r = RunSegfeed("check --data " + Quoted(dir / "data") + " --json " + Quoted(image));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--json '" + image + "': is inside the dataset folder"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(ReadBytes(image), before);
  // The same through --images/--masks and a path with "..".
  const auto masks = (dir / "data" / "train_masks").string();
  const auto other =
      RunSegfeed("check --images " + Quoted(dir / "data" / "train") + " --masks " + Quoted(masks) +
                 " --json " + Quoted(masks + "/../train_masks/report.json"));
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("inside the dataset folder"), std::string::npos) << other.output;
  EXPECT_FALSE(std::filesystem::exists(masks + "/report.json"));
}

// A list of paths reads anything under its root, so the root is the
// dataset folder; a --json linked into it, through a folder or to a file, is
// inside it too.
TEST(CheckTest, JsonInsideAListsRootOrLinkedIntoTheDatasetIsRefused) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 2);
  const std::string stem = std::filesystem::path(Entries(dir / "data" / "train").front()).stem();
  std::ofstream(dir / "data" / "pairs.tsv")
      << "train/" << stem << ".jpg\ttrain_masks/" << stem << "_mask.gif\n";
  const std::string list = " --list " + Quoted(dir / "data" / "pairs.tsv");
  const std::string image = (dir / "data" / "train").string() + "/" + stem + ".jpg";
  const std::vector<char> before = ReadBytes(image);
  std::filesystem::create_directory_symlink(dir / "data" / "train", dir / "linked");
  std::filesystem::create_symlink(image, dir / "report.json");
  for (const auto& [dataset, json] : std::vector<std::pair<std::string, std::filesystem::path>>{
           {list, dir / "data" / "report.json"},
           {list + " --data " + Quoted(dir / "data"), dir / "data" / "lists" / "report.json"},
           {list, dir / "linked" / "report.json"},
           {list, dir / "report.json"},
           {" --data " + Quoted(dir / "data"), dir / "report.json"},
           {" --data " + Quoted(dir / "data"), dir / "linked" / "report.json"}}) {
    const auto r = RunSegfeed("check" + dataset + " --json " + Quoted(json));
    EXPECT_EQ(r.exit_code, 2) << dataset << " --json " << json << "\n" << r.output;
    EXPECT_NE(r.output.find("--json '" + json.string() + "': is inside the dataset folder"),
              std::string::npos)
        << r.output;
  }
  EXPECT_EQ(ReadBytes(image), before);
  EXPECT_FALSE(std::filesystem::exists(dir / "data" / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "data" / "train" / "report.json"));
  // Beside the dataset is fine.
  const auto r = RunSegfeed("check" + list + " --json " + Quoted(dir / "beside.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "beside.json"));
}

// `check --list pairs.tsv` in the dataset's folder: its root is the working
// folder, so a report there is refused and one elsewhere is written (every
// path was refused, as inside the folder '').
TEST(CheckTest, AListNamedWithoutAFolderHasTheWorkingFolderAsItsRoot) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 2);
  const std::string stem = std::filesystem::path(Entries(dir / "data" / "train").front()).stem();
  std::ofstream(dir / "data" / "pairs.tsv")
      << "train/" << stem << ".jpg\ttrain_masks/" << stem << "_mask.gif\n";
  const std::string in_data =
      "cd " + Quoted(dir / "data") + " && \"$SEGFEED\" check --list pairs.tsv";
  const auto inside = segfeed::testing::RunSegfeedScript(in_data + " --json report.json 2>&1");
  EXPECT_EQ(inside.exit_code, 2) << inside.output;
  EXPECT_NE(inside.output.find("--json 'report.json': is inside the dataset folder '.'"),
            std::string::npos)
      << inside.output;
  const auto beside = segfeed::testing::RunSegfeedScript(in_data + " --json ../report.json 2>&1");
  EXPECT_EQ(beside.exit_code, 0) << beside.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "data" / "report.json"));
}

TEST(CheckTest, JsonInAMissingFolderFailsBeforeChecking) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 2);
  const auto r = RunSegfeed("check --data " + Quoted(dir / "data") + " --json " +
                            Quoted(dir / "no" / "r.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("folder '" + (dir / "no").string() + "' does not exist"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("problems:"), std::string::npos) << "checked before refusing:\n"
                                                           << r.output;
}

// A write that fails (here the file size limit, as on a full disk, with
// SIGXFSZ ignored so the write returns EFBIG) keeps the previous report
// and leaves no temporary file.
TEST(CheckTest, FailedJsonWriteKeepsTheOldReportAndLeavesNoTemporaryFile) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 3);
  std::filesystem::create_directory(dir / "reports");
  const auto report = dir / "reports" / "report.json";
  std::ofstream(report) << "the previous report";
  const auto r = segfeed::testing::RunSegfeedScript(
      "trap '' XFSZ; ulimit -f 0; \"$SEGFEED\" check --data " + Quoted(dir / "data") + " --json " +
      Quoted(report) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(report.string() + ": cannot write: File too large"), std::string::npos)
      << r.output;
  EXPECT_EQ(ReadText(report), "the previous report");
  EXPECT_EQ(Entries(dir / "reports"), std::vector<std::string>{"report.json"});
}

// Killed while writing the report (SIGXFSZ at its first byte): the old
// report is whole. Before, --json truncated it at the start of the run.
TEST(CheckTest, KilledWhileWritingTheJsonKeepsTheOldReport) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 3);
  const auto report = dir / "report.json";
  std::ofstream(report) << "the previous report";
  const auto r = segfeed::testing::RunSegfeedScript("ulimit -f 0; \"$SEGFEED\" check --data " +
                                                    Quoted(dir / "data") + " --json " +
                                                    Quoted(report) + " 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadText(report), "the previous report");
}

TEST(CheckTest, FullDiskForJsonOrStdoutExitsOne) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 2);
  const std::string check = "check --data " + Quoted(dir / "data");
  auto r = RunSegfeed(check + " --json /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/full: cannot write: No space left on device"), std::string::npos)
      << r.output;
  r = segfeed::testing::RunSegfeedScript("\"$SEGFEED\" " + check + " 2>&1 >/dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("segfeed check: cannot write to standard output"), std::string::npos)
      << r.output;
}

// /dev/stdout is written through stdout itself, after the text report.
TEST(CheckTest, JsonToStandardOutputComesAfterTheTextReport) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 2);
  const auto r = RunSegfeed("check --data " + Quoted(dir / "data") + " --json /dev/stdout",
                            segfeed::testing::Streams::kStdoutOnly);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const size_t verdict = r.output.find("clean: 0 problems in 2 pairs\n");
  ASSERT_NE(verdict, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("{\"pairs\":2,"), verdict + std::strlen("clean: 0 problems in 2 pairs\n"))
      << r.output;
}

TEST(CheckTest, EmptyFoldersExitOneAndSayWhatWasFound) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data" / "train");
  std::filesystem::create_directories(dir / "data" / "train_masks");
  const auto json_path = dir / "report.json";
  const auto r =
      RunSegfeed("check --data " + Quoted(dir / "data") + " --json " + Quoted(json_path));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string train = (dir / "data" / "train").string(),
                    masks = (dir / "data" / "train_masks").string();
  const std::string found = "found 0 images (.jpg/.jpeg/.png) in " + train +
                            " and 0 masks (.gif/.png) in " + masks + "; 0 files ignored";
  EXPECT_NE(r.output.find("NO PAIRS: " + found + "\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expected " + train + "/<stem>.jpg with its mask " + masks +
                          "/<stem>_mask.gif"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("clean"), std::string::npos) << r.output;
  Json report;
  ASSERT_NO_THROW(report = JsonParser(ReadText(json_path)).ParseDocument());
  EXPECT_NE(report.at("error").text.find(found), std::string::npos) << report.at("error").text;
}

TEST(CheckTest, AllBmpDatasetExitsOneAndCountsTheIgnoredFiles) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data" / "train");
  std::filesystem::create_directories(dir / "data" / "train_masks");
  for (const char* name :
       {"train/a.bmp", "train/b.bmp", "train/c.bmp", "train_masks/a_mask.bmp", "train/notes"}) {
    std::ofstream(dir / "data" / name) << "x";
  }
  const auto r = RunSegfeed("check --data " + Quoted(dir / "data"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find("found 0 images (.jpg/.jpeg/.png) in " + (dir / "data" / "train").string() +
                    " and 0 masks (.gif/.png) in " + (dir / "data" / "train_masks").string() +
                    "; 5 files ignored (.bmp 4, no extension 1)\n"),
      std::string::npos)
      << r.output;
}

TEST(CheckTest, SwappedFoldersExitOneAndSaySo) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir / "data", 3);
  const std::string train = (dir / "data" / "train").string(),
                    masks = (dir / "data" / "train_masks").string();
  const auto r = RunSegfeed("check --images " + Quoted(masks) + " --masks " + Quoted(train));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("NO PAIRS: found 0 images (.jpg/.jpeg/.png) in " + masks +
                          " and 0 masks (.gif/.png) in " + train +
                          "; 6 files ignored (.gif 3, .jpg 3); the two folders look swapped\n"),
            std::string::npos)
      << r.output;
}

std::vector<std::string> Sorted(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values;
}

// The lines of `text` between the line starting with `first` and the one
// starting with `last`, both excluded.
std::vector<std::string> LinesBetween(const std::string& text, const std::string& first,
                                      const std::string& last) {
  std::vector<std::string> lines;
  bool inside = false;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind(last, 0) == 0) break;
    if (inside) lines.push_back(line);
    if (line.rfind(first, 0) == 0) inside = true;
  }
  return lines;
}

// File names may hold any byte but '/' and NUL. The JSON report stays valid
// UTF-8 JSON that Python reads, with each name's exact bytes recoverable;
// the text report has one problem per line and no raw control character.
TEST(CheckTest, HostileNamesGiveValidJsonAndOneLinePerProblem) {
  TempDir dir;
  const auto dataset = segfeed::testing::WriteHostileNamesDataset(dir / "data");
  const auto json_path = dir / "report.json";
  const auto r =
      RunSegfeed("check --data " + Quoted(dir / "data") + " --json " + Quoted(json_path));
  EXPECT_EQ(r.exit_code, 1) << r.output;

  const auto json = segfeed::testing::ReadJsonStrings(json_path);
  ASSERT_TRUE(json.valid) << json.error;
  EXPECT_EQ(json.At("problems.path"), dataset.problems);
  EXPECT_EQ(Sorted(json.At("summary.duplicates")), dataset.duplicates);
  EXPECT_EQ(json.At("summary.ignored.path"), std::vector<std::string>{dataset.ignored});

  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(r.output, dir / "output.txt"), "");
  const std::vector<std::string> problem_lines = LinesBetween(r.output, "problems:", "summary:");
  ASSERT_EQ(problem_lines.size(), dataset.problems.size()) << r.output;
  for (const std::string& line : problem_lines) {
    EXPECT_EQ(line.rfind("  " + (dir / "data").string() + "/train", 0), 0u) << line;
    EXPECT_EQ(line.back(), ']') << line;
  }
  EXPECT_NE(r.output.find("/train/two\\nlines.jpg: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/train/\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07.jpg: no mask "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("/train/bad\\xff\\xfe latin-1 \\xe9t\\xe9.jpg: "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("/train_masks/orphan \\u009b2J \\xff \xc3\xa9"), std::string::npos)
      << r.output;
}

TEST(CheckTest, HelpExitsZeroAndListsTheKinds) {
  const auto r = RunSegfeed("check --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("usage: segfeed check"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("non_binary_mask"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("label_out_of_range"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("suspicious_mask"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--threads"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--mask-mode"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--num-classes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"path_bytes_hex\""), std::string::npos) << r.output;
}

// A make-demo --classes 5 set, as a user would write it.
void MakeLabelDemo(const std::filesystem::path& dir) {
  const auto r = RunSegfeed("make-demo " + Quoted(dir) +
                            " --classes 5 --count 6 --width 64 --height 48 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

TEST(CheckTest, LabelMapDemoGivesAClassTableInTextAndJson) {
  TempDir dir;
  MakeLabelDemo(dir / "data");
  const std::string check =
      "check --data " + Quoted(dir / "data") + " --mask-mode labels --num-classes 5";
  const auto one = RunSegfeed(check + " --threads 1 --json " + Quoted(dir / "1.json"),
                              segfeed::testing::Streams::kStdoutOnly);
  const auto two = RunSegfeed(check + " --threads 2 --json " + Quoted(dir / "2.json"),
                              segfeed::testing::Streams::kStdoutOnly);
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(one.output, two.output);
  EXPECT_EQ(ReadText(dir / "1.json"), ReadText(dir / "2.json"));
  EXPECT_NE(one.output.find("classes          5: "), std::string::npos) << one.output;
  EXPECT_NE(one.output.find("median-freq"), std::string::npos) << one.output;
  EXPECT_NE(one.output.find("mask bit depths  8 (6)"), std::string::npos) << one.output;

  Json report;
  ASSERT_NO_THROW(report = JsonParser(ReadText(dir / "1.json")).ParseDocument());
  const Json& summary = report.at("summary");
  const Json& classes = summary.at("classes");
  ASSERT_EQ(classes.items.size(), 5u);
  double pixels = 0, fractions = 0;
  for (size_t c = 0; c < classes.items.size(); ++c) {
    const Json& entry = classes.items[c];
    EXPECT_EQ(entry.at("id").number, static_cast<double>(c));
    for (const char* key :
         {"masks", "fraction", "inverse_frequency_weight", "median_frequency_weight"}) {
      EXPECT_TRUE(entry.has(key)) << key;
    }
    pixels += entry.at("pixels").number;
    fractions += entry.at("fraction").number;
    if (entry.at("pixels").number > 0) {
      EXPECT_GT(entry.at("inverse_frequency_weight").number, 0);
      EXPECT_GT(entry.at("median_frequency_weight").number, 0);
    }
  }
  const double ignore = summary.at("ignore_pixels").number;
  EXPECT_GT(ignore, 0);  // VOC-style boundaries
  EXPECT_EQ(pixels, 6 * 64 * 48 - ignore);
  EXPECT_NEAR(fractions, 1.0, 1e-9);
}

TEST(CheckTest, LabelOutsideTheClassesExitsOneAsLabelOutOfRange) {
  TempDir dir;
  MakeLabelDemo(dir / "data");
  const auto r = RunSegfeed("check --data " + Quoted(dir / "data") +
                            " --mask-mode labels --num-classes 2 --threads 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("[label_out_of_range]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("label_out_of_range "), std::string::npos) << r.output;  // the summary
}

// The masks of `root`'s set, by path.
std::vector<std::filesystem::path> MaskFiles(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> masks;
  for (const auto& entry : std::filesystem::directory_iterator(root / "train_masks"))
    masks.push_back(entry.path());
  std::sort(masks.begin(), masks.end());
  return masks;
}

TEST(CheckTest, BinaryMasksWithoutForegroundExitOne) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 3);
  for (const auto& mask : MaskFiles(dir.path()))
    segfeed::testing::WriteFile(
        mask, segfeed::testing::EncodeMaskGif(std::vector<uint8_t>(64 * 48, 0), 64, 48));
  const auto r = RunSegfeed("check --data " + Quoted(dir.path()) + " --threads 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find((dir / "train_masks").string() + ": no mask has any foreground pixel"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("[suspicious_mask]"), std::string::npos) << r.output;
}

TEST(CheckTest, InvertedPaletteExitsOneNamingTheMask) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 3);
  const std::filesystem::path inverted = MaskFiles(dir.path()).front();
  segfeed::testing::GifPicture picture;
  picture.screen_width = 64;
  picture.screen_height = 48;
  picture.palette = {segfeed::testing::Rgb{255, 255, 255}, segfeed::testing::Rgb{0, 0, 0}};
  picture.frames.push_back({0, 0, 64, 48, false, -1, segfeed::testing::TestMask(64, 48)});
  segfeed::testing::WriteFile(inverted, segfeed::testing::EncodeGif(picture));
  const auto r = RunSegfeed("check --data " + Quoted(dir.path()) + " --threads 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const size_t at = r.output.find(inverted.string() + ": palette index 0 is not black");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("may be inverted", at), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("suspicious_mask 1"), std::string::npos) << r.output;
}

TEST(CheckTest, LabelOptionsWithoutLabelsModeAreAUsageError) {
  TempDir dir;
  segfeed::testing::WriteCleanDataset(dir.path(), 2);
  auto r = RunSegfeed("check --data " + Quoted(dir.path()) + " --num-classes 5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--num-classes"), std::string::npos) << r.output;
  r = RunSegfeed("check --data " + Quoted(dir.path()) + " --mask-mode labels");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // In the command line's words, as the user would fix it.
  EXPECT_NE(r.output.find("--num-classes must be in [1, 255] with --mask-mode labels (got 0)"),
            std::string::npos)
      << r.output;
}

}  // namespace
