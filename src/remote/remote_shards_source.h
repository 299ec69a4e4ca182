#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mutex.h"
#include "remote/object_url.h"
#include "remote/range_client.h"
#include "remote/range_coalescing.h"
#include "result.h"
#include "source/disk_cache.h"
#include "source/sample_source.h"
#include "source/shard_catalog.h"
#include "thread_annotations.h"

namespace segfeed::remote {

// How far a RemoteShardsSource reads ahead and how it groups reads.
struct ReadAheadOptions {
  // Bytes fetched ahead of Read() (in flight or waiting to be read) at
  // most; one read is always allowed, however large.
  int64_t read_ahead_bytes = int64_t{64} << 20;
  // Neighbouring ranges of one shard at most this far apart are one
  // request (the gap is fetched and dropped)...
  uint64_t max_gap_bytes = uint64_t{64} << 10;
  // ...as long as the request stays within this.
  uint64_t max_read_bytes = uint64_t{8} << 20;
};

// The third source: tar shards in object storage (s3://, http(s)://),
// found through their index (one GET of index.sfidx) and read by HTTP range
// requests through a RangeClient. The samples, their ids and their bytes
// are those of the same shards read locally (ShardsSource).
//
// Prefetch() takes the epoch's order and reads ahead of Read() in that
// order, within ReadAheadOptions::read_ahead_bytes: the samples' ranges are
// coalesced (CoalesceRanges) and started on the client's multi handle; as
// Read() takes samples, their bytes are dropped and further reads start.
// Every body is checked against the index's digests of the members in it
// before it is used: a short or wrong body is retried and, after the last
// attempt, that sample's io_error (naming the URL, the status and the
// attempts), never decoded. A read ahead that is never taken (a hint
// skipped) is dropped once the reads have moved far past it.
//
// With a DiskCache (cache_dir), a sample whose members the cache holds
// (looked up by the index's digest and size of each) is copied from it into
// the read-ahead instead of fetched, within the same bound, and issues no
// request; a body fetched and verified is inserted member by member. The
// cache's own failures (a damaged entry, a full disk, its lock) never fail
// a sample: they are counted and the bytes come from the store.
//
// Threads: as SampleSource says; the read-ahead state is guarded by mu_.
class RemoteShardsSource final : public source::SampleSource {
 public:
  // Opens the shards of the index object `index` (an ".sfidx" object),
  // beside it, reading through `cache` when there is one. `fetched_index`
  // is its bytes when the caller fetched them already
  // (DatasetSpec::fetched_shard_index); empty: fetched now, once
  // (FetchShardIndex(): its digest checked, retried). Errors name the URL
  // and what to check (403: the credentials, 404: the URL, a damaged
  // index).
  static Result<std::unique_ptr<RemoteShardsSource>> Open(
      const ObjectUrl& index, RangeClientOptions client, ReadAheadOptions read_ahead,
      std::span<const uint8_t> fetched_index = {},
      std::unique_ptr<source::DiskCache> cache = nullptr);
  ~RemoteShardsSource() override;

  size_t sample_count() const override { return catalog_.sample_count(); }
  // The dataset's key, as ShardsSource gives it (ShardCatalog::DatasetKey():
  // "scan.v2", not the member key "scan%2Ev2").
  std::string Key(source::SampleId id) const override { return catalog_.DatasetKey(id); }
  // ShardCatalog::MemberName() under the shard's URL
  // ("s3://bucket/voc/data-000003.tar:2007_000032.jpg").
  std::string MemberName(source::SampleId id, source::Member member) const override {
    return catalog_.MemberName(id, member, shard_urls_[catalog_.record(id).shard].ToString());
  }
  std::optional<int64_t> MemberSize(source::SampleId id, source::Member member) const override {
    return catalog_.MemberSize(id, member);
  }
  void Prefetch(std::span<const source::SampleId> upcoming) override;
  Result<std::span<const uint8_t>> Read(source::SampleId id, source::Member member,
                                        source::ReadBuffer* into,
                                        const source::HeadCheck* head = nullptr) override;
  const source::ShardCatalog* shard_catalog() const override { return &catalog_; }
  int64_t read_ahead_bytes() const override { return read_ahead_.read_ahead_bytes; }

  TransferCounts transfer_counts() const override;

 private:
  // A member within a chunk's bytes and the index's digest of it.
  struct MemberBytes {
    uint64_t at, size, digest;
  };
  // One coalesced read, or one sample copied from the cache (no transfer:
  // `cached` holds its range, offset on), and the samples it holds that are
  // still to be read.
  struct Chunk {
    std::shared_ptr<Transfer> transfer;
    std::vector<uint8_t> cached;
    uint64_t offset = 0;
    int64_t bytes = 0;
    int samples = 0;  // the samples the read holds
    int samples_left = 0;
    // What the body must hold; inserted into the cache once (`kept`).
    std::vector<MemberBytes> members;
    std::atomic<bool> kept = false;
  };
  // A sample fetched ahead: its chunk, its position in the order, and the
  // members not yet read.
  struct Ahead {
    std::shared_ptr<Chunk> chunk;
    size_t position = 0;
    int members_left = 2;
  };

  RemoteShardsSource(source::ShardCatalog catalog, std::vector<ObjectUrl> shard_urls,
                     RangeClientOptions client, ReadAheadOptions read_ahead,
                     std::unique_ptr<source::DiskCache> cache);
  // The byte range holding the sample's members.
  ByteRange SampleRange(source::SampleId id) const;
  // The sample's members that are read (regular, not empty), 0 to 2.
  int ReadableMembers(source::SampleId id) const;
  // Starts the reads of `ids` (coalesced; those the cache holds copied from
  // it) and records them at positions from `position`.
  void StartReads(std::span<const source::SampleId> ids, size_t position) REQUIRES(mu_);
  // The sample's `range` from the cache, or nullptr when it does not hold
  // every member intact.
  std::shared_ptr<Chunk> FromCache(source::SampleId id, const ByteRange& range) REQUIRES(mu_);
  // Inserts a verified chunk's members into the cache (once per chunk).
  void KeepInCache(Chunk* chunk);
  // Reads ahead in the announced order while the bound allows.
  void ReadAhead() REQUIRES(mu_);
  // Drops reads ahead that Read() has moved far past.
  void DropStale() REQUIRES(mu_);
  // Takes one member read out of the sample's entry.
  void Taken(source::SampleId id) REQUIRES(mu_);
  // The sample's own read, in place of its share of `failed` (a read of
  // several samples whose body never matched the index): started unless
  // another thread started it already.
  std::shared_ptr<Chunk> ReadAlone(source::SampleId id, const std::shared_ptr<Chunk>& failed)
      EXCLUDES(mu_);

  const source::ShardCatalog catalog_;
  const std::vector<ObjectUrl> shard_urls_;
  const ReadAheadOptions read_ahead_;
  std::unique_ptr<RangeClient> client_;
  const std::unique_ptr<source::DiskCache> cache_;  // nullptr: no cache_dir
  // The cache's failures its stats do not count: its lock (lookups and
  // inserts) failed; the bytes came from the store.
  std::atomic<int64_t> cache_errors_ = 0;

  Mutex mu_;
  std::vector<source::SampleId> order_ GUARDED_BY(mu_);
  size_t next_position_ GUARDED_BY(mu_) = 0;  // the next to read ahead
  size_t read_position_ GUARDED_BY(mu_) = 0;  // the furthest Read() took
  std::unordered_map<source::SampleId, Ahead> ahead_ GUARDED_BY(mu_);
  int64_t held_bytes_ GUARDED_BY(mu_) = 0;
};

}  // namespace segfeed::remote
