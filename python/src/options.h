#pragma once

#include <nanobind/nanobind.h>

#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::python {

// LoaderOptions from a dict of option values keyed by the option table's
// names ("batch_size", "size", "contrast", "max_pixels", ...; see
// segfeed/option_table.h). Each value is converted generically into an
// OptionValue (None, bool, int, float, str, or a sequence of those) and the
// table sets, checks and validates the whole (OptionsFromValues), so its
// ConfigError messages reach Python unchanged; a value of the wrong type is
// an OptionTypeError (TypeError in Python).
LoaderOptions LoaderOptionsFromDict(const nanobind::dict& values);

// `options` as a dict: every table option by its name, in the form the
// table takes it (tuples for sequences, None for an op that is off; the
// map options label_map and mask_colors as dicts, as a user gives them), plus
// the C++ fields that the composite options set (output_width and
// output_height, each colour op's *_enabled and its range,
// shard_from_environment), which segfeed.Loader.options has always shown.
nanobind::dict OptionsToDict(const LoaderOptions& options);

// An option's value as the table's Python form (None, a scalar, a tuple).
nanobind::object OptionValueToPython(const OptionValue& value);

// Registers option_table(), options_from_values(), option_text() and
// stream_options_digest() on `module`.
void BindOptions(nanobind::module_& module);

}  // namespace segfeed::python
