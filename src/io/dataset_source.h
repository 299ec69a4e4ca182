#pragma once

#include <memory>

#include "segfeed/dataset.h"
#include "source/sample_source.h"

namespace segfeed::io {

// Where a listed dataset's bytes come from, whatever its rule: the shards'
// source it holds, or a FilesSource over its pairs (which refers to
// `dataset`: the dataset must outlive it). What the Loader, the checker,
// `plan` and the bench's baselines read through, so none of them branches
// on the kind of dataset.
std::shared_ptr<source::SampleSource> DatasetSource(const Dataset& dataset);

}  // namespace segfeed::io
