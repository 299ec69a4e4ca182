// PlanMemory() and AddListingToPlan(): the plan is a ceiling made of the
// pool, the scratch ceiling and the read buffers, and it counts the listing.
// `segfeed plan`'s output is tested with the command (tests/cli/plan_test.cc).
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "fixtures/fixtures.h"
#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/loader.h"
#include "segfeed/memory.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(MemoryPlanTest, ProductsBeyondSixtyFourBitsAreAConfigError) {
  LoaderOptions options;
  options.threads = 1;
  options.batch_size = 1 << 30;
  options.prefetch_batches = 1 << 30;
  options.augment.output_width = options.augment.output_height = 16384;
  try {
    PlanMemory(options, 1918, 1280);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the size of the pool does not fit in 64 bits: ", 0), 0u)
        << e.what();
  }
}

// The plan is a ceiling: scratch for the planned photo, a decode budget of
// scratch_headroom times that, two read buffers of max_file_bytes per thread.
TEST(MemoryPlanTest, TotalIsPoolPlusScratchCeilingPlusReadBuffers) {
  LoaderOptions options;
  options.threads = 3;
  const MemoryPlan plan = PlanMemory(options, 1918, 1280);
  EXPECT_EQ(plan.read_buffer_bytes, 3u * 2 * (16u << 20));
  // 959x640 RGB at 1/2 scale plus the 1918x1280 mask, times the headroom,
  // plus the decoders' fixed allowance (64 KiB).
  EXPECT_EQ(plan.decode_budget_bytes_per_thread,
            static_cast<size_t>(4.0 * (959 * 640 * 3 + 1918 * 1280)) + (64 << 10));
  // A progressive photo's coefficients are part of what the headroom
  // multiplies: libjpeg holds them whatever the DCT scale.
  const MemoryPlan progressive =
      PlanMemory(options, 1918, 1280, SourceFormats{false, 0, 7'372'800});
  EXPECT_EQ(progressive.decode_budget_bytes_per_thread,
            plan.decode_budget_bytes_per_thread + size_t{4} * 7'372'800);
  EXPECT_GT(plan.scratch_ceiling_bytes, 3 * plan.decode_budget_bytes_per_thread);
  EXPECT_GE(plan.scratch_ceiling_bytes, plan.scratch_bytes);
  EXPECT_EQ(plan.total_bytes,
            plan.pool_bytes + plan.scratch_ceiling_bytes + plan.read_buffer_bytes);
}

// Empty files are enough: listing reads names only.
DatasetSpec ManyPairs(const TempDir& dir, int count) {
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "train_masks");
  for (int i = 0; i < count; ++i) {
    char stem[32];
    std::snprintf(stem, sizeof stem, "%08x_%02d", i * 2654435761u, i % 16);
    std::ofstream(dir / "train" / (std::string(stem) + ".jpg"));
    std::ofstream(dir / "train_masks" / (std::string(stem) + "_mask.gif"));
  }
  return DatasetSpec::Carvana(dir.path());
}

size_t HeapBytesInUse() { return mallinfo2().uordblks; }

// The listing costs a few bytes per pair plus the stems, not a path object
// per file (~0.8 KB per pair before), and the plan's listing figure covers
// what it holds without overstating it by much.
TEST(MemoryPlanTest, CountsWhatTheCompactListingHolds) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP()
      << "sanitizer allocators do not report through mallinfo2 and keep freed memory in quarantine";
#endif
  TempDir dir;
  constexpr int kPairs = 10000;
  const DatasetSpec spec = ManyPairs(dir, kPairs);
  std::optional<Dataset> dataset;
  const size_t before = HeapBytesInUse();
  const int64_t peak_growth = testing::PeakRssGrowthBytes([&] { dataset = ListDataset(spec); });
  const size_t held = HeapBytesInUse() - before;
  ASSERT_EQ(dataset->pairs.size(), static_cast<size_t>(kPairs));
  const size_t stem_bytes = 11u * kPairs;
  std::cout << "listing " << kPairs << " pairs: " << held / kPairs
            << " bytes per pair held, peak RSS growth " << peak_growth / kPairs
            << " bytes per pair\n";
  EXPECT_LE(held, 100u * kPairs + stem_bytes);
  MemoryPlan plan;
  AddListingToPlan(*dataset, &plan);
  EXPECT_GE(plan.listing_bytes, held);
  EXPECT_LE(plan.listing_bytes, 2 * held + 16u * kPairs);
  // While listing, the names of both folders are held once more.
  if (peak_growth >= 0) {
    EXPECT_LE(static_cast<size_t>(peak_growth), 4 * plan.listing_bytes + (size_t{4} << 20));
  }
  // Pairs are made on access, with the paths the files have.
  const SamplePair last = dataset->pairs[kPairs - 1];
  EXPECT_TRUE(fs::exists(last.image_path)) << last.image_path;
  EXPECT_TRUE(fs::exists(last.mask_path)) << last.mask_path;
  EXPECT_EQ(last.mask_path.filename().string(), last.stem + "_mask.gif");
}

}  // namespace
}  // namespace segfeed

namespace segfeed {
namespace {

// PNG photos have no DCT scaling: the plan holds the full-size photo, and a
// PNG mask's samples beside its values.
TEST(MemoryPlanTest, CountsPngPhotosAtFullSizeAndPngMaskSamples) {
  LoaderOptions options;
  options.threads = 1;
  const MemoryPlan jpeg = PlanMemory(options, 2048, 1024);
  const MemoryPlan png = PlanMemory(options, 2048, 1024, SourceFormats{true, 0});
  const MemoryPlan png_masks = PlanMemory(options, 2048, 1024, SourceFormats{true, 2});
  const size_t pixels = size_t{2048} * 1024;
  // 512x512 from 2048x1024: JPEG decodes at 1/2; PNG at full size.
  EXPECT_GE(png.scratch_bytes_per_thread - jpeg.scratch_bytes_per_thread, pixels * 3 * 3 / 4);
  EXPECT_EQ(png_masks.scratch_bytes_per_thread - png.scratch_bytes_per_thread, pixels * 2);
  EXPECT_GT(png.decode_budget_bytes_per_thread, jpeg.decode_budget_bytes_per_thread);
}

}  // namespace
}  // namespace segfeed
