#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "demo/demo_scene.h"
#include "result.h"

namespace segfeed::demo {

struct DemoSummary {
  int pairs = 0;
  uint64_t image_bytes = 0;  // all photos together
  uint64_t mask_bytes = 0;   // all masks together
};

// What one thread renders a sample into, reused from sample to sample.
struct DemoScratch {
  std::vector<float> texture;
  DemoRaster raster;
};

// Calls `write(index, scratch)` for every index in [0, count), in parallel on
// `threads` threads (0 = one per core), each thread with its own scratch.
// After the first error no further index is started; that error is returned.
// The files must be a function of the index alone, so the threads only
// change how fast they come.
Status WriteEachSample(int count, int threads,
                       const std::function<Status(int, DemoScratch&)>& write);

// The size of a file just written, 0 when it cannot be read (for the mean
// sizes a summary reports).
uint64_t WrittenBytes(const std::filesystem::path& path);

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
// from worker threads after each pair (may be empty). Throws ConfigError
// for options ValidateDemoOptions() refuses, before anything is written.
Result<DemoSummary> WriteDemoDataset(const std::filesystem::path& out_dir,
                                     const DemoOptions& options,
                                     const std::function<void(int)>& progress);

// WriteDemoDataset() with a "make-demo: done/count pairs" progress line on
// stderr when stderr is a terminal (none in logs), as the commands show it.
Result<DemoSummary> WriteDemoDatasetWithProgress(const std::filesystem::path& out_dir,
                                                 const DemoOptions& options);

}  // namespace segfeed::demo
