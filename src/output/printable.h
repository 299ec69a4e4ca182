#pragma once

#include <string>
#include <string_view>

namespace segfeed::output {

// `text` made safe to print on a terminal or in a log, one line per report
// entry: a file name may hold any byte but '/' and NUL, and printed raw a
// newline would split one problem over two lines, and an escape sequence
// would reach the terminal. Every control character and every byte that is
// not well-formed UTF-8 is shown as a visible escape instead:
//
//   \n \r \t       newline, carriage return, tab
//   \xNN           any other C0 control (\x1b is ESC), DEL (\x7f), and a
//                  byte that is not part of well-formed UTF-8 (\xff)
//   \u0080-\u009f  a C1 control character (U+009B is a one-character CSI)
//   \\             a backslash, so that every escape reads back unambiguously
//
// Well-formed UTF-8 text otherwise passes unchanged: "é" stays "é". Use it
// on every name, path, or message that carries one, before printing.
std::string PrintableText(std::string_view text);

// For the commands' --help: how names appear in their text and JSON output.
extern const char* const kNamesHelp;

}  // namespace segfeed::output
