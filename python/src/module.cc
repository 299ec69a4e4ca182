// segfeed._core: the nanobind extension behind the `segfeed` package. The
// pure-Python layer (python/segfeed/) builds on these types; users import
// `segfeed`, not this module.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "batch.h"
#include "exceptions.h"
#include "fields.h"
#include "forked_child.h"
#include "gil.h"
#include "loader.h"
#include "options.h"
#include "segfeed/build_info.h"
#include "tensor.h"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "segfeed's C++ core; import segfeed instead.";
  segfeed::python::MainThreadId() = nb::cast<unsigned long>(
      nb::module_::import_("threading").attr("main_thread")().attr("ident"));
  // Objects still referenced at exit (by a daemon thread, say) are not a
  // bug of the program; nanobind would list them on stderr.
  nb::set_leak_warnings(false);
  segfeed::python::RegisterExceptionTranslator();
  segfeed::python::InstallForkedChildExit();
  segfeed::python::BindTensor(m);
  segfeed::python::BindBatch(m);
  segfeed::python::BindLoader(m);
  segfeed::python::BindOptions(m);
  segfeed::python::BindReportFields(m);
  m.def(
      "build_info",
      [] {
        const segfeed::BuildInfo info = segfeed::GetBuildInfo();
        nb::dict d;
        d["version"] = info.version;
        d["cuda_runtime"] = info.cuda_runtime;
        d["tbb_version"] = info.tbb_version;
        d["opencv_version"] = info.opencv_version;
        d["giflib_version"] = info.giflib_version;
        return d;
      },
      "What this copy of segfeed was built with: version, cuda_runtime, tbb/opencv/giflib "
      "versions.");
}
