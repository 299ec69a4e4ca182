#pragma once

// The samples of a set of tar shards and where each member's bytes are: what
// ShardsSource serves and what the shard index (source/shard_index.h)
// stores. Held flat so that a million samples cost tens of megabytes, not a
// string and a map each: one fixed-size record per sample (48 bytes) and one
// arena of key text, plus small tables of shards and member forms.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"
#include "source/sample_source.h"
#include "source/tar_scan.h"

namespace segfeed::source {

// A sample's member, as a record stores it: where its bytes are, how many,
// their digest (digest.h's Digest) and which form it takes (forms()[form - 1];
// 0: the sample has no such member).
struct SampleRecord {
  uint64_t offset[2];  // indexed by Member: kImage, kMask
  uint64_t digest[2];
  uint32_t size[2];
  // Where the key starts in the arena; it ends where the next sample's
  // starts (or at the arena's end).
  uint32_t key_begin;
  uint16_t shard;
  uint8_t form[2];
};
static_assert(sizeof(SampleRecord) == 48, "the index stores records as they are");

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

  // Building: shards first, then their samples in order. Errors when a
  // limit above is passed.
  Result<uint16_t> AddShard(Shard shard);
  Status AddSample(std::string_view key, uint16_t shard, const std::optional<MemberEntry>& image,
                   const std::optional<MemberEntry>& mask);
  // Takes back the sample added last (a key found twice).
  void RemoveLastSample();
  // Gives back what the vectors reserved beyond their size.
  void ShrinkToFit();

  size_t sample_count() const { return records_.size(); }
  std::string_view Key(SampleId id) const;
  const Shard& ShardOf(SampleId id) const { return shards_[records_[id].shard]; }
  // The member's form, nullptr when the sample has none.
  const MemberForm* FormOf(SampleId id, Member member) const;
  const SampleRecord& record(SampleId id) const { return records_[id]; }

  const std::vector<Shard>& shards() const { return shards_; }
  const std::vector<MemberForm>& forms() const { return forms_; }
  const std::vector<SampleRecord>& records() const { return records_; }
  const std::string& key_arena() const { return keys_; }

  // Bytes held by the vectors (capacities, the key text included), for the
  // memory plan and the bytes-per-sample test.
  size_t held_bytes() const;

  // For the index reader: a catalog from its parts, checked for
  // consistency (keys in order inside the arena, shard and form numbers in
  // range, members inside their shard); the error says what is wrong.
  static Result<ShardCatalog> FromParts(std::vector<Shard> shards, std::vector<MemberForm> forms,
                                        std::vector<SampleRecord> records, std::string keys);

 private:
  uint8_t FormNumber(std::string_view extension, TarEntryKind kind);

  std::vector<Shard> shards_;
  std::vector<MemberForm> forms_;
  std::vector<SampleRecord> records_;
  std::string keys_;
};

inline size_t MemberIndex(Member member) { return member == Member::kImage ? 0 : 1; }

}  // namespace segfeed::source
