#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "segfeed/option_table.h"

namespace segfeed::options {

// The option table's entries for ObjectStorageOptions (shards in object
// storage): appended after the decode options, none of them in the stream.
void AddObjectStorageOptions(std::vector<std::unique_ptr<const OptionSpec>>& table);

// Whether the table entry named `name` is one of those: the flags a
// command that only lists and reads a dataset takes (check) besides the
// loader's commands.
bool IsObjectStorageOption(std::string_view name);

}  // namespace segfeed::options
