#pragma once

// Where a sample's bytes come from: one interface, so that the pipeline,
// the checker, the memory plan and the checkpoint digest read a sample the
// same way whether it lives in two files, a tar shard or an object store.
// The contract (buffers, threads, errors, sizes) is in docs/design.md,
// "Sources"; tests/source/sample_source_test.cc checks every source
// against it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "result.h"
#include "source/read_buffer.h"

namespace segfeed::source {

class ShardCatalog;

// A sample's position in the listing: the epoch's permutation, sharding and
// checkpoints speak of samples by id, whatever the source.
using SampleId = uint32_t;

// The two members of a sample.
enum class Member { kImage, kMask };

// A look at a member's first bytes before a buffer of its size is taken:
// the reader of the bytes (a decoder, which knows formats; the source does
// not) refuses a member that is plainly not what it expects, and the
// source returns that error without reading the rest. Called with up to
// kBytes bytes (fewer for a shorter member) and the member's name.
class HeadCheck {
 public:
  static constexpr size_t kBytes = 16;
  virtual Status Check(std::span<const uint8_t> head, const std::string& name) const = 0;

 protected:
  ~HeadCheck() = default;
};

// The bytes of sample i's photo and mask.
//
// Threads: Read(), MemberName() and MemberSize() may be called from several
// threads at once (each decode thread with its own buffers); Prefetch()
// from one thread at a time, concurrently with Read(). Errors are values:
// a member that cannot be read is that member's Error (io_error, too_large,
// empty_file, or the HeadCheck's), naming it, and affects no other read.
class SampleSource {
 public:
  virtual ~SampleSource() = default;

  // Samples in the catalog; ids run from 0 to sample_count() - 1.
  virtual size_t sample_count() const = 0;
  // The sample's key ("train/aachen/aachen_000000_000019").
  virtual std::string Key(SampleId id) const = 0;
  // The member's name for messages and reports (a path, "shard-0001.tar:
  // key.png", a URL): what every Error about it names.
  virtual std::string MemberName(SampleId id, Member member) const = 0;
  // The member's size in bytes when the source knows it without reading
  // its bytes (a shard index records it; files stat(2) it), nullopt when
  // it does not (the member is missing, or the source learns sizes only by
  // reading). A size given is the size Read() finds, unless the member
  // changes in between (then Read() says so).
  virtual std::optional<int64_t> MemberSize(SampleId id, Member member) const = 0;

  // The samples the caller will Read() next, in that order: a source whose
  // reads are slow (object storage) may start them now, within a bound of
  // its own, and hand them over when Read() asks. Only a hint: Read() of an
  // id never announced works (blocking), hints may repeat, skip or come in
  // any order, and a source may ignore them (files do).
  virtual void Prefetch(std::span<const SampleId> upcoming) = 0;

  // Fills `into` with the member's bytes (into->bytes() afterwards) and
  // returns them. With `head`, the member's first bytes are shown to it
  // before `into` grows to the member's size. A member larger than
  // into->max_bytes() is too_large, refused before it is read when its
  // size is known. On error, into->bytes() is empty.
  virtual Result<std::span<const uint8_t>> Read(SampleId id, Member member, ReadBuffer* into,
                                                const HeadCheck* head = nullptr) = 0;

  // The shards' catalog when the source serves tar shards (locally or from
  // object storage), for the shard-block shuffle and the memory plan;
  // nullptr otherwise.
  virtual const ShardCatalog* shard_catalog() const { return nullptr; }
  // The most bytes the source holds read ahead of Read() (object storage's
  // read_ahead_bytes), counted in the memory plan; 0 for sources that do
  // not read ahead.
  virtual int64_t read_ahead_bytes() const { return 0; }
  // Requests a remote source sent (retries included), the retries alone and
  // the connections it opened, and what its local cache (cache_dir) did,
  // for bench's report; zeros for local sources.
  struct TransferCounts {
    int64_t requests = 0;
    int64_t retries = 0;
    int64_t connections = 0;
    int64_t cache_hits = 0;        // members read from the cache
    int64_t cache_misses = 0;      // members looked up and not there (or damaged)
    int64_t cache_corrupt = 0;     // damaged entries found (and fetched again)
    int64_t cache_evictions = 0;   // entries removed to keep within cache_limit
    int64_t cache_bytes_held = 0;  // the cache folder's entries, all processes'
    int64_t cache_failures = 0;    // writes (a full disk) or its lock that failed
  };
  virtual TransferCounts transfer_counts() const { return {}; }
};

}  // namespace segfeed::source
