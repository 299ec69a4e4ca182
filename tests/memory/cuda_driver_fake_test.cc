// Runs with a fake libcuda.so.1 (fake_cuda_driver.cc) first on the library
// path, set by CTest: no GPU is available where the tests run, so these check
// segfeed's binding to the driver, not CUDA. Built twice: against the fake
// with one device, and (FAKE_CUDA_NO_DEVICE) against the one whose cuInit
// fails with CUDA_ERROR_NO_DEVICE.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "memory/cuda_driver.h"
#include "memory/pinned_buffer.h"
#include "segfeed/errors.h"

namespace segfeed::memory {
namespace {

// The fake's count of allocations not yet freed, or -1 when the libcuda.so.1
// segfeed loaded is not the fake.
long LiveAllocations() {
  static_cast<void>(CudaDriver::Get());  // loads the driver if not yet loaded
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (library == nullptr) return -1;
  auto count = reinterpret_cast<long (*)()>(dlsym(library, "fake_cuda_live_allocations"));
  const long live = count ? count() : -1;
  dlclose(library);
  return live;
}

#ifndef FAKE_CUDA_NO_DEVICE

TEST(CudaDriverFakeTest, AutoAndCudaModesGiveCudaHostBuffers) {
  std::string why_not;
  ASSERT_TRUE(CudaDeviceAvailable(&why_not)) << why_not;
  PinnedBuffer automatic(10000, PinnedMode::kAuto);
  EXPECT_EQ(automatic.kind(), PoolKind::kCudaHost);
  EXPECT_TRUE(automatic.fallback_reason().empty()) << automatic.fallback_reason();
  for (size_t i = 0; i < automatic.bytes(); ++i) ASSERT_EQ(automatic.data()[i], std::byte{0});
  PinnedBuffer cuda(4096, PinnedMode::kCuda);
  EXPECT_EQ(cuda.kind(), PoolKind::kCudaHost);
  EXPECT_EQ(LiveAllocations(), 2);
}

TEST(CudaDriverFakeTest, EveryAllocationIsFreedWithItsBuffer) {
  ASSERT_EQ(LiveAllocations(), 0);
  {
    std::vector<PinnedBuffer> buffers;
    for (int i = 0; i < 5; ++i) buffers.emplace_back(size_t{1} << 16, PinnedMode::kCuda);
    EXPECT_EQ(LiveAllocations(), 5);
    PinnedBuffer moved(std::move(buffers[0]));  // ownership moves, no second free
    buffers[1] = std::move(buffers[2]);         // frees buffers[1]'s allocation
    EXPECT_EQ(LiveAllocations(), 4);
    EXPECT_EQ(moved.kind(), PoolKind::kCudaHost);
  }
  EXPECT_EQ(LiveAllocations(), 0);
}

TEST(CudaDriverFakeTest, OffModeDoesNotUseTheDriver) {
  PinnedBuffer off(4096, PinnedMode::kOff);
  EXPECT_EQ(off.kind(), PoolKind::kPageable);
  EXPECT_EQ(LiveAllocations(), 0);
}

#else  // FAKE_CUDA_NO_DEVICE

TEST(CudaDriverNoDeviceTest, AutoFallsBackWithCuInitsError) {
  ASSERT_EQ(LiveAllocations(), 0) << "the fake libcuda.so.1 is not the one loaded";
  PinnedBuffer buffer(1 << 16, PinnedMode::kAuto);
  EXPECT_NE(buffer.kind(), PoolKind::kCudaHost);
  EXPECT_EQ(buffer.fallback_reason().rfind("cuInit failed: CUDA_ERROR_NO_DEVICE (100)", 0), 0u)
      << buffer.fallback_reason();
  EXPECT_EQ(LiveAllocations(), 0);
}

TEST(CudaDriverNoDeviceTest, CudaModeIsAConfigErrorNamingCuInitsError) {
  try {
    PinnedBuffer buffer(4096, PinnedMode::kCuda);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pinned=cuda is impossible: cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
  }
}

#endif

}  // namespace
}  // namespace segfeed::memory
