#pragma once

// Neighbouring byte ranges of one object read as one request: a sample's
// photo and mask sit one tar header apart, and in listing order (or the
// shard-block shuffle's windows) whole runs of samples do. Fewer, longer
// requests are what an object store serves fastest.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace segfeed::remote {

struct ByteRange {
  uint32_t object = 0;  // which object (a shard's number)
  uint64_t offset = 0;
  uint64_t size = 0;
};

// A read covering ranges [first, first + count) of the input.
struct CoalescedRead {
  uint32_t object = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  size_t first = 0;
  size_t count = 0;
};

// Merges each range into the read before it when both are in one object,
// it starts at or after that read's end, no more than `max_gap_bytes`
// later (the gap is read and dropped), and the read stays within
// `max_read_bytes`. Order is kept: ranges are merged only with their
// neighbours in the order given, never reordered.
std::vector<CoalescedRead> CoalesceRanges(std::span<const ByteRange> ranges, uint64_t max_gap_bytes,
                                          uint64_t max_read_bytes);

}  // namespace segfeed::remote
