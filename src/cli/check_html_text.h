#pragma once

#include <string>
#include <string_view>

namespace segfeed::cli {

// `bytes` as HTML text, safe in element content and in a quoted attribute:
// made printable first as the text report prints it (output::PrintableText:
// control characters and bytes that are not well-formed UTF-8 become
// visible escapes such as \xff), then &, <, >, " and ' become entities. A
// file name is thus shown, never interpreted: "<script>" is text.
std::string HtmlText(std::string_view bytes);

}  // namespace segfeed::cli
