#include "remote/remote_shards_source.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <unordered_set>
#include <utility>

#include "digest.h"
#include "remote/range_coalescing.h"
#include "remote/shard_index_fetch.h"
#include "source/shard_index.h"

namespace segfeed::remote {
namespace {

using source::Member;
using source::SampleId;
using source::ShardCatalog;

// Reads ahead this many positions behind the furthest one taken are given
// up on (a hint that was skipped: a replacement drawn instead, a sample
// known to be bad); reads out of order among the decode threads stay far
// within it.
constexpr size_t kStalePositions = 4096;

// Whether the member has bytes to fetch (a regular file entry, not empty).
bool Readable(const ShardCatalog& catalog, SampleId id, Member member) {
  return catalog.MemberSize(id, member).value_or(0) > 0;
}

}  // namespace

Result<std::unique_ptr<RemoteShardsSource>> RemoteShardsSource::Open(
    const ObjectUrl& index, RangeClientOptions client, ReadAheadOptions read_ahead,
    std::span<const uint8_t> fetched_index, std::unique_ptr<source::DiskCache> cache) {
  auto range_client = std::make_unique<RangeClient>(std::move(client));
  std::vector<uint8_t> fetched;
  if (fetched_index.empty()) {
    Result<std::vector<uint8_t>> body = FetchShardIndex(range_client.get(), index);
    if (!body.ok()) return body.error();
    fetched = std::move(body).value();
    fetched_index = fetched;
  }
  const std::string index_name = index.ToString();
  source::ShardIndexDataset dataset;
  Result<source::ShardCatalog> decoded =
      source::DecodeShardIndex(fetched_index, std::filesystem::path(index_name), &dataset);
  if (!decoded.ok()) return decoded.error();
  std::vector<uint8_t>().swap(fetched);
  source::ShardCatalog catalog = std::move(decoded).value();
  catalog.SetOriginalKeys(std::move(dataset.original_keys));
  // The decoder put each shard under the index's "folder"; its name from
  // there is the object beside the index.
  const std::string folder = std::filesystem::path(index_name).parent_path().string() + "/";
  std::vector<ObjectUrl> shard_urls;
  for (const ShardCatalog::Shard& shard : catalog.shards()) {
    std::string name = shard.path.string();
    if (name.compare(0, folder.size(), folder) == 0) name.erase(0, folder.size());
    shard_urls.push_back(index.Sibling(name));
  }
  auto opened = std::unique_ptr<RemoteShardsSource>(
      new RemoteShardsSource(std::move(catalog), std::move(shard_urls), RangeClientOptions{},
                             read_ahead, std::move(cache)));
  opened->client_ = std::move(range_client);
  return opened;
}

RemoteShardsSource::RemoteShardsSource(source::ShardCatalog catalog,
                                       std::vector<ObjectUrl> shard_urls, RangeClientOptions,
                                       ReadAheadOptions read_ahead,
                                       std::unique_ptr<source::DiskCache> cache)
    : catalog_(std::move(catalog)),
      shard_urls_(std::move(shard_urls)),
      read_ahead_(read_ahead),
      cache_(std::move(cache)) {}

RemoteShardsSource::~RemoteShardsSource() {
  {
    MutexLock lock(&mu_);
    ahead_.clear();
  }
  client_.reset();  // fails and joins what is still running
}

source::SampleSource::TransferCounts RemoteShardsSource::transfer_counts() const {
  const RangeClientStats stats = client_->stats();
  TransferCounts counts{stats.requests, stats.retries, stats.connections};
  if (cache_) {
    const source::DiskCache::Stats cache = cache_->stats();
    counts.cache_hits = static_cast<int64_t>(cache.hits);
    counts.cache_misses = static_cast<int64_t>(cache.misses);
    counts.cache_corrupt = static_cast<int64_t>(cache.corrupt_dropped);
    counts.cache_evictions = static_cast<int64_t>(cache.evictions);
    counts.cache_bytes_held = static_cast<int64_t>(cache.bytes_held);
    counts.cache_failures = static_cast<int64_t>(cache.write_failures) + cache_errors_.load();
  }
  return counts;
}

ByteRange RemoteShardsSource::SampleRange(SampleId id) const {
  const source::SampleRecord& record = catalog_.record(id);
  ByteRange range{record.shard, UINT64_MAX, 0};
  uint64_t end = 0;
  for (const Member member : {Member::kImage, Member::kMask}) {
    if (!Readable(catalog_, id, member)) continue;
    const size_t i = source::MemberIndex(member);
    const uint64_t offset = catalog_.MemberOffset(id, member);
    range.offset = std::min(range.offset, offset);
    end = std::max(end, offset + record.size[i]);
  }
  if (end == 0) return ByteRange{record.shard, 0, 0};
  range.size = end - range.offset;
  return range;
}

int RemoteShardsSource::ReadableMembers(SampleId id) const {
  return static_cast<int>(Readable(catalog_, id, Member::kImage)) +
         static_cast<int>(Readable(catalog_, id, Member::kMask));
}

void RemoteShardsSource::StartReads(std::span<const SampleId> ids, size_t position) {
  std::vector<ByteRange> ranges;
  std::vector<SampleId> wanted;
  std::vector<size_t> positions;
  std::unordered_set<SampleId> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    const SampleId id = ids[i];
    const ByteRange range = SampleRange(id);
    if (range.size == 0 || ahead_.contains(id) || !seen.insert(id).second) continue;
    // Looked up before coalescing: a sample the cache holds is no request.
    if (std::shared_ptr<Chunk> cached = FromCache(id, range)) {
      held_bytes_ += cached->bytes;
      ahead_[id] = Ahead{std::move(cached), position + i, ReadableMembers(id)};
      continue;
    }
    ranges.push_back(range);
    wanted.push_back(id);
    positions.push_back(position + i);
  }
  for (const CoalescedRead& read :
       CoalesceRanges(ranges, read_ahead_.max_gap_bytes, read_ahead_.max_read_bytes)) {
    auto chunk = std::make_shared<Chunk>();
    for (size_t i = read.first; i < read.first + read.count; ++i) {
      const source::SampleRecord& record = catalog_.record(wanted[i]);
      for (const Member member : {Member::kImage, Member::kMask}) {
        if (!Readable(catalog_, wanted[i], member)) continue;
        const size_t m = source::MemberIndex(member);
        chunk->members.push_back({catalog_.MemberOffset(wanted[i], member) - read.offset,
                                  record.size[m], record.digest[m]});
      }
    }
    // What the body must hold: each member's bytes with the index's digest.
    auto check = [members = chunk->members](std::span<const uint8_t> body) {
      for (const MemberBytes& member : members) {
        Digest digest;
        digest.Update(body.data() + member.at, member.size);
        if (digest.Value() != member.digest) return false;
      }
      return true;
    };
    chunk->transfer = client_->Start(shard_urls_[read.object], read.offset, read.size, check);
    chunk->offset = read.offset;
    chunk->bytes = static_cast<int64_t>(read.size);
    chunk->samples = static_cast<int>(read.count);
    chunk->samples_left = chunk->samples;
    held_bytes_ += chunk->bytes;
    for (size_t i = read.first; i < read.first + read.count; ++i)
      ahead_[wanted[i]] = Ahead{chunk, positions[i], ReadableMembers(wanted[i])};
  }
}

