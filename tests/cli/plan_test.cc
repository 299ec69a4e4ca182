// Runs `segfeed plan` itself: its numbers are PlanMemory()'s and the pool is
// what a Loader with the same options allocates; usage errors exit 2.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "cli/python_checks.h"
#include "cli/report_json.h"
#include "demo/demo_dataset.h"
#include "run_segfeed.h"
#include "segfeed/loader.h"
#include "segfeed/memory.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using segfeed::testing::Quoted;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    demo::DemoOptions demo;
    demo.count = 3;
    demo.width = 160;
    demo.height = 106;
    ASSERT_TRUE(demo::WriteDemoDataset(dir_ / "data", demo, {}).ok());
    data_ = " --data " + Quoted((dir_ / "data").string());
  }

  // Runs plan with `arguments` and --json; the parsed report.
  cv::FileStorage Plan(const std::string& arguments) {
    const std::string json = (dir_ / "plan.json").string();
    std::filesystem::remove(json);
    last_ = RunSegfeed("plan " + arguments + " --json " + Quoted(json));
    EXPECT_EQ(last_.exit_code, 0) << last_.output;
    return cv::FileStorage(json, cv::FileStorage::READ | cv::FileStorage::FORMAT_JSON);
  }

  TempDir dir_;
  std::string data_;
  segfeed::testing::CommandResult last_;
};

int64_t Bytes(const cv::FileNode& node) { return static_cast<int64_t>(static_cast<double>(node)); }

void ExpectReportIs(const cv::FileStorage& report, const MemoryPlan& plan) {
  ASSERT_TRUE(report.isOpened());
  EXPECT_EQ(Bytes(report["image_bytes_per_sample"]),
            static_cast<int64_t>(plan.image_bytes_per_sample));
  EXPECT_EQ(Bytes(report["mask_bytes_per_sample"]),
            static_cast<int64_t>(plan.mask_bytes_per_sample));
  EXPECT_EQ(Bytes(report["batch_bytes"]), static_cast<int64_t>(plan.batch_bytes));
  EXPECT_EQ(static_cast<int>(report["pool_buffers"]), plan.pool_buffers);
  EXPECT_EQ(Bytes(report["pool_bytes"]), static_cast<int64_t>(plan.pool_bytes));
  EXPECT_EQ(static_cast<int>(report["threads"]), plan.threads);
  EXPECT_EQ(Bytes(report["scratch_bytes_per_thread"]),
            static_cast<int64_t>(plan.scratch_bytes_per_thread));
  EXPECT_EQ(Bytes(report["scratch_bytes"]), static_cast<int64_t>(plan.scratch_bytes));
  EXPECT_EQ(static_cast<int>(report["in_flight_bound"]), plan.in_flight_bound);
  EXPECT_EQ(Bytes(report["gpu_batch_bytes"]), static_cast<int64_t>(plan.gpu_batch_bytes));
  EXPECT_EQ(Bytes(report["listing_bytes"]), static_cast<int64_t>(plan.listing_bytes));
  EXPECT_EQ(Bytes(report["total_bytes"]), static_cast<int64_t>(plan.total_bytes));
}

// The plan is in the report under its field-list names, side by side in
// their order, with the values PlanMemory gives (Loader.plan() in Python
// has the same keys).
TEST_F(PlanTest, JsonReportHoldsThePlanFieldListInOrder) {
  ASSERT_TRUE(Plan("--source-size 640x480 --size 64 --batch 2 --threads 2").isOpened())
      << last_.output;
  std::ifstream in(dir_ / "plan.json");
  const auto report = cli::Json::parse(in);
  LoaderOptions options;
  options.augment.output_width = options.augment.output_height = 64;
  options.batch_size = 2;
  options.threads = 2;
  const cli::Json expected = cli::FieldsJson(PlanMemory(options, 640, 480));
  std::vector<std::string> keys, names;
  for (const auto& item : report.items()) keys.push_back(item.key());
  for (const auto& item : expected.items()) names.push_back(item.key());
  const auto at = std::search(keys.begin(), keys.end(), names.begin(), names.end());
  ASSERT_NE(at, keys.end()) << report.dump();
  for (const auto& item : expected.items())
    EXPECT_EQ(report[item.key()], item.value()) << item.key();
}

