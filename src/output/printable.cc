#include "output/printable.h"

#include <cstdint>
#include <cstdio>

#include "output/utf8.h"

namespace segfeed::output {

const char* const kNamesHelp = R"(names in the output:
  A file name is bytes, not necessarily text. The text output shows control
  characters and bytes that are not UTF-8 as escapes (\n, \t, \x1b, \xff,
  \u009b, and \\ for a backslash), so one entry is always one line. In the
  JSON, each byte that is not UTF-8 is written as U+FFFD, and the exact bytes
  follow beside the value as "<key>_bytes_hex", e.g. "path_bytes_hex": two
  lowercase hex digits per byte. Valid UTF-8 names have no such field.
)";

std::string PrintableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&](const char* format, unsigned value) {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, format, value);
    out += escaped;
  };
  while (!text.empty()) {
    const size_t length = Utf8SequenceLength(text);
    const auto lead = static_cast<uint8_t>(text[0]);
    if (length == 0) {
      escape("\\x%02x", lead);  // not UTF-8: the raw byte, by value
      text.remove_prefix(1);
      continue;
    }
    if (length == 1) {
      switch (lead) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\\':
          out += "\\\\";
          break;
        default:
          if (lead < 0x20 || lead == 0x7F) {
            escape("\\x%02x", lead);
          } else {
            out += static_cast<char>(lead);
          }
      }
    } else if (length == 2 && lead == 0xC2 && static_cast<uint8_t>(text[1]) <= 0x9F) {
      // U+0080-U+009F: C1 controls, which some terminals obey (CSI, OSC).
      escape("\\u%04x", static_cast<uint8_t>(text[1]));
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace segfeed::output
