#include "memory/pinned_buffer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>

#include "segfeed/errors.h"

namespace segfeed::memory {
namespace {

bool PageAligned(const std::byte* p) {
  return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)) == 0;
}

TEST(PinnedBufferTest, OffGivesZeroedPageAlignedPageableMemory) {
  PinnedBuffer buffer(10000, PinnedMode::kOff);
  EXPECT_EQ(buffer.kind(), PoolKind::kPageable);
  EXPECT_EQ(buffer.bytes(), 10000u);
  EXPECT_TRUE(PageAligned(buffer.data()));
  EXPECT_TRUE(buffer.fallback_reason().empty());
  for (size_t i = 0; i < buffer.bytes(); ++i) ASSERT_EQ(buffer.data()[i], std::byte{0});
  buffer.data()[9999] = std::byte{7};  // the whole range is writable
}

TEST(PinnedBufferTest, AutoAlwaysSucceedsAndSaysWhyItFellBack) {
  PinnedBuffer buffer(1 << 20, PinnedMode::kAuto);
  std::string why_not;
  if (CudaDeviceAvailable(&why_not)) {
    EXPECT_EQ(buffer.kind(), PoolKind::kCudaHost);
  } else {
    EXPECT_NE(buffer.kind(), PoolKind::kCudaHost);
    // The reason the CUDA path was not taken is kept for the report.
    EXPECT_NE(buffer.fallback_reason().find(why_not), std::string::npos)
        << buffer.fallback_reason();
  }
}

TEST(PinnedBufferTest, CudaModeWithoutDeviceIsAConfigErrorNamingTheOption) {
  std::string why_not;
  if (CudaDeviceAvailable(&why_not)) GTEST_SKIP() << "a CUDA device is present";
  try {
    PinnedBuffer buffer(4096, PinnedMode::kCuda);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("pinned=cuda is impossible"), std::string::npos)
        << e.what();
  }
}

TEST(PinnedBufferTest, MlockModeLocksOrNamesTheLimit) {
  try {
    PinnedBuffer buffer(1 << 16, PinnedMode::kMlock);
    EXPECT_EQ(buffer.kind(), PoolKind::kMlocked);
    EXPECT_TRUE(PageAligned(buffer.data()));
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("RLIMIT_MEMLOCK"), std::string::npos) << e.what();
  }
}

TEST(PinnedBufferTest, MoveTransfersOwnership) {
  PinnedBuffer a(4096, PinnedMode::kOff);
  std::byte* data = a.data();
  PinnedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  PinnedBuffer c(8192, PinnedMode::kOff);
  c = std::move(b);
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(c.bytes(), 4096u);
}

}  // namespace
}  // namespace segfeed::memory
