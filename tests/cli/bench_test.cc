// Runs `segfeed bench` itself on generated data: reproducibility across
// thread counts, the JSON report, and memory that does not grow with the
// dataset.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/python_checks.h"
#include "cli/report_json.h"
#include "cli/run_segfeed.h"
#include "demo/demo_dataset.h"
#include "fixtures/mixed_dataset.h"
#include "segfeed/loader.h"
#include "support/hostile_names.h"
#include "temp_dir.h"

namespace {

using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

std::string MakeDataset(const TempDir& dir, const std::string& name, int count) {
  segfeed::demo::DemoOptions demo;
  demo.count = count;
  demo.width = 240;
  demo.height = 160;
  const auto path = dir / name;
  EXPECT_TRUE(segfeed::demo::WriteDemoDataset(path, demo, {}).ok());
  return path.string();
}

// The value after `key` in `text`, up to the first character not in `allowed`.
std::string ValueAfter(const std::string& text, const std::string& key,
                       const std::string& allowed) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  const size_t end = text.find_first_not_of(allowed, start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string DigestOf(const std::string& output) {
  return ValueAfter(output, "digest ", "0123456789abcdef");
}

const char* kSmallRun = " --size 64 --batch 4 --epochs 2 --digest";

TEST(BenchTest, DigestIsTheSameForOneAndTwoThreadsAndPrefetchDepths) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 19);
  const auto one = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --threads 1");
  const auto two =
      RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --threads 2 --prefetch 3");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_FALSE(DigestOf(one.output).empty()) << one.output;
  EXPECT_EQ(DigestOf(one.output), DigestOf(two.output));
  EXPECT_NE(one.output.find("loaded 38 pairs, skipped 0, replaced 0\n"), std::string::npos)
      << one.output;
  const auto other_seed = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --seed 1");
  EXPECT_NE(DigestOf(other_seed.output), DigestOf(one.output));
}

// A multi-class set of palette PNG label maps beside PNG photos: the stream
// is the same for 1 and 2 threads and from run to run, for int64 and uint8
// labels, and the scalar kernels give the same bytes.
TEST(BenchTest, LabelMapDigestIsTheSameForThreadsRunsAndKernels) {
  TempDir dir;
  segfeed::demo::DemoOptions demo;
  demo.count = 9;
  demo.width = 120;
  demo.height = 80;
  demo.classes = 6;
  demo.image_format = segfeed::demo::DemoImageFormat::kPng;
  const auto path = dir / "labels";
  ASSERT_TRUE(segfeed::demo::WriteDemoDataset(path, demo, {}).ok());
  for (const std::string dtype : {"int64", "uint8"}) {
    const std::string run = "bench --data '" + path.string() +
                            "' --mask-mode labels --num-classes 6 --mask-dtype " + dtype +
                            " --size 75x61 --batch 4 --epochs 2 --digest --rotation 0.4";
    const auto one = RunSegfeed(run + " --threads 1");
    const auto two = RunSegfeed(run + " --threads 2");
    const auto again = RunSegfeed(run + " --threads 2");
    setenv("SEGFEED_NO_AVX2", "1", 1);
    const auto scalar = RunSegfeed(run + " --threads 2");
    unsetenv("SEGFEED_NO_AVX2");
    ASSERT_EQ(one.exit_code, 0) << one.output;
    ASSERT_FALSE(DigestOf(one.output).empty()) << one.output;
    EXPECT_EQ(DigestOf(two.output), DigestOf(one.output)) << dtype;
    EXPECT_EQ(DigestOf(again.output), DigestOf(one.output)) << dtype;
    EXPECT_EQ(DigestOf(scalar.output), DigestOf(one.output)) << dtype;
    EXPECT_NE(one.output.find("loaded 18 pairs, skipped 0, replaced 0\n"), std::string::npos)
        << one.output;
  }
}

