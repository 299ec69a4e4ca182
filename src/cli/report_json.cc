#include "cli/report_json.h"

#include "output/utf8.h"

namespace segfeed::cli {

std::string JsonText(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size());
  while (!bytes.empty()) {
    const size_t length = output::Utf8SequenceLength(bytes);
    if (length == 0) {
      text += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER, for one byte that is not UTF-8
      bytes.remove_prefix(1);
    } else {
      text.append(bytes.substr(0, length));
      bytes.remove_prefix(length);
    }
  }
  return text;
}

std::string BytesHex(std::string_view bytes) {
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    hex += "0123456789abcdef"[c >> 4];
    hex += "0123456789abcdef"[c & 15];
  }
  return hex;
}

void SetText(Json* object, std::string_view key, std::string_view text) {
  (*object)[JsonText(key)] = JsonText(text);
  if (!output::IsValidUtf8(text)) (*object)[JsonText(key) + "_bytes_hex"] = BytesHex(text);
}

Json ErrorsJson(const std::vector<Error>& errors) {
  Json array = Json::array();
  for (const Error& e : errors) array.push_back(FieldsJson(e));
  return array;
}

std::string DumpJson(const Json& document) {
  // Strict: a string that is not UTF-8 here is a bug (it bypassed JsonText),
  // and an exception says so rather than a report with the bytes lost.
  return document.dump(-1, ' ', false, Json::error_handler_t::strict) + "\n";
}

}  // namespace segfeed::cli
