// Decoding only the sample's window (JpegWindowDecoder) changes no byte of
// the stream: the Loader's batches with SEGFEED_JPEG_WINDOW=always (every
// JPEG of one scan or more decoded in its window, the rest of the image
// poisoned) equal those with =never (every photo whole), over chroma
// samplings, odd sizes, restart markers, progressive files, the DCT scales
// the recipes choose and windows at every edge and corner.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "segfeed/loader.h"
#include "support/batch_bytes.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

// Sets SEGFEED_JPEG_WINDOW for the loaders constructed in its scope.
class WindowSwitch {
 public:
  explicit WindowSwitch(const char* mode) { setenv("SEGFEED_JPEG_WINDOW", mode, 1); }
  WindowSwitch(const WindowSwitch&) = delete;
  WindowSwitch& operator=(const WindowSwitch&) = delete;
  ~WindowSwitch() { unsetenv("SEGFEED_JPEG_WINDOW"); }
};

class JpegWindowStreamTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    std::filesystem::create_directories(dir_->path() / "train");
    std::filesystem::create_directories(dir_->path() / "train_masks");
    struct Photo {
      int width, height;
      testing::JpegLayout layout;
    };
    const Photo photos[] = {
        {401, 299, {2, 2}},
        {400, 300, {2, 1}},
        {397, 263, {1, 1}},
        {333, 251, {4, 1}},
        {403, 301, {2, 2, 1}},
        {389, 277, {2, 2, 0, true}},
        {301, 205, {1, 1, 0, false, true}},
    };
    int key = 0;
    for (const Photo& photo : photos) {
      const std::string stem = "photo" + std::to_string(key++);
      testing::WriteFile(dir_->path() / "train" / (stem + ".jpg"),
                         testing::EncodeJpegLayout(photo.width, photo.height, photo.layout));
      testing::WriteFile(dir_->path() / "train_masks" / (stem + "_mask.gif"),
                         testing::EncodeMaskGif(testing::TestMask(photo.width, photo.height),
                                                photo.width, photo.height));
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // The mmseg-like recipe at a small output: keep_ratio, a random scale
  // over [0.5, 3] (at the top a window of a ninth of the photo), random
  // crops, flips, the colour jitter.
  static LoaderOptions Recipe() {
    LoaderOptions options;
    options.batch_size = 3;
    options.threads = 2;
    options.seed = 11;
    options.augment.output_width = 96;
    options.augment.output_height = 80;
    options.augment.resize = ResizeMode::kKeepRatio;
    options.augment.scale_enabled = true;
    options.augment.scale_factor = {0.5, 3.0};
    options.augment.rotation_fraction = 0;
    options.output.image_dtype = ElementType::kUint8;
    options.output.mask_dtype = ElementType::kUint8;
    options.pinned = PinnedMode::kOff;
    return options;
  }

  // Three epochs' batches, and the seconds spent decoding JPEG in windows.
  static std::vector<std::string> Stream(const LoaderOptions& options, const char* mode,
                                         double* window_seconds = nullptr) {
    WindowSwitch window_switch(mode);
    Loader loader(DatasetSpec::Carvana(dir_->path()), options);
    std::vector<std::string> batches;
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
      loader.StartEpoch(epoch);
      for (std::string& batch : testing::Remaining(loader)) batches.push_back(std::move(batch));
    }
    if (window_seconds) *window_seconds = loader.stats().stage_seconds.decode_photo_jpeg_roi;
    return batches;
  }

  static void ExpectSameStream(const LoaderOptions& options) {
    double window_seconds = 0;
    const std::vector<std::string> windowed = Stream(options, "always", &window_seconds);
    EXPECT_GT(window_seconds, 0.0) << "no photo was decoded in its window";
    const std::vector<std::string> whole = Stream(options, "never");
    ASSERT_EQ(windowed.size(), whole.size());
    // Not EXPECT_EQ: a batch's bytes are too many to print.
    for (size_t i = 0; i < whole.size(); ++i) EXPECT_TRUE(windowed[i] == whole[i]) << "batch " << i;
  }

  static testing::TempDir* dir_;
};

testing::TempDir* JpegWindowStreamTest::dir_ = nullptr;

TEST_F(JpegWindowStreamTest, RandomScaleAndCropStreamTheSameBytes) { ExpectSameStream(Recipe()); }

// Rotations reach past the photo's edges, where reflect mirrors what lies
// inside: the window holds the mirrored pixels too.
TEST_F(JpegWindowStreamTest, RotationsWithReflectStreamTheSameBytes) {
  LoaderOptions options = Recipe();
  options.augment.rotation_fraction = 0.3;
  options.augment.fill_mode = FillMode::kReflect;
  ExpectSameStream(options);
  options.augment.fill_mode = FillMode::kConstant;
  ExpectSameStream(options);
}

// A photo shrunk by more than 2x is area-reduced first over a block of its
// own (short_side of a small output, scales below 1): the window holds the
// block.
TEST_F(JpegWindowStreamTest, PreReducedWindowsStreamTheSameBytes) {
  LoaderOptions options = Recipe();
  options.augment.output_width = 40;
  options.augment.output_height = 32;
  options.augment.resize = ResizeMode::kShortSide;
  options.augment.scale_factor = {0.3, 2.5};
  options.augment.rotation_fraction = 0.1;
  options.augment.fill_mode = FillMode::kReflect;
  ExpectSameStream(options);
}

// The default stretch reads the whole photo: the measured choice decodes
// every photo whole, and the stream is the same as with the switch unset.
TEST_F(JpegWindowStreamTest, StretchDecodesWholePhotos) {
  LoaderOptions options = Recipe();
  options.augment.resize = ResizeMode::kStretch;
  options.augment.scale_enabled = false;
  double window_seconds = -1;
  const std::vector<std::string> measured = Stream(options, "", &window_seconds);
  EXPECT_EQ(window_seconds, 0.0);
  EXPECT_TRUE(measured == Stream(options, "never"));
}

}  // namespace
}  // namespace segfeed