// crop_max_class_ratio's redraws pick the same windows however they count
// (issue 47: the unturned windows are counted without being warped): the
// streams of a demo label set with its void band (255, the ignore value),
// the mmseg-like recipe's ratio, rotation off and on, two seeds, pinned to
// the digests of the build that warped every draw. The ratio moves windows:
// without it the stream differs.
TEST(BenchTest, ClassRatioStreamsKeepTheirDigests) {
  TempDir dir;
  segfeed::demo::DemoOptions demo;
  demo.count = 12;
  demo.width = 160;
  demo.height = 120;
  demo.classes = 5;
  const auto path = dir / "labels";
  ASSERT_TRUE(segfeed::demo::WriteDemoDataset(path, demo, {}).ok());
  const std::string run = "bench --data '" + path.string() +
                          "' --mask-mode labels --num-classes 5 --size 72x56 --batch 4"
                          " --epochs 2 --threads 2 --digest --resize keep_ratio --scale 0.5,2.0"
                          " --crop random --flip-ud-probability 0";
  struct Pinned {
    std::string flags, digest;
  };
  const Pinned pinned[] = {
      {" --crop-max-class-ratio 0.75 --rotation 0 --seed 1", "00a6721d63f9cdca"},
      {" --crop-max-class-ratio 0.75 --rotation 0 --seed 4", "55d2973db44cd151"},
      {" --crop-max-class-ratio 0.6 --rotation 0 --fill-mode reflect --seed 1", "1eb6fdd468b2b5b5"},
      {" --crop-max-class-ratio 0.75 --rotation 0.3 --seed 1", "6545fbff7a1e51bf"},
  };
  for (const Pinned& p : pinned) {
    const auto result = RunSegfeed(run + p.flags);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(DigestOf(result.output), p.digest) << p.flags;
  }
  const auto without = RunSegfeed(run + " --crop-max-class-ratio 1 --rotation 0 --seed 1");
  ASSERT_EQ(without.exit_code, 0) << without.output;
  EXPECT_NE(DigestOf(without.output), pinned[0].digest);
}

// Each decode's time is under the stage of its role and format, in the
// JSON and in the text table: make-demo's GIF masks are not timed as PNG,
// its PNG label maps not as GIF, PNG photos not as JPEG (nor the reverse).
TEST(BenchTest, DecodeStagesAreNamedByTheFormatsDecoded) {
  using segfeed::demo::DemoImageFormat;
  struct Case {
    std::string name;
    DemoImageFormat photos;
    int classes;  // 0: GIF masks, else PNG label maps
    std::string photo_stage, mask_stage;
    std::vector<std::string> lines, absent;
  };
  const Case cases[] = {
      {"jpeg_gif",
       DemoImageFormat::kJpeg,
       0,
       "decode_photo_jpeg",
       "decode_mask_gif",
       {"JPEG decode (photos)", "GIF decode (masks)"},
       {"PNG decode"}},
      {"jpeg_png",
       DemoImageFormat::kJpeg,
       3,
       "decode_photo_jpeg",
       "decode_mask_png",
       {"JPEG decode (photos)", "PNG decode (masks)"},
       {"GIF decode", "PNG decode (photos)"}},
      {"png_png",
       DemoImageFormat::kPng,
       3,
       "decode_photo_png",
       "decode_mask_png",
       {"PNG decode (photos)", "PNG decode (masks)"},
       {"JPEG decode", "GIF decode"}},
      {"png_gif",
       DemoImageFormat::kPng,
       0,
       "decode_photo_png",
       "decode_mask_gif",
       {"PNG decode (photos)", "GIF decode (masks)"},
       {"JPEG decode", "PNG decode (masks)"}},
  };
  TempDir dir;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    segfeed::demo::DemoOptions demo;
    demo.count = 4;
    demo.width = 64;
    demo.height = 48;
    demo.classes = c.classes;
    demo.image_format = c.photos;
    const auto path = dir / c.name;
    ASSERT_TRUE(segfeed::demo::WriteDemoDataset(path, demo, {}).ok());
    const auto json_path = dir / (c.name + ".json");
    const auto r =
        RunSegfeed("bench --data '" + path.string() + "' --size 32 --batch 2 --epochs 2 --json '" +
                   json_path.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(json_path);
    const auto stages = segfeed::cli::Json::parse(in)["stage_seconds"];
    for (const auto& [name, seconds] : stages.items()) {
      if (!name.starts_with("decode_")) continue;
      if (name == c.photo_stage || name == c.mask_stage) {
        EXPECT_GT(seconds.get<double>(), 0.0) << name;
      } else {
        EXPECT_EQ(seconds.get<double>(), 0.0) << name;
      }
    }
    const size_t start = r.output.find("  stages (thread-seconds");
    const size_t end = r.output.find("  consumer waited", start);
    ASSERT_NE(end, std::string::npos) << r.output;
    const std::string table = r.output.substr(start, end - start);
    for (const std::string& line : c.lines) {
      EXPECT_NE(table.find("\n    " + line + " "), std::string::npos) << line << " in " << table;
    }
    for (const std::string& label : c.absent) {
      EXPECT_EQ(table.find(label), std::string::npos) << label << " in " << table;
    }
  }
}

