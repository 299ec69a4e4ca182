#include "options.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/option_table.h"

namespace nb = nanobind;

namespace segfeed::python {
namespace {

std::string Repr(nb::handle value) { return nb::cast<std::string>(nb::repr(value)); }

// NumPy's bool scalar is no subclass of Python's bool, and has no __index__.
bool IsNumpyBool(PyObject* value) {
  const std::string_view type = Py_TYPE(value)->tp_name;
  return type == "numpy.bool_" || type == "numpy.bool";
}

// One Python scalar as the table takes it, or nothing when `value` is no
// scalar. bool comes before int (a bool is an int in Python); integers come
// through __index__ (NumPy integers too), reals through __float__.
std::optional<OptionScalar> ToScalar(std::string_view name, nb::handle value) {
  PyObject* object = value.ptr();
  if (PyBool_Check(object) || IsNumpyBool(object))
    return OptionScalar(PyObject_IsTrue(object) == 1);
  if (PyUnicode_Check(object)) return OptionScalar(nb::cast<std::string>(value));
  // A pathlib.Path (cache_dir): its text, as os.fspath() gives it.
  if (PyObject_HasAttrString(object, "__fspath__")) {
    const nb::object text = nb::steal(PyOS_FSPath(object));
    if (!text.is_valid()) nb::raise_python_error();
    if (PyUnicode_Check(text.ptr())) return OptionScalar(nb::cast<std::string>(text));
  }
  // An array has __index__ and __float__ too, which fail unless it holds one
  // number; then it is read as a sequence (ToOptionValue).
  const nb::object index = PyIndex_Check(object) ? nb::steal(PyNumber_Index(object)) : nb::object();
  if (PyIndex_Check(object) && !index.is_valid()) PyErr_Clear();
  if (index.is_valid()) {
    int overflow = 0;
    const long long as_signed = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow == 0 && !(as_signed == -1 && PyErr_Occurred())) {
      return OptionScalar(static_cast<int64_t>(as_signed));
    }
    PyErr_Clear();
    if (overflow > 0) {
      const unsigned long long as_unsigned = PyLong_AsUnsignedLongLong(index.ptr());
      if (!PyErr_Occurred()) return OptionScalar(static_cast<uint64_t>(as_unsigned));
      PyErr_Clear();
    }
    // Beyond what any option holds: the table's words for a too large int.
    throw ConfigError(std::string(name) + " is out of range (got " + Repr(index) + ")");
  }
  const PyNumberMethods* number = Py_TYPE(object)->tp_as_number;
  if (PyFloat_Check(object) || (number && number->nb_float)) {
    const double real = PyFloat_AsDouble(object);
    if (!(real == -1.0 && PyErr_Occurred())) return OptionScalar(real);
    PyErr_Clear();
  }
  return std::nullopt;
}

// A value no option takes (a dict, an object): the table's own words for a
// wrong type, which it gives for an empty sequence (no option takes one),
// with the value's repr.
[[noreturn]] void NoOptionValue(const OptionSpec& option, nb::handle value) {
  LoaderOptions scratch;
  std::string message;
  try {
    option.Set(scratch, std::vector<OptionScalar>{});
  } catch (const OptionTypeError& e) {
    message = e.what();
  }
  const std::string_view empty_got = "(got ())";
  if (message.size() > empty_got.size() &&
      std::string_view(message).substr(message.size() - empty_got.size()) == empty_got) {
    message.resize(message.size() - empty_got.size());
  } else {
    message = std::string(option.name()) + " must be " + option.Accepts() + " ";
  }
  throw OptionTypeError(message + "(got " + Repr(value) + ")");
}

// A dict key or value, or a nested sequence's item, as the text of an
// entry: a scalar's own text, a sequence's items joined by commas
// ((128, 0, 0) -> "128,0,0"). The option parses and checks it.
std::string EntryText(const OptionSpec& option, nb::handle item, nb::handle whole) {
  if (std::optional<OptionScalar> scalar = ToScalar(option.name(), item)) {
    return std::visit(
        [](const auto& v) -> std::string {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::string>)
            return v;
          else if constexpr (std::is_same_v<V, bool>)
            return v ? "true" : "false";
          else if constexpr (std::is_same_v<V, double>)
            return std::to_string(v);
          else
            return std::to_string(v);
        },
        *scalar);
  }
  PyObject* object = item.ptr();
  if (!PySequence_Check(object) || PyUnicode_Check(object) || PyBytes_Check(object))
    NoOptionValue(option, whole);
  std::string text;
  const nb::object parts = nb::steal(PySequence_Fast(object, "not a sequence"));
  if (!parts.is_valid()) nb::raise_python_error();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(parts.ptr()); ++i) {
    PyObject* part = PySequence_Fast_GET_ITEM(parts.ptr(), i);
    std::optional<OptionScalar> scalar = ToScalar(option.name(), part);
    if (!scalar || std::holds_alternative<std::string>(*scalar)) NoOptionValue(option, whole);
    if (i > 0) text += ",";
    text += EntryText(option, part, whole);
  }
  return text;
}

