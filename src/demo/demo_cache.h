#pragma once

#include <filesystem>

#include "demo/demo_dataset.h"
#include "result.h"

namespace segfeed::demo {

// The folder where generated demo datasets are kept between runs:
// $SEGFEED_CACHE_DIR, else $XDG_CACHE_HOME/segfeed, else ~/.cache/segfeed.
std::filesystem::path DemoCacheRoot();

// A demo dataset for `options` under DemoCacheRoot(), written with make-demo
// the first time and reused afterwards. Written into a temporary folder and
// renamed when complete, so an interrupted or concurrent run never leaves a
// half-written dataset that later runs would trust.
Result<std::filesystem::path> EnsureDemoDataset(const DemoOptions& options);

}  // namespace segfeed::demo
