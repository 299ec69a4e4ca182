// What the front ends' dataset keywords make of shard data: DatasetSpec's
// fourth rule, chosen by what `data` names or by `shards`.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/options.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using Values = std::vector<std::pair<std::string, std::string>>;

TEST(ShardSpecTest, DataNamingShardsChoosesTheShardsRule) {
  segfeed::testing::TempDir dir;
  std::ofstream(dir / "index.sfidx") << "x";
  EXPECT_TRUE(IsShardData(dir.path()));
  EXPECT_TRUE(IsShardData("d/train-{0..3}.tar"));
  EXPECT_TRUE(IsShardData("d/one.tar"));
  EXPECT_TRUE(IsShardData("d/other.sfidx"));
  EXPECT_FALSE(IsShardData(dir / "nothing-here"));

  const DatasetSpec folder = DatasetFromValues(dir.path(), {});
  EXPECT_EQ(folder.name, "shards");
  EXPECT_EQ(folder.shard_index, dir / "index.sfidx");
  const DatasetSpec pattern = DatasetFromValues("d/train-{0..2}.tar", {});
  EXPECT_EQ(pattern.shards,
            (std::vector<fs::path>{"d/train-0.tar", "d/train-1.tar", "d/train-2.tar"}));
  EXPECT_EQ(DatasetFromValues("d/other.sfidx", {}).shard_index, "d/other.sfidx");
  const DatasetSpec listed = DatasetFromValues("", Values{{"shards", "a.tar,b/c.tar"}});
  EXPECT_EQ(listed.shards, (std::vector<fs::path>{"a.tar", "b/c.tar"}));
  // A plain folder is still Carvana's layout.
  EXPECT_EQ(DatasetFromValues(dir / "nothing-here", {}).name, "carvana");
}

TEST(ShardSpecTest, KeywordsOfTheFileRulesAreRefusedWithShards) {
  for (const Values& values :
       {Values{{"images", "x"}, {"shards", "a.tar"}}, Values{{"mask_suffix", "_m"}},
        Values{{"split", "val"}}, Values{{"dataset", "voc"}, {"shards", "a.tar"}}}) {
    EXPECT_THROW(DatasetFromValues(values.size() == 1 ? "d/a.tar" : "", values), ConfigError)
        << values.front().first;
  }
  EXPECT_THROW(DatasetFromValues("d/a.tar", Values{{"shards", "b.tar"}}), ConfigError);
  EXPECT_THROW(DatasetFromValues("d", Values{{"dataset", "shards"}}), ConfigError);
}

// The cache keeps what object storage sent; a dataset on local disk (a
// folder of files, local shards) is refused one, saying why, before a file
// is listed.
TEST(ShardSpecTest, ACacheDirOnALocalDatasetIsAConfigErrorNamingIt) {
  segfeed::testing::TempDir dir;
  ObjectStorageOptions cached;
  cached.cache_dir = (dir / "cache").string();
  for (const DatasetSpec& spec :
       {DatasetFromValues("", Values{{"shards", (dir / "a.tar").string()}}),
        DatasetFromValues(dir.path(), Values{{"dataset", "carvana"}})}) {
    try {
      ListDataset(spec, cached);
      ADD_FAILURE() << "no ConfigError";
    } catch (const ConfigError& error) {
      EXPECT_EQ(
          std::string(error.what()).rfind("cache_dir applies to datasets in object storage", 0), 0u)
          << error.what();
    }
  }
  EXPECT_FALSE(fs::exists(dir / "cache"));
}

}  // namespace
}  // namespace segfeed