TEST_F(PlanTest, PrintsPlanMemoryAndThePoolALoaderAllocates) {
  LoaderOptions options;
  options.batch_size = 4;
  options.prefetch_batches = 3;
  options.threads = 2;
  options.augment.output_width = 96;
  options.augment.output_height = 64;
  options.output.image_dtype = ElementType::kFloat16;
  options.output.layout = Layout::kNCHW;
  options.output.mask_dtype = ElementType::kUint8;
  options.pinned = PinnedMode::kOff;
  const std::string flags =
      " --batch 4 --prefetch 3 --threads 2 --size 96x64 --dtype float16 --layout nchw --mask-dtype "
      "uint8";

  const cv::FileStorage report = Plan(data_ + flags);
  EXPECT_EQ(static_cast<int>(report["source_width"]), 160);
  EXPECT_EQ(static_cast<int>(report["source_height"]), 106);
  MemoryPlan expected = PlanMemory(options, 160, 106);
  AddListingToPlan(ListDataset(DatasetSpec::Carvana(dir_ / "data")), &expected);
  ExpectReportIs(report, expected);
  // The text report prints the same byte counts.
  EXPECT_NE(last_.output.find(std::to_string(expected.pool_bytes) + " bytes"), std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find(std::to_string(expected.scratch_bytes) + " bytes"), std::string::npos)
      << last_.output;
  EXPECT_EQ(last_.output.find('\r'), std::string::npos);

  // A Loader on the same data with the same options plans the same and
  // allocates exactly the planned pool.
  Loader loader(DatasetSpec::Carvana(dir_ / "data"), options);
  ExpectReportIs(report, loader.plan());
  EXPECT_EQ(Bytes(report["pool_bytes"]), static_cast<int64_t>(loader.stats().pool_bytes));
  EXPECT_EQ(static_cast<int>(report["pool_buffers"]), loader.stats().pool_buffers);
  EXPECT_EQ(static_cast<int>(report["in_flight_bound"]), loader.stats().in_flight_bound);
}

TEST_F(PlanTest, SourceSizeGivesTheSamePlanAsTheData) {
  const std::string flags = " --batch 2 --threads 3 --size 64";
  const cv::FileStorage from_data = Plan(data_ + flags);
  const cv::FileStorage from_size = Plan("--source-size 160x106" + flags);
  LoaderOptions options;
  options.batch_size = 2;
  options.threads = 3;
  options.augment.output_width = options.augment.output_height = 64;
  const MemoryPlan expected = PlanMemory(options, 160, 106);
  ExpectReportIs(from_size, expected);
  // The same, with the listing that only --data knows.
  MemoryPlan with_listing = expected;
  AddListingToPlan(ListDataset(DatasetSpec::Carvana(dir_ / "data")), &with_listing);
  EXPECT_GT(with_listing.listing_bytes, 0u);
  ExpectReportIs(from_data, with_listing);
  EXPECT_EQ(static_cast<std::string>(from_size["source"]), "--source-size");
}

TEST_F(PlanTest, ModelEstimateIsParamsGradsAndOptimizerState) {
  cv::FileStorage report =
      Plan("--source-size 1918x1280 --threads 1 --model-params 1000 --optimizer sgd");
  EXPECT_EQ(static_cast<int>(report["model"]["parameter_bytes"]), 4000);
  EXPECT_EQ(static_cast<int>(report["model"]["gradient_bytes"]), 4000);
  EXPECT_EQ(static_cast<int>(report["model"]["optimizer_state_bytes"]), 4000);
  EXPECT_EQ(static_cast<int>(report["model"]["total_bytes"]), 12000);
  EXPECT_EQ(Bytes(report["gpu_total_bytes"]), Bytes(report["gpu_batch_bytes"]) + 12000);
  EXPECT_NE(last_.output.find("activations not included"), std::string::npos) << last_.output;

  report = Plan("--source-size 1918x1280 --threads 1 --model-params 1000");  // adam by default
  EXPECT_EQ(static_cast<std::string>(report["model"]["optimizer"]), "adam");
  EXPECT_EQ(static_cast<int>(report["model"]["optimizer_state_bytes"]), 8000);
  EXPECT_EQ(static_cast<int>(report["model"]["total_bytes"]), 16000);

  report = Plan("--source-size 1918x1280 --threads 1");
  EXPECT_TRUE(report["model"].empty());
  EXPECT_EQ(last_.output.find("model"), std::string::npos) << last_.output;
}