// The AVX-512 and AVX2 kernels of the augment stage must give the same
// bytes as the one-pixel kernels that run on CPUs without them:
// SEGFEED_NO_AVX512 forces the AVX2 kernels, SEGFEED_NO_AVX2 the one-pixel
// ones (on a CPU without AVX-512 the first two runs are the same path).
// --no-augment takes the plain image conversion instead of the jitter's.
TEST(BenchTest, DigestIsTheSameWithTheScalarKernels) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 9);
  // Odd sizes put pixels in every kernel's head, body and tail.
  const std::string run = "bench --data '" + data + "' --size 75x61 --batch 4 --epochs 2 --digest";
  const std::string nhwc_f32 = " --dtype float32";
  const std::string nchw_f32 = " --dtype float32 --layout nchw --mask-dtype uint8";
  const std::string nchw_u8 = " --dtype uint8 --layout nchw";
  const std::string nhwc_u8 = " --dtype uint8 --mask-dtype uint8";
  const std::string nhwc_f32_plain = " --dtype float32 --no-augment";
  const std::vector<std::string> configs = {nhwc_f32, nchw_f32, nchw_u8, nhwc_u8, nhwc_f32_plain};
  std::vector<segfeed::testing::CommandResult> widest, avx2, scalar;
  for (const std::string& config : configs) widest.push_back(RunSegfeed(run + config));
  setenv("SEGFEED_NO_AVX512", "1", 1);
  for (const std::string& config : configs) avx2.push_back(RunSegfeed(run + config));
  unsetenv("SEGFEED_NO_AVX512");
  setenv("SEGFEED_NO_AVX2", "1", 1);
  for (const std::string& config : configs) scalar.push_back(RunSegfeed(run + config));
  unsetenv("SEGFEED_NO_AVX2");
  for (size_t i = 0; i < configs.size(); ++i) {
    ASSERT_EQ(widest[i].exit_code, 0) << widest[i].output;
    ASSERT_EQ(avx2[i].exit_code, 0) << avx2[i].output;
    ASSERT_EQ(scalar[i].exit_code, 0) << scalar[i].output;
    EXPECT_FALSE(DigestOf(widest[i].output).empty());
    EXPECT_EQ(DigestOf(scalar[i].output), DigestOf(widest[i].output)) << configs[i];
    EXPECT_EQ(DigestOf(avx2[i].output), DigestOf(widest[i].output)) << configs[i];
  }
}

