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
  uint64_t image_bytes = 0;  // all photos together
  uint64_t mask_bytes = 0;   // all masks together
};

// The file names of sample `stem`'s photo and mask for `options`:
// "<stem>.jpg" or "<stem>.png"; "<stem>_mask.gif" (classes 0) or
// "<stem>_mask.png".
std::string DemoImageName(const DemoOptions& options, const std::string& stem);
std::string DemoMaskName(const DemoOptions& options, const std::string& stem);

// Writes `out_dir/train/<stem>.jpg` and `out_dir/train_masks/<stem>_mask.gif`
// (or the PNGs `options` asks for, see DemoImageName()) for every sample, in
// parallel on `options.threads` threads. Each file is written under a hidden
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
