#pragma once

#include <string>

#include "segfeed/export.h"

namespace segfeed {

// What this copy of libsegfeed was built with. Useful in bug reports and for
// a program that wants to know whether pinned CUDA memory is possible at all
// before asking for it.
struct BuildInfo {
  // Library version, "major.minor.patch".
  std::string version;
  // True when built against the CUDA runtime (SEGFEED_CUDA=AUTO found it, or
  // ON). Whether a GPU is present is only known at run time.
  bool cuda_runtime = false;
  // Versions of the libraries doing the work, as they report themselves.
  std::string tbb_version;
  std::string opencv_version;
  std::string giflib_version;
};

// Thread-safe; cheap enough to call once per program.
SEGFEED_EXPORT BuildInfo GetBuildInfo();

}  // namespace segfeed
