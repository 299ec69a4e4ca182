// Links against an installed libsegfeed through find_package(segfeed) and
// uses only the public headers: no oneTBB, TurboJPEG, giflib or OpenCV
// headers are needed to compile this file.
//
//   segfeed_consumer [DATA_DIR]
//
// Prints the memory plan of the default options for Carvana-size photos and,
// given a Carvana-style folder, streams one batch from it.
#include <segfeed/build_info.h>
#include <segfeed/loader.h>

#include <iostream>

int main(int argc, char** argv) {
  const segfeed::BuildInfo info = segfeed::GetBuildInfo();
  std::cout << "linked segfeed " << info.version
            << " (CUDA runtime: " << (info.cuda_runtime ? "yes" : "no") << ")\n";
  const segfeed::LoaderOptions options;
  const segfeed::MemoryPlan plan = segfeed::PlanMemory(options, 1918, 1280);
  std::cout << "default plan for 1918x1280 photos: pool " << plan.pool_bytes << " bytes, scratch "
            << plan.scratch_bytes << " bytes\n";
  if (argc < 2) return 0;
  try {
    segfeed::Loader loader(segfeed::DatasetSpec::Carvana(argv[1]), options);
    loader.StartEpoch(0);
    if (std::optional<segfeed::Lease> batch = loader.Next()) {
      std::cout << "first batch: " << batch->size() << " samples, images "
                << batch->images().shape[1] << "x" << batch->images().shape[2] << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "segfeed_consumer: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
