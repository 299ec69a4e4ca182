#pragma once

#include <stdexcept>
#include <string>

namespace segfeed::python {

// An error of the binding itself (a released batch, a closed loader, a
// loader used in a forked child), raised in Python as segfeed.Error. May be
// thrown with or without the GIL held.
class BindingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Maps segfeed's C++ exceptions to the Python classes of segfeed._errors:
// ConfigError, FileError (with path, kind and detail), PoolExhaustedError,
// and BindingError to Error. The messages are the C++ ones, unchanged.
void RegisterExceptionTranslator();

}  // namespace segfeed::python
