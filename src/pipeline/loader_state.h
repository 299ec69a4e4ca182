#pragma once

#include <string>
#include <utility>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/loader.h"
#include "segfeed/options.h"

namespace segfeed::internal {

// The parts of a LoaderState that a Loader knows once it is made, and the
// checks of Loader::Restore(). LoaderState::Serialize() and Parse() live
// beside them (loader_state.cc).

// LoaderState::options: StreamOptionsText(options), one (name, text) per line.
std::vector<std::pair<std::string, std::string>> StreamOptionList(const LoaderOptions& options);

// LoaderState::listing_digest: each pair's stem, image and mask file names
// and their sizes in bytes (-1 for a file whose size cannot be read), in
// listing order. Reads the size of every file.
std::string ListingDigest(const PairList& pairs);

// Throws ConfigError unless `saved` continues the stream that `current`
// describes (positions and shards aside: any rank and world size resume):
// a version this segfeed resumes, the same stream options (naming those
// that differ) and listing, checked in that order. `spec` names the
// folders in the message about the listing.
void CheckResumes(const LoaderState& saved, const LoaderState& current, const DatasetSpec& spec);

}  // namespace segfeed::internal
