#pragma once

#include <cstdint>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::tools {

// The two reference points `segfeed bench` compares the loader with, each
// measured in the same process on the same files.

// The decode bound: read + decode of every pair in `pairs` (the JPEG at the
// DCT scale the loader would choose for the output size, the GIF mask at
// full size) on `threads` threads, nothing else. Returns pairs per second.
double DecodeOnlyPairsPerSecond(const std::vector<SamplePair>& pairs, const LoaderOptions& options,
                                int threads);

// The same work the way a user writes it without segfeed: one thread,
// cv::imread of the full-size JPEG, giflib's DGifSlurp for the mask, then
// OpenCV flips, rotation, resize and colour ops one after the other in
// float32, with the loader's own augmentation parameters. Returns pairs per
// second over the first `max_pairs` pairs.
double NaiveBaselinePairsPerSecond(const std::vector<SamplePair>& pairs, const LoaderOptions& options,
                                   int max_pairs);

}  // namespace segfeed::tools
