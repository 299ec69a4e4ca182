#include "cli/check_html_text.h"

#include "output/printable.h"

namespace segfeed::cli {

std::string HtmlText(std::string_view bytes) {
  const std::string printable = output::PrintableText(bytes);
  std::string html;
  html.reserve(printable.size());
  for (char c : printable) {
    switch (c) {
      case '&':
        html += "&amp;";
        break;
      case '<':
        html += "&lt;";
        break;
      case '>':
        html += "&gt;";
        break;
      case '"':
        html += "&quot;";
        break;
      case '\'':
        html += "&#39;";
        break;
      default:
        html += c;
    }
  }
  return html;
}

}  // namespace segfeed::cli
