#pragma once

#include <nanobind/nanobind.h>

#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::python {

// LoaderOptions from the flat dict the Python Loader builds (segfeed/_options.py):
// one key per C++ field, named after it ("batch_size", "output_width",
// "contrast_factor", "max_pixels", ...), enums as their lower-case names.
// Only converts: the values are validated by the Loader constructor, whose
// ConfigError messages reach Python unchanged. A missing or unknown key, a
// value of the wrong type or an unknown enum name is a ConfigError too.
LoaderOptions LoaderOptionsFromDict(const nanobind::dict& options);

}  // namespace segfeed::python
