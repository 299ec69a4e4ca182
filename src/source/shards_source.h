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
  // The dataset's own keys of the samples whose member key differs
  // (`segfeed pack` percent-encodes a dot: "a.b" is written "a%2Eb.jpg";
  // the index records them, ShardIndexDataset::original_keys), any order.
  using OriginalKeys = std::vector<std::pair<SampleId, std::string>>;

  explicit ShardsSource(ShardCatalog catalog, OriginalKeys original_keys = {});
  ~ShardsSource() override;
  ShardsSource(const ShardsSource&) = delete;
  ShardsSource& operator=(const ShardsSource&) = delete;

  size_t sample_count() const override { return catalog_.sample_count(); }
  // The dataset's key: the original one where the index records it, else
  // the members' ("train/aachen/aachen_000000_000019", "a.b").
  std::string Key(SampleId id) const override;
  // "<shard path>:<member key>.<extension>" as the tar names the member
  // ("shards/data-000003.tar:train/k.jpg", "...:a%2Eb.jpg"); for a member
  // the sample lacks, "<shard path>:<member key> (no photo)" or
  // "(no mask)".
  std::string MemberName(SampleId id, Member member) const override;
  // From the catalog: nullopt for a member the sample lacks or one that is
  // not a regular file entry.
  std::optional<int64_t> MemberSize(SampleId id, Member member) const override;
  void Prefetch(std::span<const SampleId>) override {}
  // Errors: io_error for a member the sample lacks ("No such file in the
  // shard"), one that is a folder or link entry ("not a regular file"), a
  // shard that cannot be opened or read (the system's reason) or that ends
  // before the member does (changed since it was indexed); empty_file for
  // a 0-byte member; too_large, from the catalog's size, before any read.
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
  // Sorted by sample.
  const OriginalKeys original_keys_;
  // -1 until opened. Read without the lock; written under it.
  std::unique_ptr<std::atomic<int>[]> descriptors_;
  Mutex opening_;
};

}  // namespace segfeed::source
