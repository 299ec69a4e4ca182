// --shuffle global|shards|none on the command line, and the spellings it
// had as a switch (--shuffle alone, --no-shuffle, --shuffle true/false),
// which keep their streams.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/run_segfeed.h"
#include "segfeed/dataset.h"
#include "source/shard_packing.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using segfeed::testing::Quoted;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

std::string BenchDigest(const std::string& data, const std::string& flags) {
  const auto run =
      RunSegfeed("bench --data " + data + " --size 40x32 --batch 4 --epochs 2 --digest " + flags);
  EXPECT_EQ(run.exit_code, 0) << flags << "\n" << run.output;
  const size_t at = run.output.find("\ndigest ");
  return at == std::string::npos ? "" : run.output.substr(at + 8, 16);
}

TEST(ShuffleFlagsTest, TheChoicesAndTheSwitchesSpellingsStreamAsTheyDid) {
  TempDir dir;
  const auto made =
      RunSegfeed("make-demo " + Quoted(dir / "folders") + " --count 10 --width 96 --height 64");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string folders = Quoted(dir / "folders");
  const std::string global = BenchDigest(folders, "");
  ASSERT_EQ(global.size(), 16u);
  for (const char* flags : {"--shuffle", "--shuffle global", "--shuffle true", "--shuffle=true"})
    EXPECT_EQ(BenchDigest(folders, flags), global) << flags;
  const std::string none = BenchDigest(folders, "--no-shuffle");
  EXPECT_NE(none, global);
  for (const char* flags : {"--shuffle none", "--shuffle false", "--shuffle=false"})
    EXPECT_EQ(BenchDigest(folders, flags), none) << flags;

  const auto on_files = RunSegfeed("bench --data " + folders + " --shuffle shards");
  EXPECT_NE(on_files.exit_code, 0);
  EXPECT_NE(on_files.output.find("shuffle='shards' needs a shard dataset"), std::string::npos)
      << on_files.output;
  const auto window = RunSegfeed("bench --data " + folders + " --shard-window 2");
  EXPECT_EQ(window.exit_code, 2);
  EXPECT_NE(window.output.find("--shard-window must be 0 unless --shuffle shards (got 2 with "
                               "--shuffle global)"),
            std::string::npos)
      << window.output;
  const auto both = RunSegfeed("bench --data " + folders + " --shuffle none --no-shuffle");
  EXPECT_EQ(both.exit_code, 2) << both.output;

  segfeed::testing::PackIntoShards(ListDataset(DatasetSpec::Carvana(dir / "folders")).pairs,
                                   dir / "shards", 3);
  const std::string shards = Quoted(dir / "shards");
  EXPECT_EQ(BenchDigest(shards, ""), global) << "the global order of the folders";
  const std::string blocks = BenchDigest(shards, "--shuffle shards");
  EXPECT_NE(blocks, global);
  EXPECT_EQ(BenchDigest(shards, "--shuffle shards --shard-window 4"), blocks) << "4: the default";
  EXPECT_NE(BenchDigest(shards, "--shuffle shards --shard-window 1"), blocks);
}

}  // namespace
}  // namespace segfeed
