#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "result.h"

namespace segfeed::tools {

// Shape of a synthetic Carvana-like dataset (see `segfeed make-demo --help`).
enum class DemoMaskRows { kSequential, kInterlaced, kMixed };

struct DemoOptions {
  // Number of image/mask pairs.
  int count = 100;
  // Every byte of every file is a function of (seed, index, options).
  uint64_t seed = 0;
  // Pixels per image and mask; Carvana's photos are 1918x1280.
  int width = 1918;
  int height = 1280;
  // JPEG quality (1-100), always with 4:2:0 chroma subsampling like the
  // photos it imitates.
  int quality = 90;
  // Row order of the GIF masks: top to bottom (what Carvana's masks use),
  // interlaced (what Pillow and many tools write by default), or mixed
  // (every other mask interlaced).
  DemoMaskRows mask_rows = DemoMaskRows::kSequential;
};

// One rendered sample: an RGB photo of a car on a studio floor and its mask.
struct DemoRaster {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;   // height x width x 3, row-major
  std::vector<uint8_t> mask;  // height x width, 1 = car, 0 = background
};

// Carvana-style file stem, "<8 hex digits of the car>_<view 01-16>"; unique
// within one dataset (16 views per car, car ids are a bijection of the index).
std::string DemoStem(uint64_t seed, int index);

// Renders sample `index` into `out`, reusing its buffers. Deterministic:
// uses only integer hashing and IEEE +, -, *, / and sqrt, so the pixels do
// not depend on the thread, the libm or the vector unit.
void RenderDemoSample(const DemoOptions& options, int index, DemoRaster* out);

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
