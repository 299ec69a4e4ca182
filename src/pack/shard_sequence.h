#pragma once

// The shards of one `segfeed pack` run, written one after another:
// `<folder>/<name>-000000.tar`, `-000001.tar`, ... Each is written to a
// temporary name in the folder (`.<name>-000000.tar.partial`) and renamed
// only once whole and fsync'ed, so a failure never leaves a half shard
// under a final name. A finished shard is scanned back (source::ScanTar):
// what it holds must be exactly what was written, its DALI index
// (`<name>-000000.idx`) is made from that scan (none when a member name
// holds whitespace, the format's separator), and its samples join the
// catalog the shard index is written from.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pack/tar_shard_writer.h"
#include "result.h"
#include "source/shard_catalog.h"

namespace segfeed::pack {

// One sample's members as they go into a shard.
struct PackedSample {
  std::string member_key;
  std::string photo_extension;  // "jpg", "png"
  std::string mask_extension;   // "mask.png", "mask.gif"
  std::span<const uint8_t> photo;
  std::span<const uint8_t> mask;
  std::string json;
  // Re-encoded photos only: the squared error and samples of its decode
  // against the original (photo_reencode.h).
  double photo_squared_error = 0;
  int64_t photo_error_samples = 0;
};

// Where one shard ends: whichever limit is set (samples_per_shard > 0 wins).
struct ShardLimits {
  int64_t shard_bytes = int64_t{256} << 20;
  int64_t samples_per_shard = 0;
};

// A shard once renamed to its final name.
struct PackedShard {
  std::filesystem::path path;
  int64_t samples = 0;
  int64_t bytes = 0;
  // Over its re-encoded photos (reencoded_photos of them).
  int64_t reencoded_photos = 0;
  double photo_squared_error = 0;
  int64_t photo_error_samples = 0;
  // Why the shard has no DALI index (a member name with whitespace).
  std::optional<Error> no_dali_index;
};

// The name of shard `number`: "<name>-000042.tar".
std::string ShardFileName(const std::string& name, int64_t number);

class ShardSequence {
 public:
  ShardSequence(std::filesystem::path folder, std::string name, ShardLimits limits);
  ShardSequence(const ShardSequence&) = delete;
  ShardSequence& operator=(const ShardSequence&) = delete;
  // Removes the temporary file of a shard that was not finished.
  ~ShardSequence();

  // Appends a sample, closing the current shard first when the sample
  // would take it past its limit (a shard holds at least one sample).
  Status Add(const PackedSample& sample);
  // Finishes the last shard.
  Status Finish();

  const std::vector<PackedShard>& shards() const { return shards_; }
  const source::ShardCatalog& catalog() const { return catalog_; }
  // Called after each shard is renamed to its final name.
  std::function<void(const PackedShard&)> on_shard;

 private:
  Status StartShard();
  Status FinishShard();
  Status AddToCatalog(const source::ShardCatalog& shard_catalog);

  std::filesystem::path folder_;
  std::string name_;
  ShardLimits limits_;
  std::optional<TarShardWriter> writer_;
  std::filesystem::path partial_;  // the open shard's temporary name
  PackedShard current_;
  int64_t current_estimate_ = 0;  // TarMemberBytes() of what the open shard holds
  std::vector<PackedShard> shards_;
  source::ShardCatalog catalog_;
};

}  // namespace segfeed::pack
