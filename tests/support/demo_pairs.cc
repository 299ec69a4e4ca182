#include "support/demo_pairs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/fixtures.h"

namespace segfeed::testing {

void WriteDemoPairs(const std::filesystem::path& root, const demo::DemoOptions& options) {
  const std::filesystem::path image_dir = root / "train";
  const std::filesystem::path mask_dir = root / "train_masks";
  std::filesystem::create_directories(image_dir);
  std::filesystem::create_directories(mask_dir);
  demo::DemoRaster raster;
  for (int index = 0; index < options.count; ++index) {
    demo::RenderDemoSample(options, index, &raster);
    const std::string stem = demo::DemoStem(options.seed, index);
    const bool interlaced = options.mask_rows == demo::DemoMaskRows::kInterlaced ||
                            (options.mask_rows == demo::DemoMaskRows::kMixed && index % 2 == 1);
    WriteFile(image_dir / (stem + ".jpg"),
              EncodeJpegWithOpenCv(raster.rgb, raster.width, raster.height, JpegVariant::kBaseline,
                                   options.quality));
    WriteFile(mask_dir / (stem + "_mask.gif"),
              EncodeMaskGif(raster.mask, raster.width, raster.height, interlaced));
  }
}

}  // namespace segfeed::testing
