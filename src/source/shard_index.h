#pragma once

// The shard index: one file for a dataset of tar shards that holds its
// ShardCatalog (the shards' names, sizes and digests; per sample its key,
// shard, and each member's offset, size and digest), so that opening the
// dataset reads one file instead of every shard. The format (binary,
// little-endian, versioned) is in docs/shards.md.

#include <cstdint>
#include <filesystem>

#include "result.h"
#include "source/shard_catalog.h"

namespace segfeed::source {

inline constexpr uint32_t kShardIndexVersion = 1;
// The index's name beside the shards.
inline constexpr const char* kShardIndexFileName = "index.sfidx";

// Writes `catalog` to `index` atomically (a temporary name in the same
// folder, fsync'ed, then renamed), through the file-system seam. Shard
// paths are stored relative to the index's folder, so the folder can move
// as a whole.
Status WriteShardIndex(const ShardCatalog& catalog, const std::filesystem::path& index);

// How far ReadShardIndex() checks that the shards are still the ones
// indexed: their sizes (a stat each), or also their digests (every byte
// read once).
enum class ShardCheck { kSizes, kDigests };

// Reads an index written by WriteShardIndex(). Refuses a file that is not
// one (magic, version, trailer digest, record fields out of range) and an
// index whose shards no longer match it (missing, another size, another
// digest): that error names the shard and the command that re-indexes
// (`segfeed index SHARDS...`).
Result<ShardCatalog> ReadShardIndex(const std::filesystem::path& index,
                                    ShardCheck check = ShardCheck::kSizes);

}  // namespace segfeed::source
