#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mutex.h"
#include "result.h"
#include "source/sample_source.h"
#include "source/shard_catalog.h"

namespace segfeed::source {

// The second source: samples stored as members of tar shards, served from a
// ShardCatalog (a scan of the shards, source/shard_samples.h, or their
// index, source/shard_index.h). A member is read with one pread(2) at the
// offset the catalog records (two with a HeadCheck: its first bytes, then
// the rest), through the file-system seam, so a test can fail any of them.
//
// Each shard is opened on its first read and stays open until the source
// is destroyed (one descriptor per shard read; a failed open is retried on
// the next read). Read(), MemberName() and MemberSize() are thread-safe and
// never block one another, except while a shard is being opened.
// Prefetch() does nothing: a member is one read at a known offset, which
// the kernel's read-ahead and page cache already serve well on a local or
// network file system; object storage will need more.
class ShardsSource final : public SampleSource {
 public:
  // The dataset's own keys of the samples whose member key was encoded.
  using OriginalKeys = ShardCatalog::OriginalKeys;

  explicit ShardsSource(ShardCatalog catalog, OriginalKeys original_keys = {});
  ~ShardsSource() override;
  ShardsSource(const ShardsSource&) = delete;
  ShardsSource& operator=(const ShardsSource&) = delete;

  size_t sample_count() const override { return catalog_.sample_count(); }
  // The dataset's key (ShardCatalog::DatasetKey()).
  std::string Key(SampleId id) const override { return catalog_.DatasetKey(id); }
  // ShardCatalog::MemberName(), under the shard's path
  // ("shards/data-000003.tar:train/k.jpg").
  std::string MemberName(SampleId id, Member member) const override {
    return catalog_.MemberName(id, member, catalog_.ShardOf(id).path.native());
  }
  std::optional<int64_t> MemberSize(SampleId id, Member member) const override {
    return catalog_.MemberSize(id, member);
  }
  void Prefetch(std::span<const SampleId>) override {}
  // Errors: ShardCatalog::ReadableSize()'s, before any read; io_error for
  // a shard that cannot be opened or read (the system's reason) or that
  // ends before the member does (changed since it was indexed).
  Result<std::span<const uint8_t>> Read(SampleId id, Member member, ReadBuffer* into,
                                        const HeadCheck* head = nullptr) override;

  const ShardCatalog& catalog() const { return catalog_; }
  const ShardCatalog* shard_catalog() const override { return &catalog_; }

 private:
  // The shard's descriptor, opened now if it is not yet.
  Result<int> ShardDescriptor(uint16_t shard);
  // `bytes` bytes of the shard at `offset` into `into`; errors name the
  // member.
  Status ReadAt(int fd, int64_t offset, size_t bytes, uint8_t* into, SampleId id,
                Member member) const;

  const ShardCatalog catalog_;
  // -1 until opened. Read without the lock; written under it.
  std::unique_ptr<std::atomic<int>[]> descriptors_;
  Mutex opening_;
};

}  // namespace segfeed::source