std::shared_ptr<RemoteShardsSource::Chunk> RemoteShardsSource::FromCache(SampleId id,
                                                                         const ByteRange& range) {
  if (!cache_) return nullptr;
  // The sample's range as a read would hold it (the tar headers between
  // its members stay zeros, never read), so Read() takes members alike.
  auto chunk = std::make_shared<Chunk>();
  chunk->cached.resize(range.size);
  chunk->offset = range.offset;
  chunk->bytes = static_cast<int64_t>(range.size);
  chunk->samples_left = 1;
  const source::SampleRecord& record = catalog_.record(id);
  // Every member is looked up, so that the counts are per member (a sample
  // whose mask alone is cached is fetched whole).
  bool whole = true;
  for (const Member member : {Member::kImage, Member::kMask}) {
    if (!Readable(catalog_, id, member)) continue;
    const size_t m = source::MemberIndex(member);
    const std::span<uint8_t> into =
        std::span(chunk->cached)
            .subspan(catalog_.MemberOffset(id, member) - range.offset, record.size[m]);
    const Result<bool> found =
        cache_->Lookup(record.digest[m], record.size[m], std::as_writable_bytes(into));
    if (!found.ok()) ++cache_errors_;  // the cache's own failure: fetched instead
    whole = whole && found.ok() && found.value();
  }
  return whole ? chunk : nullptr;
}

void RemoteShardsSource::KeepInCache(Chunk* chunk) {
  if (!cache_ || chunk->kept.exchange(true)) return;
  const std::span<const uint8_t> body = chunk->transfer->body();
  for (const MemberBytes& member : chunk->members) {
    // A failed write (a full disk) is counted by the cache; only its lock
    // failing is an error, and the bytes are served all the same.
    if (!cache_->Insert(member.digest, std::as_bytes(body.subspan(member.at, member.size))).ok())
      ++cache_errors_;
  }
}

void RemoteShardsSource::ReadAhead() {
  if (held_bytes_ >= read_ahead_.read_ahead_bytes) DropStale();
  std::vector<SampleId> ids;
  const size_t first = next_position_;
  int64_t planned = held_bytes_;
  while (next_position_ < order_.size()) {
    const SampleId id = order_[next_position_];
    const auto bytes = static_cast<int64_t>(SampleRange(id).size);
    if (planned > 0 && planned + bytes > read_ahead_.read_ahead_bytes) break;
    planned += bytes;
    ids.push_back(id);
    ++next_position_;
  }
  StartReads(ids, first);
}

