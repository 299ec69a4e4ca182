#include "fields.h"

#include <nanobind/stl/string.h>

#include <string>

namespace nb = nanobind;

namespace segfeed::python {
namespace {

template <typename Record>
constexpr const char* kRecordName = nullptr;
// Not "Error": segfeed.Error is the package's exception base class.
template <>
constexpr const char* kRecordName<Error> = "FileProblem";
template <>
constexpr const char* kRecordName<StageSeconds> = "StageSeconds";
template <>
constexpr const char* kRecordName<LoaderStats> = "LoaderStats";
template <>
constexpr const char* kRecordName<MemoryPlan> = "MemoryPlan";
template <>
constexpr const char* kRecordName<Affine2x3> = "Affine2x3";
template <>
constexpr const char* kRecordName<AugmentParams> = "AugmentParams";

// The annotation of a value FieldsDict makes of a `Value`.
template <typename Value>
std::string PythonType() {
  if constexpr (std::is_same_v<Value, bool>) {
    return "bool";
  } else if constexpr (std::is_integral_v<Value>) {
    return "int";
  } else if constexpr (std::is_floating_point_v<Value>) {
    return "float";
  } else if constexpr (std::is_convertible_v<const Value&, std::string_view>) {
    return "str";
  } else if constexpr (std::is_same_v<Value, std::vector<Error>>) {
    return "List[FileProblem]";
  } else {
    static_assert(kRecordName<Value> != nullptr, "a nested record needs a name");
    return kRecordName<Value>;
  }
}

// [(name, annotation), ...] of `Record`'s field list.
template <typename Record>
void AddRecord(nb::dict* records) {
  nb::list fields;
  ForEachField(Record{}, [&fields](std::string_view name, const auto& value) {
    fields.append(
        nb::make_tuple(std::string(name), PythonType<std::remove_cvref_t<decltype(value)>>()));
  });
  (*records)[kRecordName<Record>] = fields;
}

}  // namespace

void BindReportFields(nb::module_& m) {
  m.def(
      "report_fields",
      [] {
        nb::dict records;  // a nested record before the records that hold it
        AddRecord<Error>(&records);
        AddRecord<StageSeconds>(&records);
        AddRecord<LoaderStats>(&records);
        AddRecord<MemoryPlan>(&records);
        AddRecord<Affine2x3>(&records);
        AddRecord<AugmentParams>(&records);
        return records;
      },
      "The fields of the dicts stats(), plan(), Batch.params and the file problems in them give "
      "(the C++ field lists), "
      "by struct name: a list of (name, annotation) each.");
}

}  // namespace segfeed::python
