#include "memory/cuda_driver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "memory/pinned_buffer.h"
#include "segfeed/errors.h"

namespace segfeed::memory {
namespace {

// Where the tests run there is no NVIDIA driver (the toolkit's stubs folder
// holds libcuda.so, never libcuda.so.1, and is not on the library path).
// The fake drivers of cuda_driver_fake_test.cc cover a loadable one.
class CudaDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
      dlclose(library);
      GTEST_SKIP() << "libcuda.so.1 is loadable here";
    }
    dlerror_ = dlerror();
  }
  std::string dlerror_;  // what dlopen says about libcuda.so.1 here
};

TEST_F(CudaDriverTest, WithoutLibcudaTheReasonNamesTheLibraryAndDlerror) {
  const CudaDriver& driver = CudaDriver::Get();
  EXPECT_FALSE(driver.usable());
  EXPECT_EQ(driver.why_not(), "libcuda.so.1 not loadable: " + dlerror_);
  std::string why_not;
  EXPECT_EQ(driver.HostAlloc(4096, &why_not), nullptr);
  EXPECT_EQ(why_not, driver.why_not());
  driver.HostFree(nullptr);  // harmless
}

TEST_F(CudaDriverTest, AutoFallsBackWithTheDriversReason) {
  PinnedBuffer buffer(1 << 16, PinnedMode::kAuto);
  EXPECT_NE(buffer.kind(), PoolKind::kCudaHost);
  EXPECT_EQ(buffer.fallback_reason().rfind("libcuda.so.1 not loadable: " + dlerror_, 0), 0u)
      << buffer.fallback_reason();
  std::string why_not;
  EXPECT_FALSE(CudaDeviceAvailable(&why_not));
  EXPECT_EQ(why_not, "libcuda.so.1 not loadable: " + dlerror_);
}

TEST_F(CudaDriverTest, CudaModeIsAConfigErrorNamingTheReason) {
  try {
    PinnedBuffer buffer(4096, PinnedMode::kCuda);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pinned=cuda is impossible: libcuda.so.1 not loadable: " + dlerror_);
  }
}

}  // namespace
}  // namespace segfeed::memory
