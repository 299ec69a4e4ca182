#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace segfeed::dataset {

// WebDataset's brace notation for shard names, as its users write them
// (the `braceexpand` rules): "train-{000000..000031}.tar" is every number
// from the first to the last (counting down when the first is larger),
// zero-padded to the wider end when either is written with a leading zero;
// "{a,b}" is each alternative. Several braces expand left to right, the
// last varying fastest. A pattern without braces is itself. ConfigError
// (naming the pattern) for an unclosed, empty or nested brace, a range whose ends
// are not both numbers, or more than kMaxBraceNames names.
inline constexpr size_t kMaxBraceNames = 65535;  // a shard index's limit
std::vector<std::string> ExpandBraces(std::string_view pattern);

// Whether `text` holds a brace ExpandBraces() would expand.
bool HasBraces(std::string_view text);

}  // namespace segfeed::dataset
