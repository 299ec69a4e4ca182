#pragma once

// The samples of a set of tar shards and where each member's bytes are: what
// ShardsSource serves and what the shard index (source/shard_index.h)
// stores. Held flat so that a million samples cost tens of megabytes, not a
// string and a map each: one fixed-size record per sample (40 bytes), the
// keys front-coded (source/front_coded_keys.h: a few bytes a key), plus
// small tables of shards and member forms.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "result.h"
#include "source/front_coded_keys.h"
#include "source/sample_source.h"
#include "source/tar_scan.h"

namespace segfeed::source {

// A sample's members, as a record stores them: where their bytes are, how
// many, their digest (digest.h's Digest) and which form each takes
// (forms()[form - 1]; 0: the sample has no such member). The members of a
// sample are consecutive in its tar, so the mask's offset is stored as its
// distance from the photo's (ShardCatalog::MemberOffset()).
struct SampleRecord {
  // The photo's offset (the mask's when the sample has no photo).
  uint64_t offset;
  uint64_t digest[2];  // indexed by Member: kImage, kMask
  uint32_t size[2];
  // The mask's offset minus `offset` (0 without a photo or a mask).
  int32_t mask_delta;
  uint16_t shard;
  uint8_t form[2];
};
static_assert(sizeof(SampleRecord) == 40, "the index stores records as they are");

// The limits the record's fields set.
inline constexpr size_t kMaxShards = 65535;
inline constexpr size_t kMaxMemberForms = 255;
inline constexpr uint64_t kMaxKeyArenaBytes = uint64_t{1} << 32;

class ShardCatalog {
 public:
  struct Shard {
    std::filesystem::path path;
    int64_t bytes = 0;
    uint64_t digest = 0;  // digest.h's Digest of all its bytes
  };
  // How a member is stored: the extension after its key ("jpg",
  // "mask.png") and the kind of tar entry (a member that is a folder or
  // link entry keeps its place in the sample and fails when read).
  struct MemberForm {
    std::string extension;
    TarEntryKind kind = TarEntryKind::kRegular;
  };
  // One member of a sample being added.
  struct MemberEntry {
    std::string_view extension;
    TarEntryKind kind = TarEntryKind::kRegular;
    int64_t offset = 0;
    int64_t size = 0;
    uint64_t digest = 0;
  };

  // The dataset's own keys of the samples whose member key differs
  // (`segfeed pack` percent-encodes a dot: "a.b" is written "a%2Eb.jpg";
  // the index records them, ShardIndexDataset::original_keys), any order.
  using OriginalKeys = std::vector<std::pair<SampleId, std::string>>;

  // Building: shards first, then their samples in order. Errors when a
  // limit above is passed.
  Result<uint16_t> AddShard(Shard shard);
  Status AddSample(std::string_view key, uint16_t shard, const std::optional<MemberEntry>& image,
                   const std::optional<MemberEntry>& mask);
  // Takes back the sample added last (a key found twice).
  void RemoveLastSample();
  // Gives back what the vectors reserved beyond their size.
  void ShrinkToFit();
  // Replaces the original keys (sorted here).
  void SetOriginalKeys(OriginalKeys original_keys);

  size_t sample_count() const { return records_.size(); }
  // The member key: what the tar names the members after.
  std::string Key(SampleId id) const { return keys_.Key(id); }
  // The dataset's key: the original one where the index records it, else
  // the members' ("train/aachen/aachen_000000_000019", "a.b").
  std::string DatasetKey(SampleId id) const;
  // Where the member's bytes start in its shard.
  uint64_t MemberOffset(SampleId id, Member member) const {
    const SampleRecord& record = records_[id];
    const auto delta = static_cast<uint64_t>(static_cast<int64_t>(record.mask_delta));
    return member == Member::kImage ? record.offset : record.offset + delta;
  }
  const Shard& ShardOf(SampleId id) const { return shards_[records_[id].shard]; }
  // The member's form, nullptr when the sample has none.
  const MemberForm* FormOf(SampleId id, Member member) const;
  const SampleRecord& record(SampleId id) const { return records_[id]; }

  // What every source of these shards says of a member, whatever fetches
  // its bytes (a file, a range request); `shard` is how the source names
  // the member's shard (its path, its URL).
  //
  // "<shard>:<member key>.<extension>" as the tar names the member
  // ("shards/data-000003.tar:train/k.jpg", "...:a%2Eb.jpg"); for a member
  // the sample lacks, "<shard>:<member key> (no photo)" or "(no mask)".
  std::string MemberName(SampleId id, Member member, std::string_view shard) const;
  // nullopt for a member the sample lacks or one that is not a regular
  // file entry.
  std::optional<int64_t> MemberSize(SampleId id, Member member) const;
  // The member's size when it can be read into a buffer of `max_bytes`;
  // else the error Read() gives, named by MemberName(): io_error for a
  // member the sample lacks ("No such file in the shard") or one that is a
  // folder or link entry ("not a regular file"), empty_file for 0 bytes,
  // too_large beyond `max_bytes` (before any byte is fetched).
  Result<size_t> ReadableSize(SampleId id, Member member, int64_t max_bytes,
                              std::string_view shard) const;

  const std::vector<Shard>& shards() const { return shards_; }
  const std::vector<MemberForm>& forms() const { return forms_; }
  const std::vector<SampleRecord>& records() const { return records_; }
  const FrontCodedKeys& keys() const { return keys_; }

  // Bytes held by the vectors (capacities, the key text included), for the
  // memory plan and the bytes-per-sample test.
  size_t held_bytes() const;

  // For the index reader: a catalog from its parts, checked for
  // consistency (one key per record, shard and form numbers in range,
  // members inside their shard); the error says what is wrong.
  static Result<ShardCatalog> FromParts(std::vector<Shard> shards, std::vector<MemberForm> forms,
                                        std::vector<SampleRecord> records, FrontCodedKeys keys);

 private:
  uint8_t FormNumber(std::string_view extension, TarEntryKind kind);

  std::vector<Shard> shards_;
  std::vector<MemberForm> forms_;
  std::vector<SampleRecord> records_;
  FrontCodedKeys keys_;
  // Sorted by sample.
  OriginalKeys original_keys_;
};

inline size_t MemberIndex(Member member) { return member == Member::kImage ? 0 : 1; }

}  // namespace segfeed::source
