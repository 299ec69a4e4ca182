#include "exceptions.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <exception>
#include <string>

#include "fs_text.h"
#include "segfeed/errors.h"

namespace nb = nanobind;

namespace segfeed::python {
namespace {

// Looked up on each error rather than cached: a cached object would outlive
// the interpreter in a static. An error is rare; the lookup is a dict hit.
nb::object ErrorClass(const char* name) {
  return nb::module_::import_("segfeed._errors").attr(name);
}

void Raise(const char* class_name, nb::object exception) {
  PyErr_SetObject(ErrorClass(class_name).ptr(), exception.ptr());
}

void Translate(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const FileError& e) {
    const Error& error = e.error();
    Raise("FileError",
          ErrorClass("FileError")(FsText(e.what()), FsText(error.path),
                                  std::string(ErrorKindName(error.kind)), FsText(error.detail)));
  } catch (const OptionTypeError& e) {
    // A value of the wrong type, as Python names it.
    PyErr_SetObject(PyExc_TypeError, FsText(e.what()).ptr());
  } catch (const ConfigError& e) {
    Raise("ConfigError", ErrorClass("ConfigError")(FsText(e.what())));
  } catch (const PoolExhausted& e) {
    // The C++ text, then what holding a lease means in Python.
    const std::string message =
        std::string(e.what()) +
        " (in Python every Batch not yet released, and every array exported from one, "
        "holds its buffer)";
    Raise("PoolExhaustedError", ErrorClass("PoolExhaustedError")(FsText(message)));
  } catch (const BindingError& e) {
    Raise("Error", ErrorClass("Error")(FsText(e.what())));
  }
}

}  // namespace

void RegisterExceptionTranslator() { nb::register_exception_translator(Translate); }

}  // namespace segfeed::python
