#include "source/shards_source.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "source/file_system.h"

namespace segfeed::source {

namespace {

ShardCatalog WithOriginalKeys(ShardCatalog catalog, ShardsSource::OriginalKeys original_keys) {
  if (!original_keys.empty()) catalog.SetOriginalKeys(std::move(original_keys));
  return catalog;
}

}  // namespace

ShardsSource::ShardsSource(ShardCatalog catalog, OriginalKeys original_keys)
    : catalog_(WithOriginalKeys(std::move(catalog), std::move(original_keys))),
      descriptors_(std::make_unique<std::atomic<int>[]>(catalog_.shards().size())) {
  for (size_t i = 0; i < catalog_.shards().size(); ++i) descriptors_[i].store(-1);
}

ShardsSource::~ShardsSource() {
  for (size_t i = 0; i < catalog_.shards().size(); ++i) {
    const int fd = descriptors_[i].load();
    if (fd >= 0) FileSystemInUse().Close(fd);
  }
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
  const Result<size_t> readable =
      catalog_.ReadableSize(id, member, into->max_bytes(), catalog_.ShardOf(id).path.native());
  if (!readable.ok()) return readable.error();
  const size_t size = readable.value();
  const auto offset = static_cast<int64_t>(catalog_.MemberOffset(id, member));
  Result<int> fd = ShardDescriptor(catalog_.record(id).shard);
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
