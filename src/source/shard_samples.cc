#include "source/shard_samples.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_set>

namespace segfeed::source {
namespace {

bool SameIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    return lower(x) == lower(y);
  });
}

bool OneOf(std::string_view extension, const std::vector<std::string>& extensions) {
  return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& candidate) {
    return SameIgnoringCase(extension, candidate);
  });
}

// Builds the listing shard by shard, run by run.
class SampleGrouping {
 public:
  SampleGrouping(const MemberRoles& roles, ShardListing* listing)
      : roles_(roles), listing_(*listing), seen_(1024, KeyHash{listing}, KeyEqual{listing}) {}

  void AddShard(const TarScan& scan) {
    listing_.problems.insert(listing_.problems.end(), scan.problems.begin(), scan.problems.end());
    if (scan.stopped) listing_.errors.push_back(*scan.stopped);
    Result<uint16_t> shard = listing_.catalog.AddShard({scan.shard, scan.bytes, scan.digest});
    if (!shard.ok()) {
      listing_.errors.push_back(shard.error());
      return;
    }
    const std::vector<TarMember>& members = scan.members;
    size_t begin = 0;
    while (begin < members.size()) {
      const std::string_view key = SplitMemberName(members[begin].name).first;
      size_t end = begin + 1;
      while (end < members.size() && SplitMemberName(members[end].name).first == key) ++end;
      const std::string where = scan.shard.string() + ":" + std::string(key);
      if (scan.stopped && end == members.size()) {
        // Reading stopped after this run: its other members may lie beyond.
        listing_.errors.push_back(
            Error{ErrorKind::kIoError, where, "sample left out: the shard cannot be read past it"});
      } else {
        AddRun(scan, shard.value(), key, std::span(members).subspan(begin, end - begin), where);
      }
      begin = end;
    }
  }

 private:
  // Looks keys up in the catalog itself, so the set holds ids only.
  struct KeyHash {
    const ShardListing* listing;
    size_t operator()(SampleId id) const {
      return std::hash<std::string_view>()(listing->catalog.Key(id));
    }
  };
  struct KeyEqual {
    const ShardListing* listing;
    bool operator()(SampleId a, SampleId b) const {
      return listing->catalog.Key(a) == listing->catalog.Key(b);
    }
  };

  void AddRun(const TarScan& scan, uint16_t shard, std::string_view key,
              std::span<const TarMember> run, const std::string& where) {
    std::optional<ShardCatalog::MemberEntry> photo, mask;
    for (const TarMember& member : run) {
      const std::string_view extension = SplitMemberName(member.name).second;
      const bool is_photo = OneOf(extension, roles_.photo);
      if (!is_photo && !OneOf(extension, roles_.mask)) {
        ++listing_.extra_members;
        continue;
      }
      std::optional<ShardCatalog::MemberEntry>& slot = is_photo ? photo : mask;
      if (slot) {
        listing_.problems.push_back(
            Error{ErrorKind::kDuplicateKey, scan.shard.string() + ":" + member.name,
                  std::string("a second ") + (is_photo ? "photo" : "mask") + " in sample '" +
                      std::string(key) + "': left out, the first (." +
                      std::string(slot->extension) + ") is used"});
        continue;
      }
      slot = ShardCatalog::MemberEntry{extension, member.kind, member.data_offset, member.size,
                                       member.digest};
    }
    if (!photo && !mask) {
      listing_.problems.push_back(
          Error{ErrorKind::kMissingImage, where, "neither a photo nor a mask member: left out"});
      return;
    }
    if (Status added = listing_.catalog.AddSample(key, shard, photo, mask); !added.ok()) {
      listing_.errors.push_back(added.error());
      return;
    }
    const auto id = static_cast<SampleId>(listing_.catalog.sample_count() - 1);
    if (auto [first, inserted] = seen_.insert(id); !inserted) {
      listing_.errors.push_back(
          Error{ErrorKind::kDuplicateKey, where,
                "key '" + std::string(key) + "' already names sample " + std::to_string(*first) +
                    " in " + listing_.catalog.ShardOf(*first).path.string() + ": left out here"});
      listing_.catalog.RemoveLastSample();
      return;
    }
    if (!mask) {
      listing_.problems.push_back(
          Error{ErrorKind::kMissingMask, where, "unpaired: a photo and no mask member"});
    } else if (!photo) {
      listing_.problems.push_back(
          Error{ErrorKind::kMissingImage, where, "unpaired: a mask and no photo member"});
    }
  }

  const MemberRoles& roles_;
  ShardListing& listing_;
  std::unordered_set<SampleId, KeyHash, KeyEqual> seen_;
};

}  // namespace

std::pair<std::string_view, std::string_view> SplitMemberName(std::string_view name) {
  const size_t slash = name.rfind('/');
  const size_t dot = name.find('.', slash == std::string_view::npos ? 0 : slash + 1);
  if (dot == std::string_view::npos) return {name, {}};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

ShardListing ListShardSamples(const std::vector<TarScan>& scans, const MemberRoles& roles) {
  ShardListing listing;
  {
    SampleGrouping grouping(roles, &listing);
    for (const TarScan& scan : scans) grouping.AddShard(scan);
  }
  listing.catalog.ShrinkToFit();
  return listing;
}

ShardListing ScanShards(const std::vector<std::filesystem::path>& shards,
                        const MemberRoles& roles) {
  ShardListing listing;
  {
    // One scan at a time: a shard's member names are dropped once its
    // samples are in the catalog.
    SampleGrouping grouping(roles, &listing);
    for (const std::filesystem::path& shard : shards) grouping.AddShard(ScanTar(shard));
  }
  listing.catalog.ShrinkToFit();
  return listing;
}

}  // namespace segfeed::source
