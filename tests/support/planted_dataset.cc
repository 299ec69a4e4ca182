#include "support/planted_dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "demo/demo_dataset.h"
#include "fixtures/fixtures.h"

namespace segfeed::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 64;
constexpr int kHeight = 48;

Bytes ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Bytes FirstPart(Bytes bytes, double fraction) {
  bytes.resize(static_cast<size_t>(static_cast<double>(bytes.size()) * fraction));
  return bytes;
}

}  // namespace

void WriteCleanDataset(const fs::path& root, int count) {
  demo::DemoOptions options;
  options.count = count;
  options.width = kWidth;
  options.height = kHeight;
  auto written = demo::WriteDemoDataset(root, options, {});
  ASSERT_TRUE(written.ok()) << written.error().Message();
}

PlantedDataset WritePlantedDataset(const fs::path& root) {
  constexpr int kPairs = 14;
  WriteCleanDataset(root, kPairs);
  std::vector<fs::path> images, masks;
  for (const auto& entry : fs::directory_iterator(root / "train")) images.push_back(entry.path());
  std::sort(images.begin(), images.end());
  for (const fs::path& image : images) {
    masks.push_back(root / "train_masks" / (image.stem().string() + "_mask.gif"));
  }

  PlantedDataset planted;
  planted.pairs = kPairs - 1;  // one mask goes missing
  auto plant = [&](const fs::path& path, ErrorKind kind) {
    planted.problems.push_back({path.string(), kind});
  };

  fs::remove(masks[0]);
  plant(images[0], ErrorKind::kMissingMask);

  const fs::path orphan = root / "train_masks" / "ffffffff_99_mask.gif";
  const std::vector<uint8_t> orphan_mask(kWidth * kHeight,
                                         1);  // all foreground: unlike any demo mask
  WriteFile(orphan, EncodeMaskGif(orphan_mask, kWidth, kHeight));
  plant(orphan, ErrorKind::kOrphanMask);

  WriteFile(images[1], FirstPart(ReadBytes(images[1]), 0.7));
  plant(images[1], ErrorKind::kCorruptImage);

  WriteFile(images[2], RandomBytes(3000, 7));
  plant(images[2], ErrorKind::kUnsupportedFormat);

  {
    // A BMP named .jpg (a PNG named so is read as the PNG it is).
    cv::Mat picture(kHeight, kWidth, CV_8UC3, cv::Scalar(10, 120, 240));
    Bytes bmp;
    EXPECT_TRUE(cv::imencode(".bmp", picture, bmp));
    WriteFile(images[3], bmp);
    plant(images[3], ErrorKind::kUnsupportedFormat);
  }

  WriteFile(images[4], {});
  plant(images[4], ErrorKind::kEmptyFile);

  WriteFile(masks[5], EncodeMaskGif(TestMask(kWidth / 2, kHeight / 2), kWidth / 2, kHeight / 2));
  plant(images[5], ErrorKind::kSizeMismatch);

  WriteFile(masks[6], ThreeColourMaskGif(kWidth, kHeight));
  plant(masks[6], ErrorKind::kNonBinaryMask);

  WriteFile(masks[7], FirstPart(ReadBytes(masks[7]), 0.5));
  plant(masks[7], ErrorKind::kCorruptMask);

  WriteFile(images[8], WithJpegFrameSize(ReadBytes(images[8]), 60000, 60000));
  plant(images[8], ErrorKind::kTooLarge);

  fs::remove(images[9]);
  fs::create_symlink(root / "train" / "does-not-exist.jpg", images[9]);
  plant(images[9], ErrorKind::kIoError);

  fs::copy_file(images[10], images[11], fs::copy_options::overwrite_existing);
  planted.duplicates = {images[10].string(), images[11].string()};

  std::sort(planted.problems.begin(), planted.problems.end(),
            [](const PlantedProblem& a, const PlantedProblem& b) { return a.path < b.path; });
  return planted;
}

}  // namespace segfeed::testing
