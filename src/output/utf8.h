#pragma once

#include <cstddef>
#include <string_view>

namespace segfeed::output {

// File names on Linux are bytes, not text: any byte but '/' and NUL. These
// tell which bytes of such a name are well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), so the reports can
// show the text and say exactly where it is not text.

// The length (1-4) of the well-formed UTF-8 sequence that `text` starts
// with, or 0 when its first byte does not start one (or `text` is empty).
size_t Utf8SequenceLength(std::string_view text);

// True when all of `text` is well-formed UTF-8.
bool IsValidUtf8(std::string_view text);

// The longest prefix of `text` of at most `max_bytes` bytes that does not
// cut a well-formed sequence in two; a byte outside any sequence counts as
// one character. For shortening a name without leaving half a character.
std::string_view Utf8Prefix(std::string_view text, size_t max_bytes);

}  // namespace segfeed::output
