#include "segfeed/cuda_upload.h"

#include <gtest/gtest.h>

#include <string>

#include "memory/pinned_buffer.h"
#include "segfeed/build_info.h"
#include "segfeed/loader.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

// Without a GPU (or without CUDA in the build) the upload must fail loudly,
// say why, and still give the buffer back to the pool.
TEST(CudaUploadTest, WithoutADeviceFailsWithTheReasonAndReleasesTheLease) {
  std::string why_not;
  if (memory::CudaDeviceAvailable(&why_not)) GTEST_SKIP() << "a CUDA device is present";
  testing::TempDir dir;
  demo::DemoOptions demo;
  demo.count = 8;
  demo.width = 64;
  demo.height = 48;
  ASSERT_NO_FATAL_FAILURE(segfeed::testing::WriteDemoPairs(dir.path(), demo));
  LoaderOptions options;
  options.batch_size = 2;
  options.prefetch_batches = 2;
  options.threads = 1;
  options.augment.output_width = options.augment.output_height = 32;
  Loader loader(DatasetSpec::Carvana(dir.path()), options);
  loader.StartEpoch(0);
  // Four batches through two buffers: each lease must come back to the pool
  // (a lost one would stall Next(); CTest's timeout catches that).
  for (int batch = 0; batch < 4; ++batch) {
    std::optional<Lease> lease = loader.Next();
    ASSERT_TRUE(lease.has_value());
    char device_images[1], device_masks[1];
    try {
      UploadAsync(std::move(*lease), device_images, device_masks, nullptr);
      FAIL() << "expected an error without a device";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("UploadAsync"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace segfeed
