#include "source/shard_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "digest.h"
#include "source/file_descriptor.h"
#include "source/file_system.h"
#include "source/files_source.h"
#include "source/read_buffer.h"

namespace segfeed::source {
namespace {

// The records are written as they lie in memory.
static_assert(std::endian::native == std::endian::little, "the index is little-endian");

constexpr char kMagic[8] = {'S', 'F', 'S', 'H', 'A', 'R', 'D', 'S'};
constexpr const char* kReindex = "re-index with `segfeed index SHARDS...`";

template <typename T>
void Put(std::string* out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  out->append(reinterpret_cast<const char*>(&value), sizeof value);
}

void PutText(std::string* out, const std::string& text) {
  Put(out, static_cast<uint32_t>(text.size()));
  out->append(text);
}

// Reads fields off the index's bytes; the first overrun makes it fail.
class Fields {
 public:
  explicit Fields(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  template <typename T>
  T Get() {
    T value{};
    if (Take(sizeof value)) std::memcpy(&value, bytes_.data() + at_ - sizeof value, sizeof value);
    return value;
  }
  std::string GetText() {
    const auto size = Get<uint32_t>();
    return Take(size) ? std::string(reinterpret_cast<const char*>(bytes_.data() + at_ - size), size)
                      : std::string();
  }
  const uint8_t* Skip(uint64_t bytes) {
    return Take(bytes) ? bytes_.data() + at_ - bytes : nullptr;
  }
  bool ok() const { return ok_; }
  size_t at() const { return at_; }
  // Bytes not read yet.
  uint64_t left() const { return ok_ ? bytes_.size() - at_ : 0; }

 private:
  bool Take(uint64_t bytes) {
    if (!ok_ || bytes > bytes_.size() - at_) return ok_ = false;
    at_ += bytes;
    return true;
  }

  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
  bool ok_ = true;
};

std::string Encode(const ShardCatalog& catalog, const ShardIndexDataset& dataset,
                   const std::filesystem::path& folder) {
  std::string out(kMagic, sizeof kMagic);
  Put(&out, kShardIndexVersion);
  Put(&out, static_cast<uint32_t>(sizeof(SampleRecord)));
  Put(&out, static_cast<uint32_t>(catalog.shards().size()));
  Put(&out, static_cast<uint32_t>(catalog.forms().size()));
  Put(&out, static_cast<uint64_t>(catalog.sample_count()));
  Put(&out, static_cast<uint64_t>(catalog.keys().arena().size()));
  for (const ShardCatalog::Shard& shard : catalog.shards()) {
    const std::filesystem::path relative =
        std::filesystem::absolute(shard.path)
            .lexically_normal()
            .lexically_relative(std::filesystem::absolute(folder).lexically_normal());
    PutText(&out, relative.generic_string());
    Put(&out, shard.bytes);
    Put(&out, shard.digest);
  }
  for (const ShardCatalog::MemberForm& form : catalog.forms()) {
    PutText(&out, form.extension);
    Put(&out, static_cast<uint8_t>(form.kind));
  }
  out.append(catalog.keys().arena());
  for (const uint32_t start : catalog.keys().block_starts()) Put(&out, start);
  out.append(reinterpret_cast<const char*>(catalog.records().data()),
             catalog.records().size() * sizeof(SampleRecord));
  Put(&out, static_cast<uint32_t>(dataset.options.size()));
  for (const auto& [name, value] : dataset.options) {
    PutText(&out, name);
    PutText(&out, value);
  }
  Put(&out, static_cast<uint64_t>(dataset.original_keys.size()));
  for (const auto& [sample, key] : dataset.original_keys) {
    Put(&out, static_cast<uint64_t>(sample));
    PutText(&out, key);
  }
  Digest digest;
  digest.Update(out.data(), out.size());
  Put(&out, digest.Value());
  return out;
}

Error IndexError(const std::filesystem::path& index, const std::string& detail) {
  return Error{ErrorKind::kIoError, index.string(), detail};
}

// The fewest bytes an entry of each table takes in the file (its strings
// empty): what bounds a count read from the file before anything is
// allocated from it.
constexpr uint64_t kLeastShardBytes = sizeof(uint32_t) + sizeof(int64_t) + sizeof(uint64_t);
constexpr uint64_t kLeastFormBytes = sizeof(uint32_t) + sizeof(uint8_t);
constexpr uint64_t kLeastOptionBytes = 2 * sizeof(uint32_t);
constexpr uint64_t kLeastOriginalKeyBytes = sizeof(uint64_t) + sizeof(uint32_t);
constexpr uint64_t kDatasetSectionBytes = sizeof(uint32_t) + sizeof(uint64_t);

// Version 2's dataset section, after the records.
bool DecodeDataset(Fields& fields, uint64_t sample_count, ShardIndexDataset* dataset) {
  const auto option_count = fields.Get<uint32_t>();
  if (option_count > fields.left() / kLeastOptionBytes) return false;
  for (uint32_t i = 0; i < option_count && fields.ok(); ++i) {
    std::string name = fields.GetText();
    std::string value = fields.GetText();
    dataset->options.emplace_back(std::move(name), std::move(value));
  }
  const auto key_count = fields.Get<uint64_t>();
  if (key_count > sample_count || key_count > fields.left() / kLeastOriginalKeyBytes) return false;
  for (uint64_t i = 0; i < key_count && fields.ok(); ++i) {
    const auto sample = fields.Get<uint64_t>();
    if (sample >= sample_count) return false;
    dataset->original_keys.emplace_back(static_cast<SampleId>(sample), fields.GetText());
  }
  return fields.ok();
}

// Versions 1 and 2 stored each member's offset, and where the key starts in
// a plain arena of key text (it ends where the next one starts).
struct RecordBeforeVersion3 {
  uint64_t offset[2];
  uint64_t digest[2];
  uint32_t size[2];
  uint32_t key_begin;
  uint16_t shard;
  uint8_t form[2];
};
static_assert(sizeof(RecordBeforeVersion3) == 48);

// Where the records and keys lie in the file.
struct CatalogBytes {
  const uint8_t* keys = nullptr;
  uint64_t key_bytes = 0;
  const uint8_t* block_starts = nullptr;  // version 3
  const uint8_t* records = nullptr;
  uint64_t sample_count = 0;
};

// A version 1 or 2 index's records and keys in today's form.
Result<ShardCatalog> CatalogBeforeVersion3(std::vector<ShardCatalog::Shard> shards,
                                           std::vector<ShardCatalog::MemberForm> forms,
                                           const CatalogBytes& bytes) {
  const std::string_view arena(reinterpret_cast<const char*>(bytes.keys), bytes.key_bytes);
  std::vector<SampleRecord> records(bytes.sample_count);
  FrontCodedKeys keys;
  RecordBeforeVersion3 old{}, next{};
  for (uint64_t id = 0; id < bytes.sample_count; ++id) {
    std::memcpy(&old, bytes.records + id * sizeof old, sizeof old);
    uint64_t key_end = arena.size();
    if (id + 1 < bytes.sample_count) {
      std::memcpy(&next, bytes.records + (id + 1) * sizeof next, sizeof next);
      key_end = next.key_begin;
    }
    const std::string at = "sample " + std::to_string(id);
    if (old.key_begin > key_end || key_end > arena.size())
      return Error{ErrorKind::kIoError, "", at + ": its key is out of place"};
    SampleRecord& record = records[id];
    record.offset = old.form[0] != 0 ? old.offset[0] : old.offset[1];
    if (old.form[0] != 0 && old.form[1] != 0) {
      const auto delta = static_cast<int64_t>(old.offset[1] - old.offset[0]);
      if (delta < INT32_MIN || delta > INT32_MAX)
        return Error{ErrorKind::kIoError, "", at + ": its photo and mask are over 2 GiB apart"};
      record.mask_delta = static_cast<int32_t>(delta);
    }
    for (size_t i = 0; i < 2; ++i) {
      record.digest[i] = old.digest[i];
      record.size[i] = old.size[i];
      record.form[i] = old.form[i];
    }
    record.shard = old.shard;
    keys.Append(arena.substr(old.key_begin, key_end - old.key_begin));
  }
  return ShardCatalog::FromParts(std::move(shards), std::move(forms), std::move(records),
                                 std::move(keys));
}

Result<ShardCatalog> CatalogOfVersion3(std::vector<ShardCatalog::Shard> shards,
                                       std::vector<ShardCatalog::MemberForm> forms,
                                       const CatalogBytes& bytes) {
  std::vector<uint32_t> block_starts((bytes.sample_count + FrontCodedKeys::kKeysPerBlock - 1) /
                                     FrontCodedKeys::kKeysPerBlock);
  if (!block_starts.empty())
    std::memcpy(block_starts.data(), bytes.block_starts, block_starts.size() * sizeof(uint32_t));
  Result<FrontCodedKeys> keys = FrontCodedKeys::FromParts(
      bytes.sample_count, std::move(block_starts),
      std::string(reinterpret_cast<const char*>(bytes.keys), bytes.key_bytes));
  if (!keys.ok()) return keys.error();
  std::vector<SampleRecord> records(bytes.sample_count);
  if (!records.empty())
    std::memcpy(records.data(), bytes.records, records.size() * sizeof(SampleRecord));
  return ShardCatalog::FromParts(std::move(shards), std::move(forms), std::move(records),
                                 std::move(keys).value());
}

Result<ShardCatalog> Decode(std::span<const uint8_t> bytes, const std::filesystem::path& index,
                            ShardIndexDataset* dataset) {
  if (bytes.size() < sizeof kMagic + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return IndexError(index, "not a segfeed shard index (no SFSHARDS magic)");
  Digest digest;
  digest.Update(bytes.data(), bytes.size() - sizeof(uint64_t));
  uint64_t trailer = 0;
  std::memcpy(&trailer, bytes.data() + bytes.size() - sizeof trailer, sizeof trailer);
  Fields fields(bytes.first(bytes.size() - sizeof trailer));
  fields.Skip(sizeof kMagic);
  const auto version = fields.Get<uint32_t>();
  if (version < 1 || version > kShardIndexVersion) {
    return IndexError(index, "index version " + std::to_string(version) +
                                 ", this segfeed reads 1 to " + std::to_string(kShardIndexVersion) +
                                 ": " + kReindex);
  }
  if (trailer != digest.Value())
    return IndexError(index,
                      std::string("the index is damaged (its digest does not match): ") + kReindex);
  const auto record_bytes = fields.Get<uint32_t>();
  const auto shard_count = fields.Get<uint32_t>();
  const auto form_count = fields.Get<uint32_t>();
  const auto sample_count = fields.Get<uint64_t>();
  const auto key_bytes = fields.Get<uint64_t>();
  const uint64_t expected_record_bytes =
      version >= 3 ? sizeof(SampleRecord) : sizeof(RecordBeforeVersion3);
  const uint64_t block_count = version >= 3 ? (sample_count + FrontCodedKeys::kKeysPerBlock - 1) /
                                                  FrontCodedKeys::kKeysPerBlock
                                            : 0;
  if (record_bytes != expected_record_bytes || shard_count > kMaxShards ||
      form_count > kMaxMemberForms || key_bytes >= kMaxKeyArenaBytes ||
      sample_count > std::numeric_limits<SampleId>::max())
    return IndexError(index, "the index's header is out of range");
  // What the counts claim must fit in the file before a table is made
  // from them (a damaged or hostile index could claim billions).
  const uint64_t least_bytes = shard_count * kLeastShardBytes + form_count * kLeastFormBytes +
                               key_bytes + block_count * sizeof(uint32_t) +
                               sample_count * expected_record_bytes +
                               (version >= 2 ? kDatasetSectionBytes : 0);
  if (least_bytes > fields.left()) {
    return IndexError(index, "the index's header claims " + std::to_string(sample_count) +
                                 " samples, " + std::to_string(shard_count) + " shards and " +
                                 std::to_string(key_bytes) + " bytes of keys, more than its " +
                                 std::to_string(bytes.size()) + " bytes can hold: " + kReindex);
  }
  std::vector<ShardCatalog::Shard> shards(shard_count);
  for (ShardCatalog::Shard& shard : shards) {
    shard.path = index.parent_path() / fields.GetText();
    shard.bytes = fields.Get<int64_t>();
    shard.digest = fields.Get<uint64_t>();
  }
  std::vector<ShardCatalog::MemberForm> forms(form_count);
  for (ShardCatalog::MemberForm& form : forms) {
    form.extension = fields.GetText();
    const auto kind = fields.Get<uint8_t>();
    if (kind > static_cast<uint8_t>(TarEntryKind::kOtherType))
      return IndexError(index, "a member form of unknown kind");
    form.kind = static_cast<TarEntryKind>(kind);
  }
  CatalogBytes parts;
  parts.keys = fields.Skip(key_bytes);
  parts.key_bytes = key_bytes;
  parts.block_starts = fields.Skip(block_count * sizeof(uint32_t));
  parts.records = fields.Skip(sample_count * expected_record_bytes);
  parts.sample_count = sample_count;
  ShardIndexDataset read_dataset;
  if (version >= 2 && fields.ok() && !DecodeDataset(fields, sample_count, &read_dataset))
    return IndexError(index, "the index's dataset section is out of range");
  if (!fields.ok() || fields.at() != bytes.size() - sizeof trailer)
    return IndexError(index, "the index's length does not match its header");
  Result<ShardCatalog> catalog =
      version >= 3 ? CatalogOfVersion3(std::move(shards), std::move(forms), parts)
                   : CatalogBeforeVersion3(std::move(shards), std::move(forms), parts);
  if (!catalog.ok()) return IndexError(index, catalog.error().detail);
  if (dataset) *dataset = std::move(read_dataset);
  return catalog;
}

// Digest of the whole file, read through the seam.
Result<uint64_t> DigestFile(const std::filesystem::path& path) {
  FileSystem& file_system = FileSystemInUse();
  int opened = -1;
  do {
    opened = file_system.Open(path.c_str(), O_RDONLY | O_CLOEXEC, 0);
  } while (opened < 0 && errno == EINTR);
  FileDescriptor fd(opened);
  if (fd.get() < 0) return IndexError(path, std::string("cannot open: ") + std::strerror(errno));
  constexpr size_t kChunk = size_t{1} << 20;
  auto chunk = std::make_unique<uint8_t[]>(kChunk);
  Digest digest;
  for (;;) {
    const ssize_t n = file_system.Read(fd.get(), chunk.get(), kChunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IndexError(path, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) return digest.Value();
    digest.Update(chunk.get(), static_cast<size_t>(n));
  }
}

Status CheckShard(const ShardCatalog::Shard& shard, ShardCheck check) {
  struct stat info {};
  int result = 0;
  do {
    result = FileSystemInUse().Stat(shard.path.c_str(), &info);
  } while (result != 0 && errno == EINTR);
  const std::string stale = std::string("the index no longer matches this shard: ") + kReindex;
  if (result != 0) {
    return Error{ErrorKind::kIoError, shard.path.string(),
                 std::string("shard missing (") + std::strerror(errno) + "); " + stale};
  }
  if (info.st_size != shard.bytes) {
    return Error{ErrorKind::kIoError, shard.path.string(),
                 "the shard is " + std::to_string(info.st_size) + " bytes, indexed at " +
                     std::to_string(shard.bytes) + "; " + stale};
  }
  if (check == ShardCheck::kDigests) {
    Result<uint64_t> digest = DigestFile(shard.path);
    if (!digest.ok()) return digest.error();
    if (digest.value() != shard.digest)
      return Error{ErrorKind::kIoError, shard.path.string(),
                   "the shard's digest changed; " + stale};
  }
  return {};
}

Status WriteWhole(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = FileSystemInUse().Write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{ErrorKind::kIoError, "", std::strerror(n < 0 ? errno : EIO)};
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

Status WriteShardIndex(const ShardCatalog& catalog, const std::filesystem::path& index,
                       const ShardIndexDataset& dataset) {
  const std::string bytes =
      Encode(catalog, dataset, index.parent_path().empty() ? "." : index.parent_path());
  FileSystem& file_system = FileSystemInUse();
  const std::filesystem::path temporary =
      index.string() + ".tmp-" + std::to_string(static_cast<long>(getpid()));
  int opened = -1;
  do {
    opened = file_system.Open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  } while (opened < 0 && errno == EINTR);
  if (opened < 0) return IndexError(index, std::string("cannot create: ") + std::strerror(errno));
  Status written = WriteWhole(opened, bytes);
  if (written.ok() && file_system.Fsync(opened) != 0)
    written = Error{ErrorKind::kIoError, "", std::string("cannot fsync: ") + std::strerror(errno)};
  if (file_system.Close(opened) != 0 && written.ok())
    written = Error{ErrorKind::kIoError, "", std::string("cannot close: ") + std::strerror(errno)};
  if (written.ok() && file_system.Rename(temporary.c_str(), index.c_str()) != 0)
    written = Error{ErrorKind::kIoError, "", std::string("cannot rename: ") + std::strerror(errno)};
  if (!written.ok()) {
    file_system.Unlink(temporary.c_str());
    return IndexError(index, "cannot write the index: " + written.error().detail);
  }
  return {};
}

bool ShardIndexIntact(std::span<const uint8_t> bytes) {
  if (bytes.size() < sizeof kMagic + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return false;
  Digest digest;
  digest.Update(bytes.data(), bytes.size() - sizeof(uint64_t));
  uint64_t trailer = 0;
  std::memcpy(&trailer, bytes.data() + bytes.size() - sizeof trailer, sizeof trailer);
  return trailer == digest.Value();
}

Result<ShardCatalog> DecodeShardIndex(std::span<const uint8_t> bytes,
                                      const std::filesystem::path& index,
                                      ShardIndexDataset* dataset) {
  ShardIndexDataset read_dataset;
  Result<ShardCatalog> catalog = Decode(bytes, index, &read_dataset);
  if (catalog.ok() && dataset) *dataset = std::move(read_dataset);
  return catalog;
}

Result<ShardCatalog> ReadShardIndex(const std::filesystem::path& index, ShardCheck check,
                                    ShardIndexDataset* dataset) {
  ReadBuffer buffer(std::numeric_limits<int64_t>::max());
  Result<std::span<const uint8_t>> bytes = ReadWholeFile(index, &buffer);
  if (!bytes.ok()) return bytes.error();
  ShardIndexDataset read_dataset;
  Result<ShardCatalog> catalog = Decode(bytes.value(), index, &read_dataset);
  if (!catalog.ok()) return catalog;
  for (const ShardCatalog::Shard& shard : catalog.value().shards()) {
    if (Status status = CheckShard(shard, check); !status.ok()) return status.error();
  }
  if (dataset) *dataset = std::move(read_dataset);
  return catalog;
}

}  // namespace segfeed::source
