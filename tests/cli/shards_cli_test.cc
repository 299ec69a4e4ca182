// The commands read a shard dataset through --data as they read folders:
// bench streams the folders' digest, check, plan and preview name members
// as shard.tar:key.ext.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/run_segfeed.h"
#include "remote/loopback_http_server.h"
#include "segfeed/dataset.h"
#include "source/shard_packing.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::PackIntoShards;
using segfeed::testing::Quoted;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

// Carvana and VOC demo trees, each packed into shards of 3 with an index.
class ShardsCliTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    for (const char* layout : {"carvana", "voc"}) {
      const auto made = RunSegfeed("make-demo " + Quoted(dir_->path() / layout) +
                                   " --count 10 --width 96 --height 64 --dataset " + layout);
      ASSERT_EQ(made.exit_code, 0) << made.output;
    }
    PackIntoShards(ListDataset(DatasetSpec::Carvana(dir_->path() / "carvana")).pairs,
                   dir_->path() / "carvana-shards", 3);
    PackIntoShards(ListDataset(DatasetSpec::Voc(dir_->path() / "voc", "train")).pairs,
                   dir_->path() / "voc-shards", 3);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Data(const std::string& name) { return Quoted(dir_->path() / name); }

  static TempDir* dir_;
};
TempDir* ShardsCliTest::dir_ = nullptr;

std::string DigestOf(const std::string& output) {
  const size_t at = output.find("\ndigest ");
  return at == std::string::npos ? "" : output.substr(at + 8, 16);
}

std::string BenchDigest(const std::string& data, const std::string& flags) {
  const auto run =
      RunSegfeed("bench --data " + data + " --size 40x32 --batch 4 --epochs 2 --digest " + flags);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return DigestOf(run.output);
}

TEST_F(ShardsCliTest, BenchDigestOfTheShardsIsTheFolders) {
  for (const char* flags : {"--threads 1", "--threads 2", "--threads 2 --rank 1 --world-size 2"}) {
    const std::string folders = BenchDigest(Data("carvana"), flags);
    ASSERT_EQ(folders.size(), 16u);
    EXPECT_EQ(BenchDigest(Data("carvana-shards"), flags), folders) << flags;
    EXPECT_EQ(
        BenchDigest(Quoted(dir_->path() / "carvana-shards" / "train-{000000..000003}.tar"), flags),
        folders)
        << flags;
  }
  // VOC's label options: the preset's for the folders, given by hand for
  // shards whose index records none.
  const std::string labels =
      "--threads 2 --mask-dtype uint8 --mask-mode labels --num-classes 21 --mask-ignore-value 255";
  const std::string folders = BenchDigest(Data("voc") + " --dataset voc", labels);
  ASSERT_EQ(folders.size(), 16u);
  EXPECT_EQ(BenchDigest(Data("voc-shards"), labels), folders);
}

// Over HTTP (the loopback range server): the local shards' digest, and
// one GET of the index per command, however often the command asks for
// its dataset's spec.
TEST_F(ShardsCliTest, ShardsOverHttpFetchTheIndexOncePerCommand) {
  testing::LoopbackHttpServer server(dir_->path() / "carvana-shards");
  const std::string local = BenchDigest(Data("carvana-shards"), "--threads 2");
  ASSERT_EQ(local.size(), 16u);
  TempDir out;
  EXPECT_EQ(BenchDigest(Quoted(server.url()), "--threads 2 --json " + Quoted(out / "bench.json")),
            local);
  EXPECT_EQ(server.requests_of("index.sfidx"), 1);
  for (const char* command : {"plan", "check"}) {
    const auto run = RunSegfeed(std::string(command) + " --data " + Quoted(server.url()));
    EXPECT_EQ(run.exit_code, 0) << command << ": " << run.output;
  }
  EXPECT_EQ(server.requests_of("index.sfidx"), 3);
}

