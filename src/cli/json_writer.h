#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "output/utf8.h"
#include "segfeed/errors.h"

namespace segfeed::tools {

// Builds a JSON document for the --json reports. Keys are written in the
// order given; strings are escaped; non-finite numbers become null. The
// document is always valid UTF-8 JSON, whatever bytes the strings hold.
class JsonWriter {
 public:
  JsonWriter& BeginObject(std::string_view key = {}) { return Open(key, '{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray(std::string_view key = {}) { return Open(key, '['); }
  JsonWriter& EndArray() { return Close(']'); }

  // A string value. JSON text is Unicode but a file name is bytes, so
  // every byte of `value` that is not well-formed UTF-8 is written as
  // U+FFFD; then, inside an object, `<key>_bytes_hex` follows with the
  // exact bytes (BytesHex), so a reader can always tell and recover them.
  // Valid UTF-8 is written as it is, with nothing beside it.
  JsonWriter& String(std::string_view key, std::string_view value) {
    Key(key);
    Quote(value);
    if (!key.empty() && !IsValidUtf8(value)) BytesHex(std::string(key) + "_bytes_hex", value);
    return *this;
  }
  // `value`'s exact bytes as lowercase hex, two digits per byte.
  JsonWriter& BytesHex(std::string_view key, std::string_view value) {
    Key(key);
    out_ += '"';
    for (unsigned char c : value) {
      out_ += "0123456789abcdef"[c >> 4];
      out_ += "0123456789abcdef"[c & 15];
    }
    out_ += '"';
    return *this;
  }
  JsonWriter& Number(std::string_view key, double value) {
    Key(key);
    if (!std::isfinite(value)) {
      out_ += "null";
    } else {
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", value);
      out_ += text;
    }
    return *this;
  }
  // The shortest text that reads back as exactly `value`, for numbers a
  // reader must be able to compare for equality (augmentation parameters).
  JsonWriter& ExactNumber(std::string_view key, double value) {
    if (!std::isfinite(value)) return Number(key, value);
    Key(key);
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out_.append(text, end);
    return *this;
  }
  JsonWriter& Integer(std::string_view key, int64_t value) {
    Key(key);
    out_ += std::to_string(value);
    return *this;
  }
  JsonWriter& Unsigned(std::string_view key, uint64_t value) {
    Key(key);
    out_ += std::to_string(value);
    return *this;
  }
  // An array under `key` of {"path", "kind", "detail"} objects, the form
  // every report gives a file's problem in.
  JsonWriter& Errors(std::string_view key, const std::vector<Error>& errors) {
    BeginArray(key);
    for (const Error& e : errors) {
      BeginObject()
          .String("path", e.path)
          .String("kind", ErrorKindName(e.kind))
          .String("detail", e.detail)
          .EndObject();
    }
    return EndArray();
  }
  JsonWriter& Bool(std::string_view key, bool value) {
    Key(key);
    out_ += value ? "true" : "false";
    return *this;
  }

  const std::string& str() const { return out_; }

 private:
  JsonWriter& Open(std::string_view key, char bracket) {
    Key(key);
    out_ += bracket;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& Close(char bracket) {
    out_ += bracket;
    first_.pop_back();
    return *this;
  }
  // Writes the separator and, inside an object, the key.
  void Key(std::string_view key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
    if (!key.empty()) {
      Quote(key);
      out_ += ':';
    }
  }
  void Quote(std::string_view text) {
    out_ += '"';
    while (!text.empty()) {
      const size_t length = Utf8SequenceLength(text);
      if (length == 0) {
        out_ += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER, for one byte that is not UTF-8
        text.remove_prefix(1);
        continue;
      }
      if (length > 1) {
        out_.append(text.substr(0, length));
        text.remove_prefix(length);
        continue;
      }
      const auto c = static_cast<unsigned char>(text[0]);
      text.remove_prefix(1);
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\r':
          out_ += "\\r";
          break;
        default:
          if (c < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            out_ += escape;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
};

}  // namespace segfeed::tools
