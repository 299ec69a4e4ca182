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
    std::span<const uint8_t> fetched_index) {
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
  auto opened = std::unique_ptr<RemoteShardsSource>(new RemoteShardsSource(
      std::move(catalog), std::move(shard_urls), RangeClientOptions{}, read_ahead));
  opened->client_ = std::move(range_client);
  return opened;
}

RemoteShardsSource::RemoteShardsSource(source::ShardCatalog catalog,
                                       std::vector<ObjectUrl> shard_urls, RangeClientOptions,
                                       ReadAheadOptions read_ahead)
    : catalog_(std::move(catalog)), shard_urls_(std::move(shard_urls)), read_ahead_(read_ahead) {}

RemoteShardsSource::~RemoteShardsSource() {
  {
    MutexLock lock(&mu_);
    ahead_.clear();
  }
  client_.reset();  // fails and joins what is still running
}

source::SampleSource::TransferCounts RemoteShardsSource::transfer_counts() const {
  const RangeClientStats stats = client_->stats();
  return TransferCounts{stats.requests, stats.retries, stats.connections};
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

void RemoteShardsSource::StartReads(std::span<const SampleId> ids, size_t position) {
  std::vector<ByteRange> ranges;
  std::vector<SampleId> wanted;
  std::unordered_set<SampleId> seen;
  for (const SampleId id : ids) {
    const ByteRange range = SampleRange(id);
    if (range.size == 0 || ahead_.contains(id) || !seen.insert(id).second) continue;
    ranges.push_back(range);
    wanted.push_back(id);
  }
  for (const CoalescedRead& read :
       CoalesceRanges(ranges, read_ahead_.max_gap_bytes, read_ahead_.max_read_bytes)) {
    // What the body must hold: each member's bytes with the index's digest.
    struct Expected {
      uint64_t at, size, digest;
    };
    std::vector<Expected> expected;
    for (size_t i = read.first; i < read.first + read.count; ++i) {
      const source::SampleRecord& record = catalog_.record(wanted[i]);
      for (const Member member : {Member::kImage, Member::kMask}) {
        if (!Readable(catalog_, wanted[i], member)) continue;
        const size_t m = source::MemberIndex(member);
        expected.push_back({catalog_.MemberOffset(wanted[i], member) - read.offset, record.size[m],
                            record.digest[m]});
      }
    }
    auto check = [expected = std::move(expected)](std::span<const uint8_t> body) {
      for (const Expected& member : expected) {
        Digest digest;
        digest.Update(body.data() + member.at, member.size);
        if (digest.Value() != member.digest) return false;
      }
      return true;
    };
    auto chunk = std::make_shared<Chunk>();
    chunk->transfer = client_->Start(shard_urls_[read.object], read.offset, read.size, check);
    chunk->offset = read.offset;
    chunk->bytes = static_cast<int64_t>(read.size);
    chunk->samples_left = static_cast<int>(read.count);
    held_bytes_ += chunk->bytes;
    for (size_t i = read.first; i < read.first + read.count; ++i) {
      const int members = static_cast<int>(Readable(catalog_, wanted[i], Member::kImage)) +
                          static_cast<int>(Readable(catalog_, wanted[i], Member::kMask));
      ahead_[wanted[i]] = Ahead{chunk, position + i, members};
    }
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
  // TODO(cache): source::DiskCache (built, not wired yet) belongs in
  // StartReads(): a sample whose members the cache holds becomes a chunk
  // served from it, so no request is issued for it; Insert() follows a
  // verified body here.
  chunk->transfer->Wait();
  const Status& status = chunk->transfer->status();
  Status result;
  if (!status.ok()) {
    result = Error{ErrorKind::kIoError, MemberName(id, member), status.error().detail};
  } else {
    const std::span<const uint8_t> bytes =
        chunk->transfer->body().subspan(catalog_.MemberOffset(id, member) - chunk->offset, size);
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
