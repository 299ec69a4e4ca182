#include "memory/buffer_pool.h"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::memory {
namespace {

TEST(BufferPoolTest, AllocatesExactlyCountTimesBytesOnce) {
  BufferPool pool(3, 123457, PinnedMode::kOff);
  EXPECT_EQ(pool.buffer_count(), 3);
  EXPECT_EQ(pool.total_bytes(), 3u * 123457u);
  EXPECT_EQ(pool.kind(), PoolKind::kPageable);
  // Buffers never overlap.
  std::vector<std::byte*> starts = {pool.data(0), pool.data(1), pool.data(2)};
  std::sort(starts.begin(), starts.end());
  for (int i = 0; i + 1 < 3; ++i) EXPECT_GE(starts[i + 1] - starts[i], 123457);
}

TEST(BufferPoolTest, AcquireUntilEmptyThenReleaseMakesOneAvailable) {
  BufferPool pool(2, 64, PinnedMode::kOff);
  auto a = pool.TryAcquire();
  auto b = pool.TryAcquire();
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_FALSE(pool.TryAcquire().has_value());
  EXPECT_EQ(pool.free_count(), 0);
  pool.Release(*b);
  EXPECT_EQ(pool.TryAcquire(), b);
}

TEST(BufferPoolTest, ListenerGetsFreeBuffersAtOnceAndLaterReleases) {
  BufferPool pool(3, 64, PinnedMode::kOff);
  const int held = *pool.TryAcquire();
  std::vector<int> received;
  pool.SetReturnListener([&](int index) { received.push_back(index); });
  EXPECT_EQ(received.size(), 2u);
  EXPECT_EQ(pool.free_count(), 0);
  pool.Release(held);
  ASSERT_EQ(received.size(), 3u);
  EXPECT_EQ(received.back(), held);
  pool.ClearReturnListener();
  pool.Release(received[0]);
  EXPECT_EQ(pool.free_count(), 1);
  EXPECT_EQ(received.size(), 3u);
}

TEST(BufferPoolTest, ConcurrentUseNeverHandsOutABufferTwice) {
  constexpr int kBuffers = 4;
  BufferPool pool(kBuffers, 64, PinnedMode::kOff);
  std::atomic<int> owners[kBuffers] = {};
  std::atomic<bool> duplicate{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        auto index = pool.TryAcquire();
        if (!index) continue;
        if (owners[*index].fetch_add(1) != 0) duplicate = true;
        owners[*index].fetch_sub(1);
        pool.Release(*index);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(duplicate);
  EXPECT_EQ(pool.free_count(), kBuffers);
}

// Makes mlock obey RLIMIT_MEMLOCK in this process (root's CAP_IPC_LOCK
// would ignore it) and sets the limit to `bytes`.
bool LimitLockedMemory(rlim_t bytes) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct caps[2]{};
  if (syscall(SYS_capget, &header, caps) != 0) return false;
  caps[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
  if (syscall(SYS_capset, &header, caps) != 0) return false;
  const rlimit limit{bytes, bytes};
  return setrlimit(RLIMIT_MEMLOCK, &limit) == 0;
}

// A memlock limit that fits one buffer but not two: auto gives a pool of
// one kind (all pageable) and says why; mlock is a ConfigError. In a child
// process, so the lowered limit stays there.
TEST(BufferPoolTest, AutoFallsBackForTheWholePoolWhenPinningRunsOut) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers turn mlock into a no-op that succeeds";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  constexpr size_t kBytes = size_t{1} << 20;
  EXPECT_EXIT(
      {
        if (!LimitLockedMemory(kBytes * 3 / 2)) std::_Exit(10);
        BufferPool pool(2, kBytes, PinnedMode::kAuto);
        if (pool.kind() != PoolKind::kPageable) std::_Exit(11);
        const std::string& reason = pool.fallback_reason();
        if (reason.find("mlock failed") == std::string::npos) std::_Exit(12);
        if (reason.find("for buffer 2 of 2, so the whole pool is pageable") == std::string::npos)
          std::_Exit(13);
        try {
          BufferPool strict(2, kBytes, PinnedMode::kMlock);
          std::_Exit(14);
        } catch (const ConfigError&) {
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace segfeed::memory
