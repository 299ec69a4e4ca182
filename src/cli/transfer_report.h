#pragma once

#include <cstddef>
#include <string>

#include "segfeed/loader.h"

namespace segfeed::cli {

// bench's lines on a dataset in object storage: requests, retries and
// connections, and what the local cache did when there is one; empty for a
// local dataset. `seconds` is the run's, `read_ahead_bytes` the plan's.
std::string TransferReport(const LoaderStats& stats, double seconds, size_t read_ahead_bytes);

}  // namespace segfeed::cli