OptionValue ToOptionValue(const OptionSpec& option, nb::handle value) {
  if (value.is_none()) return std::monostate{};
  if (std::optional<OptionScalar> scalar = ToScalar(option.name(), value)) return *scalar;
  PyObject* object = value.ptr();
  // A mapping (label_map={7: 0}, mask_colors={(128, 0, 0): 1}) reaches the
  // option as its entries' text, "7:0" and "128,0,0:1".
  if (PyDict_Check(object)) {
    std::vector<OptionScalar> entries;
    PyObject *key = nullptr, *item = nullptr;
    Py_ssize_t position = 0;
    while (PyDict_Next(object, &position, &key, &item)) {
      entries.emplace_back(EntryText(option, key, value) + ":" + EntryText(option, item, value));
    }
    if (entries.empty()) return std::monostate{};
    return entries;
  }
  if (!PySequence_Check(object) || PyBytes_Check(object) || PyByteArray_Check(object)) {
    NoOptionValue(option, value);
  }
  const nb::object items = nb::steal(PySequence_Fast(object, "not a sequence"));
  if (!items.is_valid()) nb::raise_python_error();
  std::vector<OptionScalar> scalars;
  const Py_ssize_t count = PySequence_Fast_GET_SIZE(items.ptr());
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(items.ptr(), i);
    std::optional<OptionScalar> scalar = ToScalar(option.name(), item);
    // A sequence of sequences (mask_colors=[(0, 0, 0), (128, 0, 0)]): each
    // inner one as its text.
    if (!scalar && PySequence_Check(item) && !PyUnicode_Check(item))
      scalar = OptionScalar(EntryText(option, item, value));
    if (!scalar) NoOptionValue(option, value);
    scalars.push_back(std::move(*scalar));
  }
  return scalars;
}

nb::object ToPython(const OptionScalar& scalar) {
  return std::visit([](const auto& value) { return nb::cast(value); }, scalar);
}

nb::object ToPython(const OptionValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return nb::none();
  if (const auto* scalar = std::get_if<OptionScalar>(&value)) return ToPython(*scalar);
  nb::list items;
  for (const OptionScalar& item : std::get<std::vector<OptionScalar>>(value)) {
    items.append(ToPython(item));
  }
  return nb::tuple(items);
}

// The kind's name in option_table(): what the Python layer and the stub
// generator switch on.
const char* KindName(OptionKind kind) {
  switch (kind) {
    case OptionKind::kInt:
      return "int";
    case OptionKind::kNumber:
      return "number";
    case OptionKind::kBool:
      return "bool";
    case OptionKind::kChoice:
      return "choice";
    case OptionKind::kRange:
      return "range";
    case OptionKind::kTriple:
      return "triple";
    case OptionKind::kColor:
      return "color";
    case OptionKind::kSize:
      return "size";
    case OptionKind::kIdMap:
      return "id_map";
    case OptionKind::kColorMap:
      return "color_map";
    case OptionKind::kNames:
      return "names";
    case OptionKind::kPath:
      return "path";
    case OptionKind::kBytes:
      return "bytes";
  }
  return "unknown";
}

nb::list OptionTable() {
  const LoaderOptions defaults;
  nb::list table;
  for (const OptionSpec* option : LoaderOptionTable()) {
    nb::list choices;
    for (const OptionChoice& choice : option->Choices()) choices.append(std::string(choice.name));
    nb::dict entry;
    entry["name"] = std::string(option->name());
    entry["flag"] = std::string(option->flag());
    entry["group"] = std::string(OptionGroupName(option->group()));
    entry["kind"] = KindName(option->kind());
    entry["doc"] = std::string(option->doc());
    entry["default"] = ToPython(option->Get(defaults));
    entry["none_means"] = std::string(option->none_means());
    entry["accepts"] = option->Accepts();
    entry["in_stream"] = option->in_stream();
    entry["stream_line_at_default"] = option->stream_line_at_default();
    entry["choices"] = choices;
    table.append(entry);
  }
  return table;
}