void RemoteShardsSource::DropStale() {
  for (auto it = ahead_.begin(); it != ahead_.end();) {
    if (it->second.position + kStalePositions < read_position_) {
      if (--it->second.chunk->samples_left == 0) held_bytes_ -= it->second.chunk->bytes;
      it = ahead_.erase(it);
    } else {
      ++it;
    }
  }
}

void RemoteShardsSource::Taken(SampleId id) {
  const auto it = ahead_.find(id);
  if (it == ahead_.end() || --it->second.members_left > 0) return;
  if (--it->second.chunk->samples_left == 0) held_bytes_ -= it->second.chunk->bytes;
  ahead_.erase(it);
}

std::shared_ptr<RemoteShardsSource::Chunk> RemoteShardsSource::ReadAlone(
    SampleId id, const std::shared_ptr<Chunk>& failed) {
  MutexLock lock(&mu_);
  auto it = ahead_.find(id);
  if (it != ahead_.end() && it->second.chunk != failed) return it->second.chunk;
  size_t position = read_position_;
  if (it != ahead_.end()) {
    position = it->second.position;
    if (--failed->samples_left == 0) held_bytes_ -= failed->bytes;
    ahead_.erase(it);
  }
  const SampleId ids[] = {id};
  StartReads(ids, position);
  it = ahead_.find(id);
  return it == ahead_.end() ? failed : it->second.chunk;
}

void RemoteShardsSource::Prefetch(std::span<const SampleId> upcoming) {
  MutexLock lock(&mu_);
  // A new announcement (an epoch) replaces the last: what was read ahead
  // for the old order is dropped.
  ahead_.clear();
  held_bytes_ = 0;
  order_.assign(upcoming.begin(), upcoming.end());
  next_position_ = 0;
  read_position_ = 0;
  ReadAhead();
}

Result<std::span<const uint8_t>> RemoteShardsSource::Read(SampleId id, Member member,
                                                          source::ReadBuffer* into,
                                                          const source::HeadCheck* head) {
  into->Resize(0);
  const Result<size_t> readable = catalog_.ReadableSize(
      id, member, into->max_bytes(), shard_urls_[catalog_.record(id).shard].ToString());
  if (!readable.ok()) return readable.error();
  const size_t size = readable.value();
  std::shared_ptr<Chunk> chunk;
  {
    MutexLock lock(&mu_);
    auto it = ahead_.find(id);
    if (it == ahead_.end()) {
      // Not read ahead (not announced, or dropped): this sample now, both
      // members in one request.
      const SampleId ids[] = {id};
      StartReads(ids, read_position_);
      it = ahead_.find(id);
    }
    chunk = it->second.chunk;
    read_position_ = std::max(read_position_, it->second.position);
  }
  if (chunk->transfer) {
    chunk->transfer->Wait();
    if (!chunk->transfer->status().ok() && chunk->transfer->body_wrong() && chunk->samples > 1) {
      // Some member's bytes in the store are not the index's (damaged or
      // rewritten after packing): the read of several samples failed as a
      // whole, yet the others are good. Asked alone, each sample stands or
      // falls by its own bytes, as a bad file among local ones does.
      chunk = ReadAlone(id, chunk);
      if (chunk->transfer) chunk->transfer->Wait();
    }
  }
  // A chunk from the cache is there already; a fetched one is kept in the
  // cache once it is verified.
  std::span<const uint8_t> body = chunk->cached;
  Status result;
  if (chunk->transfer) {
    const Status& status = chunk->transfer->status();
    if (!status.ok()) {
      result = Error{ErrorKind::kIoError, MemberName(id, member), status.error().detail};
    } else {
      body = chunk->transfer->body();
      KeepInCache(chunk.get());
    }
  }
  if (result.ok()) {
    const std::span<const uint8_t> bytes =
        body.subspan(catalog_.MemberOffset(id, member) - chunk->offset, size);
    if (head) {
      result = head->Check(bytes.first(std::min(bytes.size(), source::HeadCheck::kBytes)),
                           MemberName(id, member));
    }
    if (result.ok()) std::memcpy(into->Resize(size), bytes.data(), size);
  }
  MutexLock lock(&mu_);
  if (result.ok()) {
    Taken(id);
  } else {
    // Both members go: a sample that failed is read again from scratch if
    // it is asked for again (the next epoch).
    while (ahead_.contains(id)) Taken(id);
  }
  ReadAhead();
  if (!result.ok()) return result.error();
  return into->bytes();
}

}  // namespace segfeed::remote
