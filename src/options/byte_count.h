#pragma once

// Byte counts as people write them, for the byte options of the table
// (cache_limit) and `segfeed pack --shard-size`: digits and an optional
// unit, binary (KiB, MiB, GiB) or decimal (KB, MB, GB), or B.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace segfeed::options {

// "10GiB" -> 10737418240, "4096" -> 4096; nullopt for any other unit, a
// sign, a fraction or a count past int64's range.
std::optional<int64_t> ParseByteCount(std::string_view text);

// The shortest exact spelling: the largest unit that divides the count
// ("10GiB", "3MB"), else the bare number ("4097").
std::string ByteCountText(int64_t bytes);

}  // namespace segfeed::options
