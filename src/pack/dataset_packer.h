#pragma once

// The engine of `segfeed pack`: a dataset segfeed lists (any preset, rule
// or list file) written as tar shards in WebDataset's layout, with the
// shard index (source/shard_index.h) and DALI's per-shard index beside
// them. Every pair is first checked by the checker's per-file rules at
// 1/8 scale (check/file_checker.h, as `segfeed check`); a bad pair is left
// out and listed, or stops the run. The output is deterministic: the same
// dataset and options give the same bytes, for any thread count.
// docs/shards.md describes what is written.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pack/shard_sequence.h"
#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed::pack {

// What a bad pair (one the checker finds a problem in, or a listing
// problem: an image without its mask, a key with two images) does.
enum class OnBadPair {
  kSkip,  // left out, listed in the report
  kFail,  // stops the run, naming it; no index is written
};

// How photos are stored.
enum class PhotoCodec {
  kKeep,  // the original bytes, unchanged (the default)
  kJpeg,  // PNG photos re-encoded as JPEG (lossy, opt-in); JPEG photos kept
};

struct PackOptions {
  // The folder the shards, their DALI indexes and the index go to.
  std::filesystem::path output;
  // Shards are <output>/<name>-000000.tar, ...
  std::string name = "train";
  ShardLimits limits;
  // Threads checking pairs (reading and decoding them); 0: one per core.
  // The shards are written by the calling thread in listing order.
  int threads = 0;
  OnBadPair on_bad_pair = OnBadPair::kSkip;
  PhotoCodec photo_codec = PhotoCodec::kKeep;
  // JPEG quality of a re-encoded photo, 1-100.
  int photo_quality = 95;
  // How masks are read (the checker's rules) and what the index records
  // of the dataset's labels (its mask options: mask_mode, num_classes,
  // mask_ignore_value, ignore_index, label_map, ...).
  DecodeOptions decode;
  // Called after each pair (packed or left out) with (pairs done, pairs
  // listed, bytes of the shards finished so far), and after each shard is
  // in place; either may be empty.
  std::function<void(int64_t, int64_t, int64_t)> progress;
  std::function<void(const PackedShard&)> on_shard;
};

struct PackReport {
  // Complete pairs the dataset lists, and those written.
  int64_t pairs_listed = 0;
  int64_t pairs_packed = 0;
  // Bad pairs left out (under kSkip) and the listing's problems, each
  // naming its file and the reason, in listing order.
  std::vector<Error> left_out;
  // Why the run stopped (under kFail, the bad pair; a listing or writing
  // error under either): the shards finished before stay, no index is
  // written.
  std::optional<Error> failure;
  std::vector<PackedShard> shards;
  int64_t shard_bytes = 0;
  // The index written, empty when the run failed.
  std::filesystem::path index;
};

// Shards of `name` (and their DALI indexes) or a shard index already in
// `folder`, by path: what a run would replace.
std::vector<std::filesystem::path> ExistingShardFiles(const std::filesystem::path& folder,
                                                      const std::string& name);

// The option-table entries of `decode`'s mask options (mask_mode,
// num_classes, mask_ignore_value, ignore_index, label_map, mask_colors,
// mask_foreground, mask_threshold), defaults included, and the class
// names when there are some (the preset's table, class_names, a colour
// file's) whose text reads back as the same names, as (name, text): what
// the index records, so a Loader over the shards has the folders'
// class_names().
std::vector<std::pair<std::string, std::string>> LabelOptionsOf(const DecodeOptions& decode);

// Packs the dataset. Creates `options.output` if needed; after a
// successful run removes the shards of `name` from an earlier run that this
// one did not write (numbers past its last). Throws ConfigError for
// invalid options; every problem with the data is in the report.
PackReport PackDataset(const DatasetSpec& spec, const PackOptions& options);

}  // namespace segfeed::pack
