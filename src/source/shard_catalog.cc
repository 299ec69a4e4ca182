#include "source/shard_catalog.h"

#include <utility>

namespace segfeed::source {
namespace {

Error CatalogError(std::string detail) {
  return Error{ErrorKind::kIoError, "shard catalog", std::move(detail)};
}

}  // namespace

Result<uint16_t> ShardCatalog::AddShard(Shard shard) {
  if (shards_.size() >= kMaxShards) {
    return CatalogError("more than " + std::to_string(kMaxShards) +
                        " shards in one dataset: pack into larger shards");
  }
  shards_.push_back(std::move(shard));
  return static_cast<uint16_t>(shards_.size() - 1);
}

uint8_t ShardCatalog::FormNumber(std::string_view extension, TarEntryKind kind) {
  for (size_t i = 0; i < forms_.size(); ++i) {
    if (forms_[i].extension == extension && forms_[i].kind == kind)
      return static_cast<uint8_t>(i + 1);
  }
  if (forms_.size() >= kMaxMemberForms) return 0;
  forms_.push_back(MemberForm{std::string(extension), kind});
  return static_cast<uint8_t>(forms_.size());
}

Status ShardCatalog::AddSample(std::string_view key, uint16_t shard,
                               const std::optional<MemberEntry>& image,
                               const std::optional<MemberEntry>& mask) {
  if (keys_.size() + key.size() >= kMaxKeyArenaBytes)
    return CatalogError("the keys pass 4 GiB of text at key '" + std::string(key) + "'");
  SampleRecord record{};
  record.key_begin = static_cast<uint32_t>(keys_.size());
  record.shard = shard;
  const std::optional<MemberEntry>* members[2] = {&image, &mask};
  for (size_t i = 0; i < 2; ++i) {
    const std::optional<MemberEntry>& member = *members[i];
    if (!member) continue;
    record.form[i] = FormNumber(member->extension, member->kind);
    if (record.form[i] == 0) {
      return CatalogError("more than " + std::to_string(kMaxMemberForms) +
                          " kinds of photo and mask members, at key '" + std::string(key) + "'");
    }
    record.offset[i] = static_cast<uint64_t>(member->offset);
    record.size[i] = static_cast<uint32_t>(member->size);
    record.digest[i] = member->digest;
  }
  keys_.append(key);
  records_.push_back(record);
  return {};
}

void ShardCatalog::RemoveLastSample() {
  keys_.resize(records_.back().key_begin);
  records_.pop_back();
}

void ShardCatalog::ShrinkToFit() {
  records_.shrink_to_fit();
  keys_.shrink_to_fit();
  forms_.shrink_to_fit();
  shards_.shrink_to_fit();
}

std::string_view ShardCatalog::Key(SampleId id) const {
  const size_t begin = records_[id].key_begin;
  const size_t end = id + 1 < records_.size() ? records_[id + 1].key_begin : keys_.size();
  return std::string_view(keys_).substr(begin, end - begin);
}

const ShardCatalog::MemberForm* ShardCatalog::FormOf(SampleId id, Member member) const {
  const uint8_t form = records_[id].form[MemberIndex(member)];
  return form == 0 ? nullptr : &forms_[form - 1];
}

size_t ShardCatalog::held_bytes() const {
  size_t bytes = records_.capacity() * sizeof(SampleRecord) + keys_.capacity() +
                 shards_.capacity() * sizeof(Shard) + forms_.capacity() * sizeof(MemberForm);
  for (const Shard& shard : shards_) bytes += shard.path.native().capacity();
  for (const MemberForm& form : forms_) bytes += form.extension.capacity();
  return bytes;
}

Result<ShardCatalog> ShardCatalog::FromParts(std::vector<Shard> shards,
                                             std::vector<MemberForm> forms,
                                             std::vector<SampleRecord> records, std::string keys) {
  if (shards.size() > kMaxShards || forms.size() > kMaxMemberForms ||
      keys.size() >= kMaxKeyArenaBytes)
    return CatalogError("more shards, member forms or key text than a catalog holds");
  uint64_t previous_key = 0;
  for (size_t id = 0; id < records.size(); ++id) {
    const SampleRecord& record = records[id];
    const std::string at = "sample " + std::to_string(id);
    if (record.key_begin < previous_key || record.key_begin > keys.size())
      return CatalogError(at + ": its key is out of place");
    previous_key = record.key_begin;
    if (record.shard >= shards.size()) return CatalogError(at + ": no such shard");
    for (size_t i = 0; i < 2; ++i) {
      if (record.form[i] > forms.size()) return CatalogError(at + ": no such member form");
      const uint64_t end = record.offset[i] + record.size[i];
      if (end < record.offset[i] || end > static_cast<uint64_t>(shards[record.shard].bytes))
        return CatalogError(at + ": a member ends past its shard's end");
    }
  }
  ShardCatalog catalog;
  catalog.shards_ = std::move(shards);
  catalog.forms_ = std::move(forms);
  catalog.records_ = std::move(records);
  catalog.keys_ = std::move(keys);
  return catalog;
}

}  // namespace segfeed::source
