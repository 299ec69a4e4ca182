#pragma once

// How the folder rule reads a file name: the key, then the suffix, then
// the extension ("a_mask.PNG" is the key "a" with suffix "_mask" and
// extension ".png"). Extensions compare without case, ASCII only; the rest
// of a name compares bytewise, so UTF-8 names are never touched.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace segfeed::dataset {

// The length of `name` without `suffix` and one of `extensions` (the first
// that matches, case insensitive); 0 when it does not end that way or no
// key is left.
size_t KeyLength(std::string_view name, std::string_view suffix,
                 const std::vector<std::string>& extensions);

}  // namespace segfeed::dataset