TEST(BenchTest, JsonReportHasTheDocumentedKeys) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 9);
  const auto json_path = dir / "report.json";
  const auto r = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --decode-only --json '" +
                            json_path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_path);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // bench/compare.sh reads several of these.
  for (const char* key : {"samples_per_s",
                          "batches_per_s",
                          "stage_seconds",
                          "read",
                          "decode_photo_jpeg",
                          "decode_photo_jpeg_roi",
                          "decode_photo_png",
                          "decode_mask_png",
                          "decode_mask_gif",
                          "warp",
                          "jitter",
                          "convert",
                          "consumer_wait",
                          "pool_kind",
                          "pool_bytes",
                          "peak_in_flight",
                          "peak_rss_bytes",
                          "samples_loaded",
                          "batches_delivered",
                          "samples_skipped",
                          "samples_replaced",
                          "skipped_files",
                          "unpaired_files",
                          "decode_only_samples_per_s",
                          "digest"}) {
    EXPECT_NE(json.find(std::string("\"") + key + "\":"), std::string::npos)
        << key << " in " << json;
  }
}

// The loader's stats are in the report under their field-list names, side
// by side in their order (Loader.stats() in Python has the same keys).
TEST(BenchTest, JsonReportHoldsTheStatsFieldListInOrder) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 9);
  const auto json_path = dir / "report.json";
  const auto r = RunSegfeed("bench --data '" + data + "'" + kSmallRun + " --json '" +
                            json_path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_path);
  const auto report = segfeed::cli::Json::parse(in);
  std::vector<std::string> keys;
  for (const auto& item : report.items()) keys.push_back(item.key());
  std::vector<std::string> names;
  segfeed::ForEachField(segfeed::LoaderStats{},
                        [&](std::string_view name, const auto&) { names.emplace_back(name); });
  EXPECT_NE(std::search(keys.begin(), keys.end(), names.begin(), names.end()), keys.end())
      << report.dump();
  std::vector<std::string> stage_keys;
  for (const auto& item : report["stage_seconds"].items()) stage_keys.push_back(item.key());
  std::vector<std::string> stage_names;
  segfeed::ForEachField(segfeed::StageSeconds{}, [&](std::string_view name, const auto&) {
    stage_names.emplace_back(name);
  });
  EXPECT_EQ(stage_keys, stage_names);
}

// A dataset a careless user brings: every defect between good pairs, plus
// images without masks and masks without images.
class BenchMixedDatasetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    mixed_ =
        new segfeed::testing::MixedDataset(segfeed::testing::WriteMixedDataset(dir_->path(), 40));
  }
  static void TearDownTestSuite() {
    delete mixed_;
    delete dir_;
  }
  static std::string Run(const std::string& options) {
    return "bench --data '" + dir_->path().string() + "' --size 32 --batch 8 --epochs 2 " + options;
  }
  static TempDir* dir_;
  static segfeed::testing::MixedDataset* mixed_;
};
TempDir* BenchMixedDatasetTest::dir_ = nullptr;
segfeed::testing::MixedDataset* BenchMixedDatasetTest::mixed_ = nullptr;

