#pragma once

// A folder dataset packed into tar shards the way `segfeed pack` packs one,
// for the tests that compare the two streams: each pair in listing order
// as `<key>.<photo extension>` and `<key>.mask.<mask extension>` with the
// files' bytes unchanged, so that a sample's position in the shards is its
// position in the listing.

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "segfeed/dataset.h"
#include "source/tar_writing.h"

namespace segfeed::testing {

// Writes `pairs` into out/train-000000.tar, ... of `per_shard` samples
// each (the last may hold fewer) and, with `index`, their index
// (out/index.sfidx) recording `options` (option-table names and text, as
// `segfeed pack` records a dataset's label options). Returns the tars'
// paths in order.
std::vector<std::filesystem::path> PackIntoShards(
    const PairList& pairs, const std::filesystem::path& out, size_t per_shard, bool index = true,
    TarFormat format = TarFormat::kUstar,
    const std::vector<std::pair<std::string, std::string>>& options = {});

}  // namespace segfeed::testing
