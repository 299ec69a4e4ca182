#include "source/shard_packing.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "source/shard_index.h"
#include "source/shard_samples.h"

namespace segfeed::testing {

namespace fs = std::filesystem;

namespace {

// "a/b.JPG" -> "JPG": the extension as written, without its dot.
std::string Extension(const fs::path& path) { return path.extension().string().substr(1); }

}  // namespace

std::vector<fs::path> PackIntoShards(
    const PairList& pairs, const fs::path& out, size_t per_shard, bool index, TarFormat format,
    const std::vector<std::pair<std::string, std::string>>& options) {
  fs::create_directories(out);
  std::vector<fs::path> tars;
  for (size_t first = 0; first < pairs.size(); first += per_shard) {
    std::vector<TarEntrySpec> entries;
    for (size_t i = first; i < std::min(pairs.size(), first + per_shard); ++i) {
      const SamplePair pair = pairs[i];
      entries.push_back(
          File(pair.stem + "." + Extension(pair.image_path), ReadAll(pair.image_path)));
      entries.push_back(
          File(pair.stem + ".mask." + Extension(pair.mask_path), ReadAll(pair.mask_path)));
    }
    char name[32];
    std::snprintf(name, sizeof name, "train-%06zu.tar", tars.size());
    tars.push_back(out / name);
    WriteTar(tars.back(), format, entries);
  }
  if (index) {
    const source::ShardListing listing = source::ScanShards(tars);
    EXPECT_TRUE(listing.errors.empty() && listing.problems.empty());
    const Status written = source::WriteShardIndex(
        listing.catalog, out / source::kShardIndexFileName, source::ShardIndexDataset{options, {}});
    EXPECT_TRUE(written.ok()) << written.error().Message();
  }
  return tars;
}

}  // namespace segfeed::testing
