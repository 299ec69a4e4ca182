// Runs `segfeed bench` itself on generated data: reproducibility across
// thread counts, the JSON report, and memory that does not grow with the
// dataset.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.h"
#include "tools/run_segfeed.h"
#include "tools/demo_dataset.h"

namespace {

using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

std::string MakeDataset(const TempDir& dir, const std::string& name, int count) {
  segfeed::tools::DemoOptions demo;
  demo.count = count;
  demo.width = 240;
  demo.height = 160;
  const auto path = dir / name;
  EXPECT_TRUE(segfeed::tools::WriteDemoDataset(path, demo, {}).ok());
  return path.string();
}

// The value after `key` in `text`, up to the first character not in `allowed`.
std::string ValueAfter(const std::string& text, const std::string& key, const std::string& allowed) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  const size_t end = text.find_first_not_of(allowed, start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string DigestOf(const std::string& output) { return ValueAfter(output, "digest ", "0123456789abcdef"); }

const char* kSmallRun = " --size 64 --batch 4 --epochs 2 --digest";

TEST(BenchTest, DigestIsTheSameForOneAndTwoThreadsAndPrefetchDepths) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 19);
  const auto one = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --threads 1");
  const auto two = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --threads 2 --prefetch 3");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_FALSE(DigestOf(one.output).empty()) << one.output;
  EXPECT_EQ(DigestOf(one.output), DigestOf(two.output));
  EXPECT_NE(one.output.find("loaded 38 pairs, skipped 0"), std::string::npos) << one.output;
  const auto other_seed = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --seed 1");
  EXPECT_NE(DigestOf(other_seed.output), DigestOf(one.output));
}

// The AVX2 kernels of the augment stage must give the same bytes as the
// one-pixel kernels that run on CPUs without AVX2.
TEST(BenchTest, DigestIsTheSameWithTheScalarKernels) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 9);
  // Odd sizes put pixels in every kernel's head, body and tail.
  const std::string run = "bench --data '" + data + "' --size 75x61 --batch 4 --epochs 2 --digest";
  const auto vectorised = RunSegfeed(run + " --dtype float32");
  setenv("SEGFEED_NO_AVX2", "1", 1);
  const auto scalar = RunSegfeed(run + " --dtype float32");
  const auto scalar_u8 = RunSegfeed(run + " --dtype uint8 --layout nchw");
  unsetenv("SEGFEED_NO_AVX2");
  const auto vectorised_u8 = RunSegfeed(run + " --dtype uint8 --layout nchw");
  ASSERT_EQ(vectorised.exit_code, 0) << vectorised.output;
  ASSERT_EQ(scalar.exit_code, 0) << scalar.output;
  EXPECT_FALSE(DigestOf(vectorised.output).empty());
  EXPECT_EQ(DigestOf(scalar.output), DigestOf(vectorised.output));
  EXPECT_EQ(DigestOf(scalar_u8.output), DigestOf(vectorised_u8.output));
}

TEST(BenchTest, JsonReportHasTheDocumentedKeys) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 9);
  const auto json_path = dir / "report.json";
  const auto r = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --decode-only --json '" + json_path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_path);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // bench/compare.sh reads several of these.
  for (const char* key : {"samples_per_s", "batches_per_s", "stage_seconds", "read", "decode_image",
                          "decode_mask", "warp", "jitter", "convert", "consumer_wait", "pool_kind",
                          "pool_bytes", "max_in_flight", "peak_rss_bytes", "loaded", "batches",
                          "skipped", "skipped_files", "decode_only_samples_per_s", "digest"}) {
    EXPECT_NE(json.find(std::string("\"") + key + "\":"), std::string::npos) << key << " in " << json;
  }
}

TEST(BenchTest, UsageErrorsExitTwoAndNameTheOption) {
  auto r = RunSegfeed("bench --dtype float64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--dtype must be one of uint8, float16, float32 (got 'float64')"), std::string::npos)
      << r.output;
  r = RunSegfeed("bench --epoch 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown option --epoch"), std::string::npos) << r.output;
}

