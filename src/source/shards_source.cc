#include "source/shards_source.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "source/file_system.h"

namespace segfeed::source {

namespace {

ShardsSource::OriginalKeys SortedBySample(ShardsSource::OriginalKeys keys) {
  std::sort(keys.begin(), keys.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return keys;
}

}  // namespace

ShardsSource::ShardsSource(ShardCatalog catalog, OriginalKeys original_keys)
    : catalog_(std::move(catalog)),
      original_keys_(SortedBySample(std::move(original_keys))),
      descriptors_(std::make_unique<std::atomic<int>[]>(catalog_.shards().size())) {
  for (size_t i = 0; i < catalog_.shards().size(); ++i) descriptors_[i].store(-1);
}

ShardsSource::~ShardsSource() {
  for (size_t i = 0; i < catalog_.shards().size(); ++i) {
    const int fd = descriptors_[i].load();
    if (fd >= 0) FileSystemInUse().Close(fd);
  }
}

std::string ShardsSource::Key(SampleId id) const {
  const auto original =
      std::lower_bound(original_keys_.begin(), original_keys_.end(), id,
                       [](const auto& entry, SampleId wanted) { return entry.first < wanted; });
  if (original != original_keys_.end() && original->first == id) return original->second;
  return std::string(catalog_.Key(id));
}

std::string ShardsSource::MemberName(SampleId id, Member member) const {
  std::string name = catalog_.ShardOf(id).path.string();
  name += ':';
  name += catalog_.Key(id);
  if (const ShardCatalog::MemberForm* form = catalog_.FormOf(id, member)) {
    name += '.';
    name += form->extension;
  } else {
    name += member == Member::kImage ? " (no photo)" : " (no mask)";
  }
  return name;
}

std::optional<int64_t> ShardsSource::MemberSize(SampleId id, Member member) const {
  const ShardCatalog::MemberForm* form = catalog_.FormOf(id, member);
  if (form == nullptr || form->kind != TarEntryKind::kRegular) return std::nullopt;
  return catalog_.record(id).size[MemberIndex(member)];
}

Result<int> ShardsSource::ShardDescriptor(uint16_t shard) {
  const int known = descriptors_[shard].load(std::memory_order_acquire);
  if (known >= 0) return known;
  MutexLock lock(&opening_);
  const int again = descriptors_[shard].load(std::memory_order_acquire);
  if (again >= 0) return again;
  const std::filesystem::path& path = catalog_.shards()[shard].path;
  int opened = -1;
  do {
    opened = FileSystemInUse().Open(path.c_str(), O_RDONLY | O_CLOEXEC, 0);
  } while (opened < 0 && errno == EINTR);
  if (opened < 0) return Error{ErrorKind::kIoError, "", std::strerror(errno)};
  descriptors_[shard].store(opened, std::memory_order_release);
  return opened;
}

Status ShardsSource::ReadAt(int fd, int64_t offset, size_t bytes, uint8_t* into, SampleId id,
                            Member member) const {
  // pread(2) may return fewer bytes than asked (signals, network file
  // systems): reading goes on. A return of 0 means the shard ends before
  // the member does, which the catalog did not say: it changed.
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = FileSystemInUse().Pread(
        fd, into + done, bytes - done, static_cast<off_t>(offset) + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{ErrorKind::kIoError, MemberName(id, member),
                   std::string("cannot read the shard: ") + std::strerror(errno)};
    }
    if (n == 0) {
      return Error{ErrorKind::kIoError, MemberName(id, member),
                   "the shard ends before the member does: it changed since it was indexed "
                   "(re-index with `segfeed index SHARDS...`)"};
    }
    done += static_cast<size_t>(n);
  }
  return {};
}

Result<std::span<const uint8_t>> ShardsSource::Read(SampleId id, Member member, ReadBuffer* into,
                                                    const HeadCheck* head) {
  into->Resize(0);
  const ShardCatalog::MemberForm* form = catalog_.FormOf(id, member);
  if (form == nullptr) {
    return Error{ErrorKind::kIoError, MemberName(id, member),
                 std::string("No such file in the shard: the sample has no ") +
                     (member == Member::kImage ? "photo" : "mask") + " member"};
  }
  if (form->kind != TarEntryKind::kRegular) {
    return Error{ErrorKind::kIoError, MemberName(id, member),
                 std::string("not a regular file (") + TarEntryKindName(form->kind) + ")"};
  }
  const SampleRecord& record = catalog_.record(id);
  const size_t size = record.size[MemberIndex(member)];
  const auto offset = static_cast<int64_t>(catalog_.MemberOffset(id, member));
  if (size == 0)
    return Error{ErrorKind::kEmptyFile, MemberName(id, member), "member is empty (0 bytes)"};
  if (static_cast<int64_t>(size) > into->max_bytes()) {
    return Error{ErrorKind::kTooLarge, MemberName(id, member),
                 "member is " + std::to_string(size) +
                     " bytes, more than max_file_bytes = " + std::to_string(into->max_bytes())};
  }
  Result<int> fd = ShardDescriptor(record.shard);
  if (!fd.ok()) {
    return Error{ErrorKind::kIoError, MemberName(id, member),
                 "cannot open the shard: " + fd.error().detail};
  }
  size_t done = 0;
  uint8_t* bytes = nullptr;
  if (head) {
    // The first bytes say what the member is: one of the wrong kind is
    // refused before a buffer of its size is taken.
    uint8_t first[HeadCheck::kBytes];
    done = std::min(size, sizeof first);
    if (Status status = ReadAt(fd.value(), offset, done, first, id, member); !status.ok())
      return status.error();
    if (Status status = head->Check(std::span<const uint8_t>(first, done), MemberName(id, member));
        !status.ok())
      return status.error();
    bytes = into->Resize(size);
    std::memcpy(bytes, first, done);
  } else {
    bytes = into->Resize(size);
  }
  if (Status status = ReadAt(fd.value(), offset + static_cast<int64_t>(done), size - done,
                             bytes + done, id, member);
      !status.ok()) {
    into->Resize(0);
    return status.error();
  }
  return into->bytes();
}

}  // namespace segfeed::source
