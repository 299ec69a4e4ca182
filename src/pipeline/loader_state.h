#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/loader.h"
#include "segfeed/options.h"
#include "source/sample_source.h"

namespace segfeed::pipeline {

// The parts of a LoaderState that a Loader knows once it is made, and the
// checks of Loader::Restore() (loader_state.cc). The fields' reading and
// range checks live in loader_state_fields.cc, LoaderState::Serialize() and
// Parse() in loader_state_text.cc.

// The last epoch a loader starts: the one after it must be a number too.
constexpr int64_t kLastEpoch = std::numeric_limits<int64_t>::max() - 1;

// An excerpt of a malformed value in a message, at most this long.
constexpr size_t kQuotedChars = 40;

// `text` in single quotes, cut to kQuotedChars with "..." after: how the
// state's messages show a line or value they refuse.
std::string QuotedExcerpt(std::string_view text);

// Whether this segfeed resumes a state of `version`.
bool IsResumableVersion(int version);

// "not a segfeed loader state of version ... (got version <version>...)",
// with a hint for the versions of an earlier segfeed.
ConfigError UnresumableVersionError(std::string_view version);

// Throws ConfigError "<source>: <field> ..." unless every field of `state`
// is within its range (the ranges LoaderState::Read() checks), rank is
// below world_size and known_bad names each pair once: what Restore() asks
// of a state made by hand, and Read() of every state it reads.
void CheckStateFields(const LoaderState& state, std::string_view source);

// LoaderState::options: StreamOptionsText(options), one (name, text) per line.
std::vector<std::pair<std::string, std::string>> StreamOptionList(const LoaderOptions& options);

// LoaderState::listing_digest: each sample's key, the last component of
// its image's and mask's names and their sizes in bytes (-1 for a member
// whose size the source cannot tell), in listing order. Asks the source
// for the size of every member (files: one stat(2) each).
std::string ListingDigest(const source::SampleSource& source);

// Throws ConfigError unless `saved` continues the stream that `current`
// describes (positions and shards aside: any rank and world size resume):
// a version this segfeed resumes, the same stream options (naming those
// that differ) and listing, checked in that order, then option lines and a
// seed that agree with the options digest (an edited state). `spec` names the
// folders in the message about the listing.
void CheckResumes(const LoaderState& saved, const LoaderState& current, const DatasetSpec& spec);

}  // namespace segfeed::pipeline
