#include "options.h"

#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "segfeed/errors.h"

namespace nb = nanobind;

namespace segfeed::python {
namespace {

// Reads the keys of one dict, remembering which were used so that a key the
// binding does not know (a typo in the Python layer) is an error, not ignored.
class DictReader {
 public:
  explicit DictReader(const nb::dict& dict) : dict_(dict) {}

  nb::handle Get(const char* key) {
    used_.insert(key);
    PyObject* value = PyDict_GetItemString(dict_.ptr(), key);  // borrowed
    if (!value) throw ConfigError(std::string("missing option '") + key + "'");
    return value;
  }

  template <typename Int>
  Int GetInt(const char* key) {
    nb::handle value = Get(key);
    if (!PyLong_Check(value.ptr())) throw ConfigError(std::string(key) + " must be an integer");
    int overflow = 0;
    const long long as_signed = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if constexpr (std::is_same_v<Int, uint64_t>) {
      if (overflow == 0 && as_signed >= 0) return static_cast<Int>(as_signed);
      if (overflow > 0) {
        const unsigned long long as_unsigned = PyLong_AsUnsignedLongLong(value.ptr());
        if (!PyErr_Occurred()) return static_cast<Int>(as_unsigned);
        PyErr_Clear();
      }
    } else {
      static_assert(std::is_signed_v<Int>);
      if (overflow == 0 && as_signed >= std::numeric_limits<Int>::min() &&
          as_signed <= std::numeric_limits<Int>::max()) {
        return static_cast<Int>(as_signed);
      }
    }
    throw OutOfRange(key, value);
  }

  double GetDouble(const char* key) {
    nb::handle value = Get(key);
    if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr()))
      throw ConfigError(std::string(key) + " must be a number");
    const double result = PyFloat_AsDouble(value.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw OutOfRange(key, value);
    }
    return result;
  }

  bool GetBool(const char* key) {
    nb::handle value = Get(key);
    if (!PyBool_Check(value.ptr())) throw ConfigError(std::string(key) + " must be True or False");
    return value.ptr() == Py_True;
  }

  std::string GetString(const char* key) {
    nb::handle value = Get(key);
    if (!PyUnicode_Check(value.ptr())) throw ConfigError(std::string(key) + " must be a string");
    return nb::cast<std::string>(value);
  }

  UniformRange GetRange(const char* key) {
    nb::handle value = Get(key);
    if (!PyTuple_Check(value.ptr()) || PyTuple_Size(value.ptr()) != 2) {
      throw ConfigError(std::string(key) + " must be a (min, max) pair");
    }
    return {nb::cast<double>(value[0]), nb::cast<double>(value[1])};
  }

  std::array<float, 3> GetTriple(const char* key) {
    nb::handle value = Get(key);
    if (!PyTuple_Check(value.ptr()) || PyTuple_Size(value.ptr()) != 3) {
      throw ConfigError(std::string(key) + " must be 3 numbers, one per channel (R, G, B)");
    }
    return {nb::cast<float>(value[0]), nb::cast<float>(value[1]), nb::cast<float>(value[2])};
  }

  template <typename Enum>
  Enum GetChoice(const char* key, std::initializer_list<std::pair<const char*, Enum>> choices) {
    const std::string text = GetString(key);
    std::string names;
    for (const auto& [name, value] : choices) {
      if (text == name) return value;
      names += names.empty() ? name : std::string(", ") + name;
    }
    throw ConfigError(std::string(key) + " must be one of " + names + " (got '" + text + "')");
  }

  void CheckAllUsed() const {
    for (auto [key, value] : dict_) {
      const std::string name = nb::cast<std::string>(nb::str(key));
      if (!used_.count(name)) throw ConfigError("unknown option '" + name + "'");
    }
  }

 private:
  static ConfigError OutOfRange(const char* key, nb::handle value) {
    return ConfigError(std::string(key) + " is out of range (got " +
                       nb::cast<std::string>(nb::repr(value)) + ")");
  }

  const nb::dict& dict_;
  std::set<std::string> used_;
};

}  // namespace

