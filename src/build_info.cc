#include "segfeed/build_info.h"

#include <gif_lib.h>
#include <oneapi/tbb/version.h>

#include <opencv2/core/version.hpp>
#include <string>

#include "build_config.h"

namespace segfeed {

BuildInfo GetBuildInfo() {
  BuildInfo info;
  info.version = SEGFEED_VERSION_STRING;
  info.cuda_runtime = SEGFEED_HAVE_CUDA;
  info.tbb_version = TBB_runtime_version();
  info.opencv_version = CV_VERSION;
  info.giflib_version = std::to_string(GIFLIB_MAJOR) + "." + std::to_string(GIFLIB_MINOR) + "." +
                        std::to_string(GIFLIB_RELEASE);
  return info;
}

}  // namespace segfeed
