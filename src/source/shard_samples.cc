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
    Result<uint16_t> shard = listing_.catalog.AddShard({scan.shard, scan.bytes, scan.digest});
    if (!shard.ok()) {
      listing_.errors.push_back(shard.error());
      return;
    }
    const size_t samples_before = listing_.catalog.sample_count();
    const std::vector<TarMember>& members = scan.members;
    // Reading stopped inside the sample of this key: it is lost.
    const std::string_view stopped_key = SplitMemberName(scan.stopped_member).first;
    size_t begin = 0;
    while (begin < members.size()) {
      const std::string_view key = SplitMemberName(members[begin].name).first;
      size_t end = begin + 1;
      while (end < members.size() && SplitMemberName(members[end].name).first == key) ++end;
      const std::string where = scan.shard.string() + ":" + std::string(key);
      const std::span<const TarMember> run = std::span(members).subspan(begin, end - begin);
      // The last run before a damaged header may go on past it: lost too,
      // unless its photo and mask are both here (what could follow is
      // then an extra or a second copy).
      const bool last = end == members.size();
      const bool cut = scan.stopped_member.empty() ? !Whole(run) : stopped_key == key;
      if (scan.stopped && last && cut) {
        Lost(scan, key, scan.stopped_member.empty() ? members.back().name : scan.stopped_member);
      } else {
        AddRun(scan, shard.value(), key, run, where);
      }
      begin = end;
    }
    if (!scan.stopped) return;
    const bool stopped_key_listed = !members.empty() && !scan.stopped_member.empty() &&
                                    SplitMemberName(members.back().name).first == stopped_key;
    if (!scan.stopped_member.empty() && !stopped_key_listed)
      Lost(scan, stopped_key, scan.stopped_member);
    // The shard itself, by the byte offset where reading stopped: that far
    // every sample is known, past it none is.
    const size_t kept = listing_.catalog.sample_count() - samples_before;
    const std::string reason = " (" + scan.stopped->detail + ")";
    std::string detail =
        members.empty() && scan.stopped_member.empty()
            ? "nothing in the shard could be read" + reason + ": its samples are unknown"
            : "reading stopped at byte offset " + std::to_string(scan.stopped_at_offset) +
                  (scan.stopped_member.empty() ? "" : " in member " + scan.stopped_member) +
                  reason + ": the samples after it in this shard are unknown (" +
                  std::to_string(kept) + " whole sample" + (kept == 1 ? "" : "s") +
                  " before it kept)";
    listing_.errors.push_back(Error{scan.stopped->kind, scan.shard.string(), std::move(detail)});
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

  // Whether the run holds a photo and a mask.
  bool Whole(std::span<const TarMember> run) const {
    bool photo = false, mask = false;
    for (const TarMember& member : run) {
      const std::string_view extension = SplitMemberName(member.name).second;
      photo = photo || OneOf(extension, roles_.photo);
      mask = mask || OneOf(extension, roles_.mask);
    }
    return photo && mask;
  }

  // The sample of `key` could not be read whole: named by `member`, the
  // member of it where reading stopped (or its last one read), and why.
  void Lost(const TarScan& scan, std::string_view key, const std::string& member) {
    const std::string why =
        scan.stopped_member.empty()
            ? "its members may go on past where reading stopped (" + scan.stopped->detail + ")"
            : scan.stopped->detail;
    listing_.errors.push_back(Error{ErrorKind::kIoError, scan.shard.string() + ":" + member,
                                    "sample '" + std::string(key) + "' lost: " + why});
  }

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
