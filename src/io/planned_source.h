#pragma once

#include <string>
#include <vector>

#include "result.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"
#include "source/sample_source.h"

namespace segfeed::io {

// The photo size a memory plan is made for, read from the photos' headers
// only, and how the sampled photos and masks are stored.
struct PlannedSource {
  int width = 0;
  int height = 0;
  SourceFormats formats;
  int headers_read = 0;      // of the sampled pairs, how many headers parsed
  std::string example_path;  // a photo of exactly this size
};

// The median (by pixel count) of the photo sizes of up to kSampledPairs
// samples spread evenly over `samples` (read through it: the plan does not
// know which source it has), so that neither one outlier nor a first
// file that happens to be broken decides the budget of every thread. Only
// the headers are read. An error names the last file that failed when no
// sampled header parses, or says that there are no pairs.
Result<PlannedSource> PlanSourceFromHeaders(source::SampleSource& samples,
                                            const DecodeOptions& decode);

inline constexpr int kSampledPairs = 9;

}  // namespace segfeed::io
