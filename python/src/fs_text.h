#pragma once

#include <nanobind/nanobind.h>

#include <string_view>

namespace segfeed::python {

// File names are bytes. Text that holds them (paths, messages naming files)
// is decoded as os.fsdecode() does, so a name that is not UTF-8 still
// reaches Python, with surrogate escapes, instead of failing to convert.
inline nanobind::str FsText(std::string_view text) {
  return nanobind::steal<nanobind::str>(
      PyUnicode_DecodeFSDefaultAndSize(text.data(), static_cast<Py_ssize_t>(text.size())));
}

}  // namespace segfeed::python
