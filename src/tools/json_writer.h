#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace segfeed::tools {

// Builds a JSON document for the --json reports. Keys are written in the
// order given; strings are escaped; non-finite numbers become null.
class JsonWriter {
 public:
  JsonWriter& BeginObject(std::string_view key = {}) { return Open(key, '{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray(std::string_view key = {}) { return Open(key, '['); }
  JsonWriter& EndArray() { return Close(']'); }

  JsonWriter& String(std::string_view key, std::string_view value) {
    Key(key);
    Quote(value);
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
    for (unsigned char c : text) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        case '\r': out_ += "\\r"; break;
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
