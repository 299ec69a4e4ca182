#pragma once

// Demo-scene pairs on disk for the tests of the loader: the same scenes
// `segfeed make-demo` renders (demo/demo_scene.h), encoded with the test
// fixtures' encoders (tests/fixtures/fixtures.h), so the tests of the lower stages
// need neither the command nor the output stage's writers.

#include <filesystem>

#include "demo/demo_scene.h"

namespace segfeed::testing {

// Writes options.count pairs in Carvana's layout under `root`:
// train/<DemoStem>.jpg (baseline JPEG at options.quality) and
// train_masks/<DemoStem>_mask.gif (black/white palette, interlaced as
// options.mask_rows says). Fails the current test on a write error.
void WriteDemoPairs(const std::filesystem::path& root, const demo::DemoOptions& options);

}  // namespace segfeed::testing
