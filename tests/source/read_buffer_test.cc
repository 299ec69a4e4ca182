#include "source/read_buffer.h"

#include <gtest/gtest.h>

#include <new>

#include "source/scratch_growth.h"

namespace segfeed::source {
namespace {

TEST(ReadBufferTest, ResizeShowsTheBytesAndKeepsTheCapacity) {
  ReadBuffer buffer(1000);
  EXPECT_EQ(buffer.max_bytes(), 1000);
  EXPECT_TRUE(buffer.bytes().empty());
  uint8_t* data = buffer.Resize(500);
  data[499] = 7;
  ASSERT_EQ(buffer.bytes().size(), 500u);
  EXPECT_EQ(buffer.bytes()[499], 7);
  // Smaller and equal sizes reuse the same bytes.
  EXPECT_EQ(buffer.Resize(10), data);
  EXPECT_EQ(buffer.Resize(500), data);
  EXPECT_EQ(buffer.capacity_bytes(), 500u);
}

TEST(ReadBufferTest, ShrinkFreesOnlyWhatIsOverTheKeptSize) {
  ReadBuffer buffer;
  buffer.Resize(4096);
  buffer.Shrink(8192);
  EXPECT_TRUE(buffer.bytes().empty());
  EXPECT_EQ(buffer.capacity_bytes(), 4096u);
  buffer.Shrink(1024);
  EXPECT_EQ(buffer.capacity_bytes(), 0u);
}

TEST(ReadBufferTest, GrowthGoesThroughTheScratchGrowthSeam) {
  class FailEveryGrowth final : public ScratchGrowthObserverForTesting {
   public:
    void BeforeGrowth(size_t bytes) override {
      last_bytes = bytes;
      throw std::bad_alloc();
    }
    size_t last_bytes = 0;
  };
  ReadBuffer buffer;
  buffer.Resize(100);
  FailEveryGrowth observer;
  EXPECT_NO_THROW(buffer.Resize(100));  // no growth, no call
  EXPECT_THROW(buffer.Resize(101), std::bad_alloc);
  EXPECT_EQ(observer.last_bytes, 101u);
  EXPECT_EQ(buffer.capacity_bytes(), 100u);
}

}  // namespace
}  // namespace segfeed::source
