// The memory probe is what proves the too_large tests allocate nothing; it
// must itself see an allocation when there is one.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "io/fixtures.h"

namespace segfeed::testing {
namespace {

TEST(PeakRssProbeTest, SeesTouchedMemory) {
  const int64_t growth = PeakRssGrowthBytes([] {
    std::vector<uint8_t> block(96 << 20);
    std::memset(block.data(), 1, block.size());
    volatile uint8_t sink = block[block.size() / 2];
    (void)sink;
  });
  if (growth < 0) GTEST_SKIP() << "peak RSS cannot be reset here";
  EXPECT_GT(growth, 64 << 20);
}

}  // namespace
}  // namespace segfeed::testing