TEST_F(ShardsCliTest, CheckPlanAndPreviewReadShards) {
  const auto check = RunSegfeed("check --data " + Data("carvana-shards"));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("clean: 0 problems in 10 pairs"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("shards: the samples of the index"), std::string::npos)
      << check.output;

  const auto plan = RunSegfeed("plan --data " + Data("carvana-shards"));
  EXPECT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("96x64 (median of"), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find(".tar:"), std::string::npos) << "a header read from a shard";

  TempDir out;
  const auto preview = RunSegfeed("preview --data " + Data("carvana-shards") + " --count 4 --out " +
                                  Quoted(out / "grid.png"));
  EXPECT_EQ(preview.exit_code, 0) << preview.output;
  EXPECT_TRUE(fs::exists(out / "grid.png"));
}

TEST_F(ShardsCliTest, ADamagedShardIsNamedByCheck) {
  TempDir copy;
  fs::copy(dir_->path() / "carvana-shards", copy.path(), fs::copy_options::recursive);
  fs::resize_file(copy / "train-000001.tar", 1000);
  const auto check = RunSegfeed("check --data " + Quoted(copy.path()));
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE(check.output.find("train-000001.tar"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("segfeed index"), std::string::npos) << check.output;
}

// A tar given by name (no index): check scans it like bench does, rather
// than refusing a path that is not a folder; a damaged one is named, and
// the no-pairs line speaks of shards, not of image and mask folders.
TEST_F(ShardsCliTest, CheckTakesTarsByNameAndSaysWhyADamagedOneHasNoPairs) {
  const auto whole =
      RunSegfeed("check --data " + Quoted(dir_->path() / "carvana-shards" / "train-000000.tar"));
  EXPECT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_NE(whole.output.find("clean: 0 problems in 3 pairs"), std::string::npos) << whole.output;

  TempDir copy;
  fs::copy_file(dir_->path() / "carvana-shards" / "train-000000.tar", copy / "cut.tar");
  fs::resize_file(copy / "cut.tar", 1000);
  const auto cut = RunSegfeed("check --data " + Quoted(copy / "cut.tar"));
  EXPECT_EQ(cut.exit_code, 1) << cut.output;
  EXPECT_NE(cut.output.find("cut.tar:"), std::string::npos) << cut.output;
  EXPECT_NE(cut.output.find("NO PAIRS: no sample listed from the shards"), std::string::npos)
      << cut.output;
  EXPECT_EQ(cut.output.find("is not a folder"), std::string::npos) << cut.output;
}

// Shards without an index, one cut short and one missing: check lists the
// problem of each (the lost sample by shard and member, each shard by where
// reading stopped) and checks the pairs of the others; bench streams them
// under skip and refuses under fail, naming the shard.
TEST_F(ShardsCliTest, CheckAndBenchListADamagedAndAMissingShardAndReadTheOthers) {
  TempDir copy;
  for (const char* name : {"train-000000.tar", "train-000001.tar", "train-000003.tar"})
    fs::copy_file(dir_->path() / "carvana-shards" / name, copy / name);
  fs::resize_file(copy / "train-000001.tar", 1000);  // inside its first photo
  const std::string data = Quoted(copy / "train-{000000..000003}.tar");
  const auto check = RunSegfeed("check --data " + data);
  EXPECT_EQ(check.exit_code, 1) << check.output;
  EXPECT_NE(check.output.find("NOT CLEAN: 3 problems in 4 pairs"), std::string::npos)
      << check.output;
  const std::string cut = (copy / "train-000001.tar").string();
  EXPECT_NE(check.output.find(cut + ":"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("' lost: "), std::string::npos) << check.output;
  EXPECT_NE(check.output.find(cut + ": reading stopped at byte offset 0 in member"),
            std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find((copy / "train-000002.tar").string() +
                              ": nothing in the shard could be read (cannot open"),
            std::string::npos)
      << check.output;

  const auto skip =
      RunSegfeed("bench --data " + data + " --size 40x32 --batch 2 --epochs 1 --on-error skip");
  EXPECT_EQ(skip.exit_code, 0) << skip.output;
  EXPECT_NE(skip.output.find("loaded 4 pairs"), std::string::npos) << skip.output;
  const auto fail = RunSegfeed("bench --data " + data + " --size 40x32 --batch 2 --epochs 1");
  EXPECT_NE(fail.exit_code, 0) << fail.output;
  EXPECT_NE(fail.output.find(cut + ":"), std::string::npos) << fail.output;
}

}  // namespace
}  // namespace segfeed
