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

// Adjacent output rows that read the same source row.
struct IndexRun {
  int index = 0;
  int length = 0;
};

// The row runs CountWindowLevels() builds: at most one per output row, so
// reserving the output height once keeps the steady state free of
// allocations.
struct LevelCountScratch {
  std::vector<IndexRun> rows;
};

// How often each level occurs in a raster: four tables, so that a run of one
// level (a window of background) does not wait on the store of the increment
// before.
LevelCounts CountLevels(const uint8_t* bytes, size_t size);

// The levels of the label-map window that WarpMaskOnly(options, params,
// mask, fill, ...) would write (options' output size), without writing it:
// every pixel the warp takes from `mask` is counted, those it fills are not.
// Exact, for crop_max_class_ratio's decision. Where the window does not turn
// (each output row reads one source row, at the same columns) it visits each
// source row the window reads once, weighted by the output rows repeating
// it, and counts each run of one label in that row's part at once, by the
// output columns whose positions fall in it: the cost is the source bytes
// (16 compared at a time) and the label runs, not the output pixels, and
// padding costs nothing. Returns false, `counts` untouched, where the window
// turns, reads a column mirrored past the photo's edge, or lies beyond the
// fixed-point warp: the caller warps and counts.
bool CountWindowLevels(const AugmentOptions& options, const AugmentParams& params,
                       const RasterView& mask, LevelCountScratch* scratch, LevelCounts* counts);

}  // namespace segfeed::augment
