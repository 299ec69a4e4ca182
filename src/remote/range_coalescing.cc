#include "remote/range_coalescing.h"

namespace segfeed::remote {

std::vector<CoalescedRead> CoalesceRanges(std::span<const ByteRange> ranges, uint64_t max_gap_bytes,
                                          uint64_t max_read_bytes) {
  std::vector<CoalescedRead> reads;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ByteRange& range = ranges[i];
    if (!reads.empty()) {
      CoalescedRead& last = reads.back();
      const uint64_t end = last.offset + last.size;
      if (range.object == last.object && range.offset >= end &&
          range.offset - end <= max_gap_bytes &&
          range.offset + range.size - last.offset <= max_read_bytes) {
        last.size = range.offset + range.size - last.offset;
        ++last.count;
        continue;
      }
    }
    reads.push_back(CoalescedRead{range.object, range.offset, range.size, i, 1});
  }
  return reads;
}

}  // namespace segfeed::remote
