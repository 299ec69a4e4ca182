// Links against an installed libsegfeed through find_package(segfeed) and
// uses only the public headers: no oneTBB, TurboJPEG, giflib or OpenCV
// headers are needed to compile this file.
#include <segfeed/build_info.h>
#include <segfeed/errors.h>

#include <iostream>

int main() {
  const segfeed::BuildInfo info = segfeed::GetBuildInfo();
  std::cout << "linked segfeed " << info.version
            << " (CUDA runtime: " << (info.cuda_runtime ? "yes" : "no") << ")\n";
  const segfeed::Error error{segfeed::ErrorKind::kEmptyFile, "train/x.jpg", "file is empty"};
  std::cout << error.Message() << "\n";
  return 0;
}
