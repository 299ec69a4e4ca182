#include "source/shard_catalog.h"

#include <algorithm>
#include <cstdint>
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
  if (keys_.arena().size() + 2 * 5 + key.size() >= kMaxKeyArenaBytes)
    return CatalogError("the keys pass 4 GiB of text at key '" + std::string(key) + "'");
  SampleRecord record{};
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
    record.size[i] = static_cast<uint32_t>(member->size);
    record.digest[i] = member->digest;
  }
  record.offset = static_cast<uint64_t>(image ? image->offset : mask ? mask->offset : 0);
  if (image && mask) {
    const int64_t delta = mask->offset - image->offset;
    if (delta < INT32_MIN || delta > INT32_MAX) {
      return Error{ErrorKind::kTooLarge, shards_[shard].path.string() + ":" + std::string(key),
                   "the photo and the mask are " + std::to_string(delta) +
                       " bytes apart in the shard, more than the index holds (2 GiB): keep a "
                       "sample's members next to each other"};
    }
    record.mask_delta = static_cast<int32_t>(delta);
  }
  keys_.Append(key);
  records_.push_back(record);
  return {};
}

void ShardCatalog::RemoveLastSample() {
  keys_.RemoveLast();
  records_.pop_back();
}

void ShardCatalog::ShrinkToFit() {
  records_.shrink_to_fit();
  keys_.ShrinkToFit();
  forms_.shrink_to_fit();
  shards_.shrink_to_fit();
}

void ShardCatalog::SetOriginalKeys(OriginalKeys original_keys) {
  std::sort(original_keys.begin(), original_keys.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  original_keys_ = std::move(original_keys);
}

std::string ShardCatalog::DatasetKey(SampleId id) const {
  const auto original =
      std::lower_bound(original_keys_.begin(), original_keys_.end(), id,
                       [](const auto& entry, SampleId wanted) { return entry.first < wanted; });
  if (original != original_keys_.end() && original->first == id) return original->second;
  return Key(id);
}

std::string ShardCatalog::MemberName(SampleId id, Member member, std::string_view shard) const {
  std::string name(shard);
  name += ':';
  name += Key(id);
  if (const MemberForm* form = FormOf(id, member)) {
    name += '.';
    name += form->extension;
  } else {
    name += member == Member::kImage ? " (no photo)" : " (no mask)";
  }
  return name;
}

std::optional<int64_t> ShardCatalog::MemberSize(SampleId id, Member member) const {
  const MemberForm* form = FormOf(id, member);
  if (form == nullptr || form->kind != TarEntryKind::kRegular) return std::nullopt;
  return records_[id].size[MemberIndex(member)];
}

Result<size_t> ShardCatalog::ReadableSize(SampleId id, Member member, int64_t max_bytes,
                                          std::string_view shard) const {
  const MemberForm* form = FormOf(id, member);
  if (form == nullptr) {
    return Error{ErrorKind::kIoError, MemberName(id, member, shard),
                 std::string("No such file in the shard: the sample has no ") +
                     (member == Member::kImage ? "photo" : "mask") + " member"};
  }
  if (form->kind != TarEntryKind::kRegular) {
    return Error{ErrorKind::kIoError, MemberName(id, member, shard),
                 std::string("not a regular file (") + TarEntryKindName(form->kind) + ")"};
  }
  const size_t size = records_[id].size[MemberIndex(member)];
  if (size == 0)
    return Error{ErrorKind::kEmptyFile, MemberName(id, member, shard), "member is empty (0 bytes)"};
  if (static_cast<int64_t>(size) > max_bytes) {
    return Error{ErrorKind::kTooLarge, MemberName(id, member, shard),
                 "member is " + std::to_string(size) +
                     " bytes, more than max_file_bytes = " + std::to_string(max_bytes)};
  }
  return size;
}

const ShardCatalog::MemberForm* ShardCatalog::FormOf(SampleId id, Member member) const {
  const uint8_t form = records_[id].form[MemberIndex(member)];
  return form == 0 ? nullptr : &forms_[form - 1];
}

size_t ShardCatalog::held_bytes() const {
  size_t bytes = records_.capacity() * sizeof(SampleRecord) + keys_.held_bytes() +
                 shards_.capacity() * sizeof(Shard) + forms_.capacity() * sizeof(MemberForm);
  for (const Shard& shard : shards_) bytes += shard.path.native().capacity();
  for (const MemberForm& form : forms_) bytes += form.extension.capacity();
  return bytes;
}

Result<ShardCatalog> ShardCatalog::FromParts(std::vector<Shard> shards,
                                             std::vector<MemberForm> forms,
                                             std::vector<SampleRecord> records,
                                             FrontCodedKeys keys) {
  if (shards.size() > kMaxShards || forms.size() > kMaxMemberForms ||
      keys.arena().size() >= kMaxKeyArenaBytes)
    return CatalogError("more shards, member forms or key text than a catalog holds");
  if (keys.size() != records.size())
    return CatalogError(std::to_string(keys.size()) + " keys for " +
                        std::to_string(records.size()) + " samples");
  ShardCatalog catalog;
  catalog.shards_ = std::move(shards);
  catalog.forms_ = std::move(forms);
  catalog.records_ = std::move(records);
  catalog.keys_ = std::move(keys);
  for (size_t id = 0; id < catalog.records_.size(); ++id) {
    const SampleRecord& record = catalog.records_[id];
    const std::string at = "sample " + std::to_string(id);
    if (record.shard >= catalog.shards_.size()) return CatalogError(at + ": no such shard");
    for (const Member member : {Member::kImage, Member::kMask}) {
      const size_t i = MemberIndex(member);
      if (record.form[i] > catalog.forms_.size()) return CatalogError(at + ": no such member form");
      const uint64_t begin = catalog.MemberOffset(static_cast<SampleId>(id), member);
      const uint64_t end = begin + record.size[i];
      const auto shard_bytes = static_cast<uint64_t>(catalog.shards_[record.shard].bytes);
      if (record.form[i] != 0 && (end < begin || end > shard_bytes))
        return CatalogError(at + ": a member ends past its shard's end");
    }
  }
  return catalog;
}

}  // namespace segfeed::source
