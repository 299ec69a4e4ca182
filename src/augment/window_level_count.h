#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "augment/raster_view.h"
#include "segfeed/augment.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// How many pixels of each level (a label map's class) a raster holds.
using LevelCounts = std::array<int64_t, 256>;

// Output pixels in a row along one axis that read the same source index.
struct IndexRun {
  int index = 0;
  int length = 0;
};

// The run lists CountWindowLevels() builds: at most one run per output
// column and per output row, so reserving the output size once keeps the
// steady state free of allocations.
struct LevelCountScratch {
  std::vector<IndexRun> columns;
  std::vector<IndexRun> rows;
};

// How often each level occurs in a raster: four tables, so that a run of one
// level (a window of background) does not wait on the store of the increment
// before.
LevelCounts CountLevels(const uint8_t* bytes, size_t size);

// The levels of the label-map window that WarpMaskOnly(options, params,
// mask, fill, ...) would write (options' output size), without writing it:
// every pixel the warp takes from `mask` is counted, those it fills are not.
// Exact, for crop_max_class_ratio's decision. Where the window neither turns
// nor shears (each output row reads one source row, at the same columns) it
// visits each distinct source row and column of the window once, weighted
// by how many output pixels repeat it: a window zoomed in costs its source
// area, and its padding nothing. Returns false, `counts` untouched, where it
// turns or lies beyond the fixed-point warp: the caller warps and counts.
bool CountWindowLevels(const AugmentOptions& options, const AugmentParams& params,
                       const RasterView& mask, LevelCountScratch* scratch, LevelCounts* counts);

}  // namespace segfeed::augment