TEST(BenchTest, FullDiskForJsonOrStdoutExitsOne) {
  TempDir dir;
  const std::string bench = "bench --data '" + MakeDataset(dir, "data", 4) + "' --size 32 --batch 2 --epochs 1";
  auto r = RunSegfeed(bench + " --json /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/full: cannot write: No space left on device"), std::string::npos) << r.output;
  r = segfeed::testing::RunSegfeedScript("\"$SEGFEED\" " + bench + " 2>&1 >/dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("segfeed bench: cannot write to standard output"), std::string::npos) << r.output;
}

// A report that cannot be written in full (file size limit, SIGXFSZ
// ignored: EFBIG as on a full disk) leaves the previous one as it was.
TEST(BenchTest, FailedJsonWriteKeepsTheOldReport) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 4);
  const auto report = dir / "report.json";
  std::ofstream(report) << "the previous report";
  const auto r = segfeed::testing::RunSegfeedScript("trap '' XFSZ; ulimit -f 0; \"$SEGFEED\" bench --data '" + data +
                                                    "' --size 32 --batch 2 --epochs 1 --json '" + report.string() +
                                                    "' 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(report.string() + ": cannot write: File too large"), std::string::npos) << r.output;
  std::ifstream in(report);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), "the previous report");
}

TEST(BenchTest, JsonInsideTheDatasetIsRefusedBeforeRunning) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 4);
  const auto r = RunSegfeed("bench --data '" + data + "' --json '" + data + "/train_masks/report.json'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("inside the dataset folder"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("throughput"), std::string::npos) << r.output;
}

// The naive baseline stops at a truncated mask (it used to crash on one)
// and says so; the loader's own report and exit status are unaffected.
TEST(BenchTest, BaselineReportsABadFileAndTheBenchGoesOn) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 4);
  const auto mask = std::filesystem::path(data) / "train_masks";
  const auto first_mask = std::filesystem::directory_iterator(mask)->path();
  std::filesystem::resize_file(first_mask, 6);
  const auto json_path = dir / "report.json";
  const auto r = RunSegfeed("bench --data '" + data + "' --size 32 --batch 2 --epochs 1 --on-error skip --baseline" +
                            " --json '" + json_path.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  baseline: " + first_mask.string() + ": truncated GIF"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("loaded "), std::string::npos) << r.output;
  std::ifstream in(json_path);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(json.find("\"baseline_samples_per_s\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"baseline_error\":\"" + first_mask.string() + ": truncated GIF"), std::string::npos) << json;
}

int64_t PeakRss(const std::string& json) {
  const std::string digits = ValueAfter(json, "\"peak_rss_bytes\":", "0123456789");
  return digits.empty() ? -1 : std::stoll(digits);
}

// Memory is the pool plus per-thread scratch, whatever the dataset size:
// ten times the pairs may not cost 10% more resident memory.
TEST(BenchTest, PeakRssDoesNotGrowWithTheDataset) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes keep freed memory in quarantine; RSS says nothing here";
#endif
  TempDir dir;
  const std::string small = MakeDataset(dir, "small", 50);
  const std::string large = MakeDataset(dir, "large", 500);
  int64_t rss[2];
  int i = 0;
  for (const std::string& data : {small, large}) {
    const auto json_path = dir / "rss.json";
    const auto r = RunSegfeed("bench --data '" + data + "' --size 128 --batch 8 --epochs 1 --json '" +
                          json_path.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(json_path);
    rss[i++] = PeakRss(std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()});
  }
  ASSERT_GT(rss[0], 0);
  std::cout << "peak RSS: 50 pairs " << rss[0] / 1024 << " KiB, 500 pairs " << rss[1] / 1024 << " KiB\n";
  EXPECT_LT(static_cast<double>(rss[1]), 1.10 * static_cast<double>(rss[0]));
}

}  // namespace