// The example photo the plan names may have any bytes in its name: the JSON
// stays valid UTF-8 with the exact bytes beside, the text escapes them.
TEST_F(PlanTest, HostileExamplePathGivesValidJsonAndEscapedText) {
  const auto data = dir_ / "hostile";
  demo::DemoOptions demo;
  demo.count = 1;
  demo.width = 64;
  demo.height = 48;
  ASSERT_TRUE(demo::WriteDemoDataset(data, demo, {}).ok());
  const std::string stem = "plan\xff\n\x1b[2J";
  const std::string image = (data / "train" / (stem + ".jpg")).string();
  std::filesystem::rename(data / "train" / (demo::DemoStem(0, 0) + ".jpg"), image);
  std::filesystem::rename(data / "train_masks" / (demo::DemoStem(0, 0) + "_mask.gif"),
                          data / "train_masks" / (stem + "_mask.gif"));
  const auto json_path = dir_ / "hostile.json";
  const auto r =
      RunSegfeed("plan --data " + Quoted(data.string()) + " --json " + Quoted(json_path.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto json = segfeed::testing::ReadJsonStrings(json_path);
  ASSERT_TRUE(json.valid) << json.error;
  EXPECT_EQ(json.At("source"), std::vector<std::string>{"median of 1 headers, e.g. " + image});
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(r.output, dir_ / "output.txt"), "");
  EXPECT_NE(r.output.find("/train/plan\\xff\\n\\x1b[2J.jpg)"), std::string::npos) << r.output;
}

TEST_F(PlanTest, HelpDocumentsTheFormula) {
  const auto r = RunSegfeed("plan --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("gradients 4N"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Activations are NOT included"), std::string::npos) << r.output;
}

TEST_F(PlanTest, UsageErrorsExitTwoAndNameTheOption) {
  const std::pair<std::string, std::string> cases[] = {
      {"plan", "--source-size"},
      {"plan --source-size 160x106" + data_, "--source-size"},
      {"plan --source-size 0x106", "--source-size"},
      {"plan --source-size 160", "--source-size"},
      {"plan --source-size 160x106x3", "--source-size"},
      {"plan --source-size 160x106 --optimizer rmsprop --model-params 5", "--optimizer"},
      {"plan --source-size 160x106 --optimizer sgd", "--optimizer"},
      {"plan --source-size 160x106 --model-params -5", "--model-params"},
      {"plan --source-size 160x106 --batch 0", "--batch"},
      {"plan --source-size 160x106 --prefetch 0", "--prefetch"},
      {"plan --source-size 160x106 --dtype float64", "--dtype"},
      {"plan --source-size 160x106 --dtype uint8 --normalize", "--normalize"},
      {"plan --source-size 160x106 --bogus", "--bogus"},
  };
  for (const auto& [arguments, option] : cases) {
    const auto r = RunSegfeed(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(option), std::string::npos) << arguments << "\n" << r.output;
  }
}

TEST_F(PlanTest, FullDiskForJsonOrStdoutExitsOne) {
  auto r = RunSegfeed("plan --source-size 1918x1280 --json /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/full: cannot write: No space left on device"), std::string::npos)
      << r.output;
  r = segfeed::testing::RunSegfeedScript(
      "\"$SEGFEED\" plan --source-size 1918x1280 2>&1 >/dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("segfeed plan: cannot write to standard output"), std::string::npos)
      << r.output;
}

TEST_F(PlanTest, JsonInAMissingFolderIsAUsageError) {
  const auto r =
      RunSegfeed("plan" + data_ + " --json " + Quoted((dir_ / "no" / "plan.json").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--json '" + (dir_ / "no" / "plan.json").string() + "': folder '" +
                          (dir_ / "no").string() + "' does not exist"),
            std::string::npos)
      << r.output;
}

// The plan reads the headers of several pairs: a broken first photo does
// not decide it, and only a dataset without one readable photo is an error.
TEST_F(PlanTest, PlansFromTheReadablePhotosAndFailsOnlyWithoutAny) {
  std::vector<std::filesystem::path> photos;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "data" / "train"))
    photos.push_back(entry.path());
  std::sort(photos.begin(), photos.end());
  const auto before = RunSegfeed("plan" + data_);
  std::filesystem::resize_file(photos.front(), 0);
  const auto without_first = RunSegfeed("plan" + data_);
  EXPECT_EQ(without_first.exit_code, 0) << without_first.output;
  EXPECT_EQ(without_first.output.substr(without_first.output.find("  pool")),
            before.output.substr(before.output.find("  pool")));
  for (const auto& photo : photos) std::filesystem::resize_file(photo, 0);
  const auto r = RunSegfeed("plan" + data_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("file is empty (0 bytes) [empty_file]"), std::string::npos) << r.output;
}

// Planning allocates nothing and counts in 64 bits: sizes far beyond any
// machine give a plan with the right numbers and a refusal giving the bytes,
// never std::bad_alloc or a wrapped-around count.
TEST_F(PlanTest, PlansBeyondTheMachineAreRefusedWithTheirBytes) {
  auto r = RunSegfeed("plan --source-size 1918x1280 --batch 1000000 --prefetch 3000");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("in flight     3000000000 samples"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pool        12582912000000000 bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the memory plan needs 12582912110023704 bytes"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("of physical memory"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("bad_alloc"), std::string::npos) << r.output;

  r = RunSegfeed("plan --source-size 100000x100000");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find(
          "source size 100000x100000 = 10000000000 pixels is more than max_pixels = 100000000"),
      std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace segfeed
