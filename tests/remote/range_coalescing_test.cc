#include "remote/range_coalescing.h"

#include <gtest/gtest.h>

#include <vector>

namespace segfeed::remote {
namespace {

TEST(RangeCoalescingTest, MergesNeighboursOfOneObjectInOrder) {
  // A photo, its mask one tar header later, the next sample's photo.
  const std::vector<ByteRange> ranges = {{0, 512, 1000}, {0, 2024, 300}, {0, 2836, 500}};
  const std::vector<CoalescedRead> reads = CoalesceRanges(ranges, 4096, 1 << 20);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].offset, 512u);
  EXPECT_EQ(reads[0].size, 2836u + 500u - 512u);
  EXPECT_EQ(reads[0].first, 0u);
  EXPECT_EQ(reads[0].count, 3u);
}

TEST(RangeCoalescingTest, KeepsApartOtherObjectsFarRangesAndBackwardRanges) {
  const std::vector<ByteRange> ranges = {{0, 0, 100},      // 0
                                         {1, 100, 100},    // another shard
                                         {1, 10000, 100},  // a gap wider than allowed
                                         {1, 5000, 100},   // before the read's end: never reordered
                                         {1, 5100, 100}};  // adjacent to the one before
  const std::vector<CoalescedRead> reads = CoalesceRanges(ranges, 1024, 1 << 20);
  ASSERT_EQ(reads.size(), 4u);
  EXPECT_EQ(reads[0].object, 0u);
  EXPECT_EQ(reads[1].object, 1u);
  EXPECT_EQ(reads[1].count, 1u);
  EXPECT_EQ(reads[2].offset, 10000u);
  EXPECT_EQ(reads[3].offset, 5000u);
  EXPECT_EQ(reads[3].size, 200u);
  EXPECT_EQ(reads[3].first, 3u);
  EXPECT_EQ(reads[3].count, 2u);
}

TEST(RangeCoalescingTest, StopsAtTheLargestRead) {
  std::vector<ByteRange> ranges;
  for (uint64_t i = 0; i < 10; ++i) ranges.push_back({0, i * 100, 100});
  const std::vector<CoalescedRead> reads = CoalesceRanges(ranges, 0, 300);
  ASSERT_EQ(reads.size(), 4u);  // 3 + 3 + 3 + 1
  for (const CoalescedRead& read : reads) EXPECT_LE(read.size, 300u);
  EXPECT_EQ(reads[3].count, 1u);
  EXPECT_TRUE(CoalesceRanges({}, 0, 300).empty());
}

}  // namespace
}  // namespace segfeed::remote