// Under skip: the closing line counts loads of listed pairs, skipped bad
// pairs and replacements apart; the text and the JSON list every skipped
// and unpaired file; the digest is the same for every run and thread count.
TEST_F(BenchMixedDatasetTest, SkipCountsListsAndIsReproducible) {
  const auto json_path = dir_->path() / "report.json";
  const auto r =
      RunSegfeed(Run("--on-error skip --digest --threads 2 --json '" + json_path.string() + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const int bad = static_cast<int>(mixed_->bad_files.size());
  const int loaded = 2 * (mixed_->complete_pairs() - bad);
  const std::string closing = "loaded " + std::to_string(loaded) + " pairs, skipped " +
                              std::to_string(2 * bad) + ", replaced " + std::to_string(2 * bad) +
                              "\n";
  EXPECT_NE(r.output.find(closing), std::string::npos) << closing << " in " << r.output;
  std::ifstream in(json_path);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(json.find("\"samples_loaded\":" + std::to_string(loaded) + ","), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"samples_skipped\":" + std::to_string(2 * bad) + ","), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"samples_replaced\":" + std::to_string(2 * bad) + ","), std::string::npos)
      << json;
  for (const auto& file : mixed_->bad_files) {
    EXPECT_NE(r.output.find("  skipped " + file.path + ": "), std::string::npos) << file.path;
    EXPECT_NE(json.find("\"path\":\"" + file.path + "\""), std::string::npos) << file.path;
  }
  for (const auto* files : {&mixed_->unpaired_images, &mixed_->orphan_masks}) {
    for (const auto& file : *files) {
      EXPECT_NE(r.output.find("  unpaired " + file.path + ": "), std::string::npos) << file.path;
      EXPECT_NE(json.find("\"path\":\"" + file.path + "\""), std::string::npos) << file.path;
    }
  }
  const std::string digest = DigestOf(r.output);
  ASSERT_FALSE(digest.empty());
  for (int run = 0; run < 4; ++run) {
    const auto again =
        RunSegfeed(Run("--on-error skip --digest --threads " + std::to_string(1 + run % 2) +
                       " --prefetch " + std::to_string(2 + run)));
    EXPECT_EQ(DigestOf(again.output), digest) << again.output;
  }
}

// Under fail (the default) the unpaired images stop bench before it loads
// anything, named; without them, the first bad pair stops it, named.
TEST_F(BenchMixedDatasetTest, FailStopsNamingTheFiles) {
  auto r = RunSegfeed(Run(""));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(mixed_->unpaired_images[0].path), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(mixed_->unpaired_images[1].path), std::string::npos) << r.output;

  TempDir dir;
  const auto mixed = segfeed::testing::WriteMixedDataset(dir.path(), 40);
  for (const auto& file : mixed.unpaired_images) std::filesystem::remove(file.path);
  const auto json_path = dir.path() / "report.json";
  r = RunSegfeed("bench --data '" + dir.path().string() +
                 "' --size 32 --batch 1 --epochs 1 --no-shuffle --json '" + json_path.string() +
                 "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("  stopped: " + mixed.bad_files[0].path + ": "), std::string::npos)
      << r.output;
  // Throughput is what was delivered over the time it took, not the whole
  // epoch's samples over the short time of a run that stopped early.
  std::ifstream in(json_path);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const double samples_per_s = std::stod(ValueAfter(json, "\"samples_per_s\":", "0123456789.e+-"));
  const double seconds = std::stod(ValueAfter(json, "\"epoch_seconds\":[", "0123456789.e+-"));
  const double delivered =
      std::stod(ValueAfter(json, "\"batches_delivered\":", "0123456789"));  // batch 1
  EXPECT_EQ(delivered, 1.0) << "the pair before the first bad one";
  EXPECT_NEAR(samples_per_s * seconds, delivered, 0.01 * delivered + 1e-9) << json;
}