nb::tuple RangeTuple(const UniformRange& range) { return nb::make_tuple(range.min, range.max); }

// The two map options as the dicts a user gives them ({7: 0, 8: 1} and
// {(128, 0, 0): 1}, whatever form they came in: a list, a dict, CLI text),
// in their order, rather than as their CLI text; None when empty.
nb::object MapToPython(OptionKind kind, const DecodeOptions& decode) {
  nb::dict out;
  if (kind == OptionKind::kIdMap) {
    for (const LabelMapEntry& entry : decode.label_map) out[nb::int_(entry.source)] = entry.target;
  } else {
    for (const MaskColor& colour : decode.mask_colors) {
      const nb::tuple rgb = nb::make_tuple(colour.rgb[0], colour.rgb[1], colour.rgb[2]);
      if (colour.ignored) {
        out[rgb] = "ignore";
      } else {
        out[rgb] = colour.label;
      }
    }
  }
  if (out.size() == 0) return nb::none();
  return out;
}

}  // namespace

nb::object OptionValueToPython(const OptionValue& value) { return ToPython(value); }

LoaderOptions LoaderOptionsFromDict(const nb::dict& values) {
  std::vector<std::pair<std::string, OptionValue>> converted;
  for (auto [key, value] : values) {
    std::string name = nb::cast<std::string>(nb::str(key));
    const OptionSpec* option = FindOption(name);
    if (!option) throw ConfigError("unknown option '" + name + "'");
    converted.emplace_back(std::move(name), ToOptionValue(*option, value));
  }
  return OptionsFromValues(converted);
}

nb::dict OptionsToDict(const LoaderOptions& options) {
  nb::dict out;
  for (const OptionSpec* option : LoaderOptionTable()) {
    const nb::str name(option->name().data(), option->name().size());
    const OptionKind kind = option->kind();
    out[name] = kind == OptionKind::kIdMap || kind == OptionKind::kColorMap
                    ? MapToPython(kind, options.decode)
                    : ToPython(option->Get(options));
  }
  const AugmentOptions& augment = options.augment;
  out["output_width"] = augment.output_width;
  out["output_height"] = augment.output_height;
  out["contrast_enabled"] = augment.contrast_enabled;
  out["contrast_factor"] = RangeTuple(augment.contrast_factor);
  out["brightness_enabled"] = augment.brightness_enabled;
  out["brightness_delta"] = RangeTuple(augment.brightness_delta);
  out["saturation_enabled"] = augment.saturation_enabled;
  out["saturation_factor"] = RangeTuple(augment.saturation_factor);
  out["hue_enabled"] = augment.hue_enabled;
  out["hue_delta"] = RangeTuple(augment.hue_delta);
  out["shard_from_environment"] = options.shard_from_environment;
  return out;
}

void BindOptions(nb::module_& m) {
  m.def("option_table", &OptionTable,
        "Every option of the C++ option table, one dict each: name, flag, group (loader, augment "
        "or decode), kind, doc, default, none_means, accepts, in_stream, stream_line_at_default, "
        "choices.");
  m.def(
      "options_from_values",
      [](const nb::dict& values) { return OptionsToDict(LoaderOptionsFromDict(values)); },
      nb::arg("values"),
      "The options the table makes of `values` (option name -> value), checked and validated "
      "as a Loader would, as a dict (see Loader.options).");
  m.def(
      "option_text",
      [](const std::string& name, nb::handle value) {
        const OptionSpec* option = FindOption(name);
        if (!option) throw ConfigError("unknown option '" + name + "'");
        // The option alone, on the defaults: the rules between options are
        // the command's to apply, after its dataset's layout.
        LoaderOptions scratch;
        option->Set(scratch, ToOptionValue(*option, value));
        return option->Text(scratch);
      },
      nb::arg("name"), nb::arg("value"),
      "`value` as the option's command-line flag takes it (\"7:0,8:1\" for {7: 0, 8: 1}), "
      "converted and checked by the option's entry alone, with its messages.");
  m.def(
      "stream_options_digest",
      [](const nb::dict& values) { return StreamOptionsDigest(LoaderOptionsFromDict(values)); },
      nb::arg("values"),
      "16 hex digits naming the options of `values` that change the stream's bytes.");
}

}  // namespace segfeed::python
