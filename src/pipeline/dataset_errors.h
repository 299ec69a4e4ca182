#pragma once

// The errors a Loader raises about its dataset at construction, before it
// streams anything: what was found, what was expected, and what to change.

#include <string>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/errors.h"

namespace segfeed::pipeline {

// What a Loader with OnBadFile::kFail says about images without a mask
// (`missing`, not empty): the first one as the error, the next few and the
// count in its detail, counted as `noun`s ("2 more unpaired files"; a
// damaged shard's lost samples are "shard problem"s).
FileError UnpairedImagesError(const std::vector<Error>& missing,
                              const std::string& noun = "unpaired file");

// Why a listing has no complete pair, with what was found and the layout
// that was expected.
std::string NoPairsMessage(const DatasetSpec& spec, const Dataset& dataset);

}  // namespace segfeed::pipeline