LoaderOptions LoaderOptionsFromDict(const nb::dict& dict) {
  DictReader in(dict);
  LoaderOptions options;
  options.batch_size = in.GetInt<int>("batch_size");
  options.prefetch_batches = in.GetInt<int>("prefetch_batches");
  options.threads = in.GetInt<int>("threads");
  options.seed = in.GetInt<uint64_t>("seed");
  options.shuffle = in.GetBool("shuffle");
  options.drop_last = in.GetBool("drop_last");
  options.subset = in.GetChoice<Subset>(
      "subset",
      {{"all", Subset::kAll}, {"train", Subset::kTrain}, {"validation", Subset::kValidation}});
  options.validation_fraction = in.GetDouble("validation_fraction");
  options.rank = in.GetInt<int>("rank");
  options.world_size = in.GetInt<int>("world_size");
  options.shard_from_environment = in.GetBool("shard_from_environment");
  options.on_bad_file = in.GetChoice<OnBadFile>(
      "on_bad_file", {{"fail", OnBadFile::kFail}, {"skip", OnBadFile::kSkip}});
  options.pinned = in.GetChoice<PinnedMode>("pinned", {{"auto", PinnedMode::kAuto},
                                                       {"cuda", PinnedMode::kCuda},
                                                       {"mlock", PinnedMode::kMlock},
                                                       {"off", PinnedMode::kOff}});

  AugmentOptions& augment = options.augment;
  augment.output_width = in.GetInt<int>("output_width");
  augment.output_height = in.GetInt<int>("output_height");
  augment.flip_lr_probability = in.GetDouble("flip_lr_probability");
  augment.flip_ud_probability = in.GetDouble("flip_ud_probability");
  augment.rotation_fraction = in.GetDouble("rotation_fraction");
  augment.contrast_enabled = in.GetBool("contrast_enabled");
  augment.contrast_factor = in.GetRange("contrast_factor");
  augment.brightness_enabled = in.GetBool("brightness_enabled");
  augment.brightness_delta = in.GetRange("brightness_delta");
  augment.saturation_enabled = in.GetBool("saturation_enabled");
  augment.saturation_factor = in.GetRange("saturation_factor");
  augment.hue_enabled = in.GetBool("hue_enabled");
  augment.hue_delta = in.GetRange("hue_delta");
  augment.fill_mode = in.GetChoice<FillMode>(
      "fill_mode", {{"constant", FillMode::kConstant}, {"reflect", FillMode::kReflect}});
  augment.fill_value = in.GetInt<int>("fill_value");
  augment.antialias = in.GetBool("antialias");

  OutputOptions& output = options.output;
  output.image_dtype =
      in.GetChoice<ElementType>("image_dtype", {{"uint8", ElementType::kUint8},
                                                {"float16", ElementType::kFloat16},
                                                {"float32", ElementType::kFloat32}});
  output.mask_dtype = in.GetChoice<ElementType>(
      "mask_dtype", {{"uint8", ElementType::kUint8}, {"float32", ElementType::kFloat32}});
  output.layout =
      in.GetChoice<Layout>("layout", {{"nhwc", Layout::kNHWC}, {"nchw", Layout::kNCHW}});
  output.normalize = in.GetBool("normalize");
  output.mean = in.GetTriple("mean");
  output.std = in.GetTriple("std");

  DecodeOptions& decode = options.decode;
  decode.max_pixels = in.GetInt<int64_t>("max_pixels");
  decode.max_file_bytes = in.GetInt<int64_t>("max_file_bytes");
  decode.max_pixel_scans = in.GetInt<int64_t>("max_pixel_scans");
  decode.scratch_headroom = in.GetDouble("scratch_headroom");
  decode.mask_threshold = in.GetInt<int>("mask_threshold");
  decode.jpeg_warnings = in.GetChoice<JpegWarnings>(
      "jpeg_warnings",
      {{"error", JpegWarnings::kAreErrors}, {"ignore", JpegWarnings::kAreIgnored}});

  in.CheckAllUsed();
  return options;
}

}  // namespace segfeed::python