// A bad pair in the first batch: no batch was delivered, so there is no
// throughput to report (it used to say 0.0 samples/s beside pairs loaded).
TEST_F(BenchMixedDatasetTest, AStopInTheFirstBatchMeasuresNoThroughput) {
  TempDir dir;
  const auto mixed = segfeed::testing::WriteMixedDataset(dir.path(), 40);
  for (const auto& file : mixed.unpaired_images) std::filesystem::remove(file.path);
  const auto json_path = dir.path() / "report.json";
  const auto r = RunSegfeed("bench --data '" + dir.path().string() +
                            "' --size 32 --batch 64 --epochs 2 --no-shuffle --json '" +
                            json_path.string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("  throughput: not measured: no timed epoch delivered a batch (the run "
                          "stopped after 0 batches;"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("samples/s"), std::string::npos) << r.output;
  std::ifstream in(json_path);
  const auto report = segfeed::cli::Json::parse(in);
  EXPECT_TRUE(report.at("samples_per_s").is_null()) << report.dump();
  EXPECT_TRUE(report.at("batches_per_s").is_null()) << report.dump();
}

// A run that could load nothing is an error, not an empty success.
TEST_F(BenchMixedDatasetTest, DropLastWithoutAFullBatchIsAnError) {
  const auto r = RunSegfeed(Run("--on-error skip --drop-last --batch 1000"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("drop_last leaves no batch"), std::string::npos) << r.output;
}

// Lines of `text` that start with `prefix`.
int CountLinesStartingWith(const std::string& text, const std::string& prefix) {
  std::string line_start = "\n";  // piecewise: GCC 12 warns falsely (-Wrestrict) on "\n" + prefix
  line_start += prefix;
  int lines = 0;
  for (size_t at = text.find(line_start); at != std::string::npos;
       at = text.find(line_start, at + 1))
    ++lines;
  return lines;
}

// File names may hold any byte but '/' and NUL: the JSON stays valid UTF-8
// JSON with each skipped or unpaired file's exact bytes recoverable, and
// the text, stderr included, has one file per line and no raw control
// character, under skip and when a name stops the run.
TEST(BenchTest, HostileNamesGiveValidJsonAndEscapedText) {
  TempDir dir;
  const auto dataset = segfeed::testing::WriteHostileNamesDataset(dir / "data");
  const auto json_path = dir / "report.json";
  const std::string run =
      "bench --data '" + (dir / "data").string() + "' --size 32 --batch 2 --epochs 1";
  const auto r =
      RunSegfeed(run + " --on-error skip --no-shuffle --json '" + json_path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto json = segfeed::testing::ReadJsonStrings(json_path);
  ASSERT_TRUE(json.valid) << json.error;
  auto sorted = [](std::vector<std::string> paths) {
    std::sort(paths.begin(), paths.end());
    return paths;
  };
  EXPECT_EQ(sorted(json.At("skipped_files.path")), sorted(dataset.skipped));
  EXPECT_EQ(sorted(json.At("unpaired_files.path")), sorted(dataset.unpaired));
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(r.output, dir / "output.txt"), "");
  EXPECT_EQ(CountLinesStartingWith(r.output, "  skipped "), 2) << r.output;
  EXPECT_EQ(CountLinesStartingWith(r.output, "  unpaired "), 2) << r.output;
  EXPECT_NE(r.output.find("  skipped " + (dir / "data" / "train").string() + "/two\\nlines.jpg: "),
            std::string::npos)
      << r.output;

  // Under fail the image without a mask stops bench, named on stderr.
  const auto stopped = RunSegfeed(run);
  EXPECT_EQ(stopped.exit_code, 1) << stopped.output;
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(stopped.output, dir / "output.txt"), "");
  EXPECT_NE(stopped.output.find("/train/\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07.jpg: no mask"),
            std::string::npos)
      << stopped.output;

  // Without the unpaired files, the first bad pair stops it mid-run.
  for (const std::string& path : dataset.unpaired) std::filesystem::remove(path);
  const auto bad_pair = RunSegfeed(run + " --no-shuffle", segfeed::testing::Streams::kStdoutOnly);
  EXPECT_EQ(bad_pair.exit_code, 1) << bad_pair.output;
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(bad_pair.output, dir / "output.txt"), "");
  EXPECT_NE(bad_pair.output.find("  stopped: " + (dir / "data" / "train").string() +
                                 "/bad\\xff\\xfe latin-1 \\xe9t\\xe9.jpg: file is empty"),
            std::string::npos)
      << bad_pair.output;
}

// Memory the libraries themselves hold (OpenCV, oneTBB, the CUDA runtime,
// the C library): ~50 MiB measured for a bench with a tiny pool; the
// README's memory model allows 64 MiB on top of the plan.
constexpr int64_t kLibraryBytes = int64_t{64} << 20;

