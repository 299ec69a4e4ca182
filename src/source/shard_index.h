#pragma once

// The shard index: one file for a dataset of tar shards that holds its
// ShardCatalog (the shards' names, sizes and digests; per sample its key,
// shard, and each member's offset, size and digest), so that opening the
// dataset reads one file instead of every shard. The format (binary,
// little-endian, versioned) is in docs/shards.md.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "result.h"
#include "source/shard_catalog.h"

namespace segfeed::source {

// Version 2 adds ShardIndexDataset after the records; version 3 stores
// 40-byte records (the mask's offset as a distance from the photo's) and
// front-coded keys (source/front_coded_keys.h). Versions 1 and 2 are still
// read (version 1 with an empty ShardIndexDataset).
inline constexpr uint32_t kShardIndexVersion = 3;
// The index's name beside the shards.
inline constexpr const char* kShardIndexFileName = "index.sfidx";

// What an index records about the dataset beyond where its bytes are, so
// that a loader opening the shards needs no further options: written by
// `segfeed pack`, empty from `segfeed index`.
struct ShardIndexDataset {
  // Option-table names and their CLI text, as DatasetSpec::options holds a
  // preset's: the dataset's label options (mask_mode, num_classes,
  // mask_ignore_value, label_map), its class_names when it has some, and
  // how the shards were written (photo_codec, photo_quality).
  std::vector<std::pair<std::string, std::string>> options;
  // Samples whose key was encoded to become a member name (a dot in its
  // last component: docs/shards.md), with the key as the dataset had it.
  std::vector<std::pair<SampleId, std::string>> original_keys;
};

// Writes `catalog` (and `dataset`) to `index` atomically (a temporary name in the same
// folder, fsync'ed, then renamed), through the file-system seam. Shard
// paths are stored relative to the index's folder, so the folder can move
// as a whole.
Status WriteShardIndex(const ShardCatalog& catalog, const std::filesystem::path& index,
                       const ShardIndexDataset& dataset = {});

// How far ReadShardIndex() checks that the shards are still the ones
// indexed: their sizes (a stat each), or also their digests (every byte
// read once).
enum class ShardCheck { kSizes, kDigests };

// Whether `bytes` are a whole index as written: its magic, and the digest
// its last 8 bytes hold of the rest. False for one cut short or changed
// (a fetch to try again), before anything is decoded.
bool ShardIndexIntact(std::span<const uint8_t> bytes);

// An index's bytes fetched some other way (object storage): decoded and
// checked as ReadShardIndex() does, with the shards' paths under `index`'s
// parent ("s3://bucket/voc/index.sfidx" gives "s3://bucket/voc/<shard>"),
// but the shards are not looked at.
Result<ShardCatalog> DecodeShardIndex(std::span<const uint8_t> bytes,
                                      const std::filesystem::path& index,
                                      ShardIndexDataset* dataset = nullptr);

// Reads an index written by WriteShardIndex(). Refuses a file that is not
// one (magic, version, trailer digest, record fields out of range) and an
// index whose shards no longer match it (missing, another size, another
// digest): that error names the shard and the command that re-indexes
// (`segfeed index SHARDS...`). Fills `dataset`, when given, with what the
// index records about the dataset.
Result<ShardCatalog> ReadShardIndex(const std::filesystem::path& index,
                                    ShardCheck check = ShardCheck::kSizes,
                                    ShardIndexDataset* dataset = nullptr);

}  // namespace segfeed::source
