#pragma once

#include <cstdint>
#include <vector>

#include "result.h"
#include "segfeed/dataset.h"
#include "segfeed/options.h"
#include "source/sample_source.h"

namespace segfeed::cli {

// The two reference points `segfeed bench` compares the loader with, each
// measured in the same process on the same files, read through the
// dataset's source (files or shards, io::DatasetSource).

// The decode bound: read + decode of every sample of `source` (the JPEG at the
// DCT scale the loader would choose for the output size, the GIF mask at
// full size) on `threads` threads, nothing else; the JPEG to RGB whatever
// options.decode.decode_colour says. Returns pairs per second.
double DecodeOnlyPairsPerSecond(source::SampleSource& source, const LoaderOptions& options,
                                int threads);

// The same work the way a user writes it without segfeed: one thread,
// cv::imdecode of the full-size JPEG, giflib's DGifSlurp for the mask, then
// OpenCV flips, rotation, resize and colour ops one after the other in
// float32, with the loader's own augmentation parameters. Returns pairs per
// second over the first `max_pairs` pairs.
//
// Members are read as the loader reads them, through `source` (so a FIFO or
// device is refused without blocking, and a file above
// decode.max_file_bytes is not read), and decoded from memory. The first file that cannot be read
// or decoded stops the measurement: the result is then that file's Error (path and reason) rather
// than a rate measured on less work. Never throws for a bad file. Whether this build has the naive
// loop: it decodes with OpenCV's imgcodecs, which the wheel leaves out
// (SEGFEED_NAIVE_BASELINE=OFF).
bool NaiveBaselineBuilt();

Result<double> NaiveBaselinePairsPerSecond(source::SampleSource& source,
                                           const LoaderOptions& options, int max_pairs);

}  // namespace segfeed::cli