// Outliers among normal pairs (headers claiming 10000x10000, a huge GIF
// canvas, junk near and over the file limit): each is skipped with its
// reason, and peak RSS stays under the plan plus the libraries' constant.
TEST(BenchTest, PeakRssStaysUnderThePlanWithOutliers) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes keep freed memory in quarantine; RSS says nothing here";
#endif
  TempDir dir;
  segfeed::testing::WriteGoodPairsOfMixedDataset(dir.path(), 30);
  const auto outliers = segfeed::testing::WriteOutlierPairs(dir.path(), int64_t{16} << 20);
  for (int threads : {2, 8}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const auto json_path = dir.path() / "rss.json";
    const auto r = RunSegfeed("bench --data '" + dir.path().string() +
                              "' --size 32 --batch 4 --epochs 2 --on-error skip" + " --threads " +
                              std::to_string(threads) + " --json '" + json_path.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const auto& outlier : outliers) {
      EXPECT_NE(r.output.find("  skipped " + outlier.path + ": "), std::string::npos)
          << outlier.path << r.output;
    }
    std::ifstream in(json_path);
    const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const int64_t peak = std::stoll(ValueAfter(json, "\"peak_rss_bytes\":", "0123456789"));
    const int64_t plan = std::stoll(ValueAfter(json, "\"plan_total_bytes\":", "0123456789"));
    std::cout << threads << " threads: peak RSS " << peak / 1024 << " KiB, plan " << plan / 1024
              << " KiB\n";
    EXPECT_LE(peak, plan + kLibraryBytes);
  }
}

TEST(BenchTest, WarnsWhenABatchIsLargerThanAnEpoch) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 5);
  const auto r = RunSegfeed("bench --data '" + data + "' --size 32 --batch 64 --epochs 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: a batch has room for 64 samples but an epoch has 5"),
            std::string::npos)
      << r.output;
}

// --epochs 0 --duration: a run of many epochs that ends at the deadline with
// its report and status 0; --sample-digests has a line per delivered sample,
// and without augmentation a pair's sample has one digest in every epoch.
TEST(BenchTest, DurationEndsTheRunAndSampleDigestsListEverySample) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 6);
  const auto log_path = dir.path() / "samples.jsonl";
  const auto r = RunSegfeed("bench --data '" + data +
                            "' --size 32 --batch 4 --no-augment --epochs 0 --duration 1 "
                            "--sample-digests '" +
                            log_path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("epochs until stopped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ended early (--duration) after "), std::string::npos) << r.output;
  std::ifstream in(log_path);
  std::map<std::string, std::string> digest_of;  // pair id -> digest
  int samples = 0, starts = 0, ends = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find(R"("event":"epoch_start")") != std::string::npos) ++starts;
    if (line.find(R"("event":"epoch_end")") != std::string::npos) ++ends;
    if (line.find(R"("event":"sample")") == std::string::npos) continue;
    ++samples;
    const std::string id = ValueAfter(line, R"("id":)", "0123456789");
    const std::string digest = ValueAfter(line, R"("digest":")", "0123456789abcdef");
    ASSERT_EQ(digest.size(), 16u) << line;
    EXPECT_EQ(digest_of.emplace(id, digest).first->second, digest) << line;
  }
  EXPECT_GT(starts, 2) << "one second holds many epochs of 6 pairs";
  EXPECT_EQ(starts, ends);
  EXPECT_EQ(digest_of.size(), 6u);
  // Loaded counts the samples of the batches prefetched when the deadline
  // abandoned the epoch too: at most the pool (2 batches of 4) more.
  const int loaded = std::stoi(ValueAfter(r.output, "loaded ", "0123456789"));
  EXPECT_GE(loaded, samples) << r.output;
  EXPECT_LE(loaded, samples + 2 * 4) << r.output;
}

TEST(BenchTest, UsageErrorsExitTwoAndNameTheOption) {
  auto r = RunSegfeed("bench --dtype float64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--dtype must be one of uint8, float16, float32 (got 'float64')"),
            std::string::npos)
      << r.output;
  r = RunSegfeed("bench --epoch 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown option --epoch"), std::string::npos) << r.output;
}

