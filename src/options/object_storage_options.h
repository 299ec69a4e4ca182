#pragma once

#include <memory>
#include <vector>

#include "segfeed/option_table.h"

namespace segfeed::options {

// The option table's entries for ObjectStorageOptions (shards in object
// storage): appended after the decode options, none of them in the stream.
void AddObjectStorageOptions(std::vector<std::unique_ptr<const OptionSpec>>& table);

}  // namespace segfeed::options
