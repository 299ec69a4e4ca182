#pragma once

#include <nanobind/nanobind.h>

#include <string_view>
#include <type_traits>
#include <vector>

#include "fs_text.h"
#include "segfeed/augment.h"
#include "segfeed/errors.h"
#include "segfeed/loader.h"
#include "segfeed/memory.h"

namespace segfeed::python {

// The reported structs (LoaderStats, StageSeconds, MemoryPlan,
// AugmentParams, Error as FileProblem) as Python dicts, walked through their ForEachField field
// lists: the keys are the C++ field names, in their order, the same keys as
// the command's --json reports.

// True for a struct with a field list (ForEachField beside it).
template <typename Record>
concept HasFieldList = requires(const Record& record) {
  ForEachField(record, [](std::string_view, const auto&) {});
};

template <HasFieldList Record>
nanobind::dict FieldsDict(const Record& record);

// Each file's problem as a dict of Error's field list ("path", "kind",
// "detail", "message"); names are decoded as os.fsdecode() does.
inline nanobind::list ErrorList(const std::vector<Error>& errors) {
  nanobind::list out;
  for (const Error& e : errors) out.append(FieldsDict(e));
  return out;
}

// `record` as a dict: numbers as int, float or bool, text as str (decoded
// as os.fsdecode() does), errors as lists of Error dicts, nested structs as
// dicts of their own.
template <HasFieldList Record>
nanobind::dict FieldsDict(const Record& record) {
  nanobind::dict d;
  ForEachField(record, [&d](std::string_view name, const auto& value) {
    using Value = std::remove_cvref_t<decltype(value)>;
    const nanobind::str key(name.data(), name.size());
    if constexpr (std::is_convertible_v<const Value&, std::string_view>) {
      d[key] = FsText(value);
    } else if constexpr (std::is_same_v<Value, std::vector<Error>>) {
      d[key] = ErrorList(value);
    } else if constexpr (HasFieldList<Value>) {
      d[key] = FieldsDict(value);
    } else {
      static_assert(std::is_arithmetic_v<Value>,
                    "a field list holds numbers, text, records, errors");
      d[key] = value;
    }
  });
  return d;
}

// segfeed._core.report_fields(): each reported struct's fields with their
// Python types, for the generated stubs (segfeed._stubgen).
void BindReportFields(nanobind::module_& m);

}  // namespace segfeed::python