TEST(BenchTest, FullDiskForJsonOrStdoutExitsOne) {
  TempDir dir;
  const std::string bench =
      "bench --data '" + MakeDataset(dir, "data", 4) + "' --size 32 --batch 2 --epochs 1";
  auto r = RunSegfeed(bench + " --json /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/full: cannot write: No space left on device"), std::string::npos)
      << r.output;
  r = segfeed::testing::RunSegfeedScript("\"$SEGFEED\" " + bench + " 2>&1 >/dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("segfeed bench: cannot write to standard output"), std::string::npos)
      << r.output;
}

// A report that cannot be written in full (file size limit, SIGXFSZ
// ignored: EFBIG as on a full disk) leaves the previous one as it was.
TEST(BenchTest, FailedJsonWriteKeepsTheOldReport) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP()
      << "ThreadSanitizer's runtime dies on the file-size limit the test sets (SIGBUS, exit 66)";
#endif
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 4);
  const auto report = dir / "report.json";
  std::ofstream(report) << "the previous report";
  const auto r = segfeed::testing::RunSegfeedScript(
      "trap '' XFSZ; ulimit -f 0; \"$SEGFEED\" bench --data '" + data +
      "' --size 32 --batch 2 --epochs 1 --json '" + report.string() + "' 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(report.string() + ": cannot write: File too large"), std::string::npos)
      << r.output;
  std::ifstream in(report);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
            "the previous report");
}

TEST(BenchTest, JsonInsideTheDatasetIsRefusedBeforeRunning) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 4);
  const auto r =
      RunSegfeed("bench --data '" + data + "' --json '" + data + "/train_masks/report.json'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("inside the dataset folder"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("throughput"), std::string::npos) << r.output;
}

// A --json that is a symlink into the dataset, to a file or through a
// folder, is inside it too: what would be written is the dataset's file.
TEST(BenchTest, JsonLinkedIntoTheDatasetIsRefusedAndTheFileKept) {
  TempDir dir;
  const std::string data = MakeDataset(dir, "data", 4);
  const auto mask = std::filesystem::directory_iterator(data + "/train_masks")->path();
  std::filesystem::create_symlink(mask, dir / "report.json");
  std::filesystem::create_directory_symlink(data + "/train", dir / "reports");
  const auto size = std::filesystem::file_size(mask);
  for (const std::string& json :
       {(dir / "report.json").string(), (dir / "reports" / "report.json").string()}) {
    const auto r = RunSegfeed("bench --data '" + data + "' --epochs 1 --json '" + json + "'");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--json '" + json + "': is inside the dataset folder"),
              std::string::npos)
        << r.output;
  }
  EXPECT_EQ(std::filesystem::file_size(mask), size);
  EXPECT_FALSE(std::filesystem::exists(data + "/train/report.json"));
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
  const auto r = RunSegfeed("bench --data '" + data +
                            "' --size 32 --batch 2 --epochs 1 --on-error skip --baseline" +
                            " --json '" + json_path.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  baseline: " + first_mask.string() + ": truncated GIF"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("loaded "), std::string::npos) << r.output;
  std::ifstream in(json_path);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(json.find("\"baseline_samples_per_s\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"baseline_error\":\"" + first_mask.string() + ": truncated GIF"),
            std::string::npos)
      << json;
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
    const auto r =
        RunSegfeed("bench --data '" + data + "' --size 128 --batch 8 --epochs 1 --json '" +
                   json_path.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(json_path);
    rss[i++] =
        PeakRss(std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()});
  }
  ASSERT_GT(rss[0], 0);
  std::cout << "peak RSS: 50 pairs " << rss[0] / 1024 << " KiB, 500 pairs " << rss[1] / 1024
            << " KiB\n";
  EXPECT_LT(static_cast<double>(rss[1]), 1.10 * static_cast<double>(rss[0]));
}

}  // namespace
