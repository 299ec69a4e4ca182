#pragma once

// From the members of tar shards to samples, by WebDataset's convention: a
// member's key is its path up to the first dot of its last path component
// and its extension the rest ("train/aachen_000019.jpg": key
// "train/aachen_000019", extension "jpg"; "k.mask.png": "k", "mask.png"),
// and a sample is a run of consecutive members with the same key, in any
// order within the run. Which extension is the photo and which the mask is
// MemberRoles' rule.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "result.h"
#include "source/shard_catalog.h"
#include "source/tar_scan.h"

namespace segfeed::source {

// The extensions (compared without regard to ASCII case) that make a member
// a sample's photo or its mask. The defaults: the photo formats segfeed
// decodes, and the mask names segfeed pack writes ("mask.png",
// "mask.gif") with WebDataset's usual segmentation names ("seg.png",
// "seg.gif"). Every other member (".json", ".cls", ".txt", ...) is an
// extra: ignored and counted.
struct MemberRoles {
  std::vector<std::string> photo = {"jpg", "jpeg", "png", "gif"};
  std::vector<std::string> mask = {"mask.png", "mask.gif", "seg.png", "seg.gif"};
};

// Key and extension of a member name (the extension is empty when its last
// path component has no dot).
std::pair<std::string_view, std::string_view> SplitMemberName(std::string_view name);

// The samples of some shards, and what did not make a sample.
struct ShardListing {
  ShardCatalog catalog;
  // The dataset is not whole, each naming "<shard>:<member>" (or the
  // shard) and why: the sample a shard was being read in when reading
  // stopped ("sample 'k' lost: ..."; left out, since its other members may
  // lie past that point), then the shard's own error (its scan's, which
  // says where reading stopped: the samples after that byte offset are
  // unknown; a shard that cannot be opened lists none), a key found in two
  // places (both named; the second is left out), a limit of the catalog
  // passed. The samples read whole before the damage are in the catalog.
  std::vector<Error> errors;
  // Entries the scans left out or warned about, samples with a photo and no
  // mask (kMissingMask) or a mask and no photo (kMissingImage): kept, their
  // missing member fails when read; runs with neither (left out), a second
  // photo or mask in one sample (the first is kept). Each names
  // "<shard>:<member or key>".
  std::vector<Error> problems;
  // Members that are neither photo nor mask.
  int64_t extra_members = 0;
};

// Groups the scans' members into samples, shards in the order given.
ShardListing ListShardSamples(const std::vector<TarScan>& scans, const MemberRoles& roles = {});

// Scans each shard (ScanTar) and lists its samples.
ShardListing ScanShards(const std::vector<std::filesystem::path>& shards,
                        const MemberRoles& roles = {});

}  // namespace segfeed::source
