#pragma once

#include <concepts>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::cli {

// The --json reports are nlohmann::ordered_json documents: keys stay in the
// order they are set. Strings go in through JsonText or SetText only, so a
// document always dumps as valid UTF-8 whatever bytes the file names hold.
using Json = nlohmann::ordered_json;

// `bytes` as JSON text: every byte that is not part of a well-formed UTF-8
// sequence becomes one U+FFFD; valid UTF-8 stays as it is. (nlohmann's own
// error_handler_t::replace replaces a whole cut sequence with one U+FFFD,
// so the replaced text would not line up with the bytes beside it.)
std::string JsonText(std::string_view bytes);

// `bytes` exactly, as lowercase hex, two digits per byte.
std::string BytesHex(std::string_view bytes);

// Sets object[key] to JsonText(text) and, when `text` is not UTF-8,
// `<key>_bytes_hex` right after it to its exact bytes, so a reader can always
// tell a replaced name and recover it.
void SetText(Json* object, std::string_view key, std::string_view text);

// An array of Error's fields ({"path", "kind", "detail", "message"}, its
// ForEachField list), the form every report gives a file's problem in.
Json ErrorsJson(const std::vector<Error>& errors);

// The compact document and a newline. Never throws: every string in it came
// through JsonText.
std::string DumpJson(const Json& document);

// True for a struct with a field list (ForEachField beside it).
template <typename Record>
concept HasFieldList = requires(const Record& record) {
  ForEachField(record, [](std::string_view, const auto&) {});
};

template <HasFieldList Record>
Json FieldsJson(const Record& record);

// Adds `record`'s fields to `object` under their ForEachField names, in that
// order: text through SetText, a nested struct as an object, errors as
// ErrorsJson, numbers as they are (NaN and infinities become null).
template <HasFieldList Record>
void AddFields(Json* object, const Record& record) {
  ForEachField(record, [object](std::string_view name, const auto& value) {
    using Value = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_convertible_v<const Value&, std::string_view>) {
      SetText(object, name, value);
    } else if constexpr (std::is_same_v<Value, std::vector<Error>>) {
      (*object)[std::string(name)] = ErrorsJson(value);
    } else if constexpr (HasFieldList<Value>) {
      (*object)[std::string(name)] = FieldsJson(value);
    } else {
      static_assert(std::is_arithmetic_v<Value>,
                    "a field list holds numbers, text, records, errors");
      (*object)[std::string(name)] = value;
    }
  });
}

// `record`'s fields as a JSON object of their own.
template <HasFieldList Record>
Json FieldsJson(const Record& record) {
  Json object = Json::object();
  AddFields(&object, record);
  return object;
}

}  // namespace segfeed::cli
