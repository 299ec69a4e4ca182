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
  Put(&out, static_cast<uint64_t>(catalog.key_arena().size()));
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
  out.append(catalog.key_arena());
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

// Version 2's dataset section, after the records.
bool DecodeDataset(Fields& fields, uint64_t sample_count, ShardIndexDataset* dataset) {
  const auto option_count = fields.Get<uint32_t>();
  for (uint32_t i = 0; i < option_count && fields.ok(); ++i) {
    std::string name = fields.GetText();
    std::string value = fields.GetText();
    dataset->options.emplace_back(std::move(name), std::move(value));
  }
  const auto key_count = fields.Get<uint64_t>();
  if (key_count > sample_count) return false;
  for (uint64_t i = 0; i < key_count && fields.ok(); ++i) {
    const auto sample = fields.Get<uint64_t>();
    if (sample >= sample_count) return false;
    dataset->original_keys.emplace_back(static_cast<SampleId>(sample), fields.GetText());
  }
  return fields.ok();
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
  if (version != 1 && version != kShardIndexVersion) {
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
  if (record_bytes != sizeof(SampleRecord) || shard_count > kMaxShards ||
      form_count > kMaxMemberForms || key_bytes >= kMaxKeyArenaBytes ||
      sample_count > std::numeric_limits<SampleId>::max())
    return IndexError(index, "the index's header is out of range");
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
  const uint8_t* keys = fields.Skip(key_bytes);
  const uint8_t* records = fields.Skip(sample_count * sizeof(SampleRecord));
  ShardIndexDataset read_dataset;
  if (version >= 2 && fields.ok() && !DecodeDataset(fields, sample_count, &read_dataset))
    return IndexError(index, "the index's dataset section is out of range");
  if (!fields.ok() || fields.at() != bytes.size() - sizeof trailer)
    return IndexError(index, "the index's length does not match its header");
  std::vector<SampleRecord> record_list(sample_count);
  if (sample_count > 0)
    std::memcpy(record_list.data(), records, sample_count * sizeof(SampleRecord));
  Result<ShardCatalog> catalog =
      ShardCatalog::FromParts(std::move(shards), std::move(forms), std::move(record_list),
                              std::string(reinterpret_cast<const char*>(keys), key_bytes));
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
