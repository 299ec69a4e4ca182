#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "demo/demo_scene.h"
#include "result.h"

namespace segfeed::tools {

struct DemoSummary {
  int pairs = 0;
  uint64_t jpeg_bytes = 0;
  uint64_t gif_bytes = 0;
};

// Writes `out_dir/train/<stem>.jpg` and `out_dir/train_masks/<stem>_mask.gif`
// for every sample, in parallel. Each file is written under a hidden
// temporary name and renamed when complete, so an interrupted run never
// leaves a truncated file that looks finished. `progress(done)` is called
// from worker threads after each pair (may be empty).
internal::Result<DemoSummary> WriteDemoDataset(const std::filesystem::path& out_dir,
                                               const DemoOptions& options,
                                               const std::function<void(int)>& progress);

// WriteDemoDataset() with a "make-demo: done/count pairs" progress line on
// stderr when stderr is a terminal (none in logs), as the commands show it.
internal::Result<DemoSummary> WriteDemoDatasetWithProgress(const std::filesystem::path& out_dir,
                                                           const DemoOptions& options);

}  // namespace segfeed::tools
