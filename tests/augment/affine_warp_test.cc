#include "augment/affine_warp.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/simd_dispatch.h"
#include "augment/warp_scalar.h"
#include "kernel_scopes.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::HalfResolution;
using segfeed::testing::MaxAbsDiff;
using segfeed::testing::MutableView;
using segfeed::testing::Psnr;
using segfeed::testing::RenderDemoScene;
using segfeed::testing::View;

struct Warped {
  cv::Mat image;
  cv::Mat mask;
};

// The kernels' border for a window that pads no edge (a stretch at scale
// 1): every edge mirrored under reflect, none under constant.
Border BorderOf(FillMode mode) {
  const bool mirror = mode == FillMode::kReflect;
  return {mirror, mirror, mirror, mirror};
}

Warped RunWarp(const AugmentOptions& options, const AugmentParams& params, const cv::Mat& image,
               const cv::Mat& mask, double image_scale = 0.0) {
  Warped out;
  out.image.create(options.output_height, options.output_width, CV_8UC3);
  out.mask.create(options.output_height, options.output_width, CV_8UC1);
  WarpScratch scratch;
  WarpImageAndMask(options, params, {View(image), View(mask), image_scale}, MutableView(out.image),
                   MutableView(out.mask), &scratch);
  return out;
}

// Forward geometry of the params applied to an already resized square image
// with OpenCV's own functions: flips first, then the quarter turn.
cv::Mat FlipThenRotate(const cv::Mat& resized, const AugmentParams& params) {
  cv::Mat out = resized.clone();
  if (params.flip_lr && params.flip_ud) {
    cv::flip(out, out, -1);
  } else if (params.flip_lr) {
    cv::flip(out, out, 1);
  } else if (params.flip_ud) {
    cv::flip(out, out, 0);
  }
  const int quarters = ((static_cast<int>(params.angle_deg) / 90) % 4 + 4) % 4;
  if (quarters == 1) cv::rotate(out, out, cv::ROTATE_90_COUNTERCLOCKWISE);
  if (quarters == 2) cv::rotate(out, out, cv::ROTATE_180);
  if (quarters == 3) cv::rotate(out, out, cv::ROTATE_90_CLOCKWISE);
  return out;
}

TEST(AffineWarpTest, IdentityMatrixOnSameSizeIsIdentity) {
  const AffineMatrix m = OutputToSourceMatrix({}, 64, 48, 64, 48);
  const AffineMatrix identity{1, 0, 0, 0, 1, 0};
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(m[i], identity[i]) << i;
}

TEST(AffineWarpTest, PixelCentresMapByExtentNotByCount) {
  // Output pixel 0 of 512 covers [0, 1/512) of the extent; its centre is at
  // 0.5/512 of the extent, i.e. source index 0.5*1918/512 - 0.5.
  const AffineMatrix m = OutputToSourceMatrix({}, 1918, 1280, 512, 512);
  EXPECT_DOUBLE_EQ(m[2], 0.5 * 1918.0 / 512 - 0.5);
  EXPECT_DOUBLE_EQ(m[5], 0.5 * 1280.0 / 512 - 0.5);
  // The same output pixel on a half-resolution image lands on the same
  // physical point: (index + 0.5) scales by exactly 1/2.
  const AffineMatrix half = OutputToSourceMatrix({}, 959, 640, 512, 512);
  for (double x : {0.0, 100.0, 511.0}) {
    const double full = m[0] * x + m[2] + 0.5;
    const double reduced = half[0] * x + half[2] + 0.5;
    EXPECT_DOUBLE_EQ(reduced * 2, full) << x;
  }
}

TEST(AffineWarpTest, PreReduceFactorLeavesAtMostTwoForBilinear) {
  EXPECT_EQ(PreReduceFactor(0.5, 1000), 1);
  EXPECT_EQ(PreReduceFactor(1.87, 959), 1);
  EXPECT_EQ(PreReduceFactor(2.0, 1000), 1);
  // Prefers exact divisors in [downscale/2, downscale]: the fast area path.
  EXPECT_EQ(PreReduceFactor(1918.0 / 512, 1918), 2);
  EXPECT_EQ(PreReduceFactor(1280.0 / 512, 1280), 2);
  EXPECT_EQ(PreReduceFactor(1918.0 / 256, 1918), 7);
  EXPECT_EQ(PreReduceFactor(1280.0 / 256, 1280), 4);
  // No divisor in range (a prime size): floor(downscale).
  EXPECT_EQ(PreReduceFactor(3.75, 1913), 3);
  for (double downscale : {2.01, 2.5, 3.75, 5.5, 8.0, 13.3}) {
    for (int pixels : {1913, 1918, 1280, 1000}) {
      const int factor = PreReduceFactor(downscale, pixels);
      EXPECT_LE(downscale / factor, 2.0) << downscale << " " << pixels;
      EXPECT_GE(downscale / factor, 1.0) << downscale << " " << pixels;
    }
  }
}

TEST(AffineWarpTest, IdentityMaskMatchesExactNearestNeighbour) {
  const auto scene = RenderDemoScene(0);
  AugmentOptions options;
  options.output_width = 512;
  options.output_height = 384;
  const Warped out = RunWarp(options, {}, HalfResolution(scene.image), scene.mask);
  int mismatches = 0;
  for (int y = 0; y < out.mask.rows; ++y) {
    // Nearest source pixel of the output centre: floor((y + 0.5) * H / h).
    const int sy = (2 * y + 1) * scene.mask.rows / (2 * out.mask.rows);
    for (int x = 0; x < out.mask.cols; ++x) {
      const int sx = (2 * x + 1) * scene.mask.cols / (2 * out.mask.cols);
      mismatches += out.mask.at<uint8_t>(y, x) != scene.mask.at<uint8_t>(sy, sx);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Flips and quarter turns of the fused warp equal cv::flip / cv::rotate of
// the unflipped, unrotated warp (the "reference resize"): exactly for masks,
// within one level for images. Run with a half-resolution image (as decoded
// at DCT scale 1/2) and with a full-resolution one (pre-reduce path).
TEST(AffineWarpTest, FlipsAndQuarterTurnsMatchCvFlipAndRotate) {
  const auto scene = RenderDemoScene(1);
  const cv::Mat half = HalfResolution(scene.image);
  AugmentOptions options;
  for (const cv::Mat* image : {&half, &scene.image}) {
    const Warped reference = RunWarp(options, {}, *image, scene.mask);
    for (bool flip_lr : {false, true}) {
      for (bool flip_ud : {false, true}) {
        for (double angle : {0.0, 90.0, 180.0, 270.0, -90.0, 450.0}) {
          AugmentParams params;
          params.flip_lr = flip_lr;
          params.flip_ud = flip_ud;
          params.angle_deg = angle;
          const Warped out = RunWarp(options, params, *image, scene.mask);
          const std::string label = "image " + std::to_string(image->cols) + " lr " +
                                    std::to_string(flip_lr) + " ud " + std::to_string(flip_ud) +
                                    " angle " + std::to_string(angle);
          EXPECT_EQ(MaxAbsDiff(out.mask, FlipThenRotate(reference.mask, params)), 0) << label;
          EXPECT_LE(MaxAbsDiff(out.image, FlipThenRotate(reference.image, params)), 1) << label;
        }
      }
    }
  }
}

TEST(AffineWarpTest, FlipsMatchCvFlipOnNonSquareOutput) {
  const auto scene = RenderDemoScene(2);
  const cv::Mat half = HalfResolution(scene.image);
  AugmentOptions options;
  options.output_width = 384;
  options.output_height = 256;
  const Warped reference = RunWarp(options, {}, half, scene.mask);
  for (int code : {0, 1, -1}) {
    AugmentParams params;
    params.flip_lr = code != 0;
    params.flip_ud = code != 1;
    const Warped out = RunWarp(options, params, half, scene.mask);
    cv::Mat expected_mask, expected_image;
    cv::flip(reference.mask, expected_mask, code);
    cv::flip(reference.image, expected_image, code);
    EXPECT_EQ(MaxAbsDiff(out.mask, expected_mask), 0) << code;
    EXPECT_LE(MaxAbsDiff(out.image, expected_image), 1) << code;
  }
}

// An asymmetric "F" (no flip or rotation maps it onto itself) drawn into a
// full-resolution mask and a half-resolution image at the same physical
// place. All coordinates are even, so the half-resolution image is exact.
struct MarkerScene {
  cv::Mat image;  // 959x640, marker red on green
  cv::Mat mask;   // 1918x1280, marker 1 on 0
};

MarkerScene MakeMarkerScene() {
  MarkerScene scene;
  scene.mask = cv::Mat::zeros(1280, 1918, CV_8UC1);
  scene.image = cv::Mat(640, 959, CV_8UC3, cv::Scalar(40, 170, 60));
  // Rectangles [x0, x1) x [y0, y1) at full resolution.
  const int bars[][4] = {{700, 300, 780, 980}, {700, 300, 1250, 380}, {700, 600, 1050, 680}};
  for (const auto& b : bars) {
    scene.mask(cv::Rect(b[0], b[1], b[2] - b[0], b[3] - b[1])).setTo(1);
    scene.image(cv::Rect(b[0] / 2, b[1] / 2, (b[2] - b[0]) / 2, (b[3] - b[1]) / 2))
        .setTo(cv::Scalar(230, 30, 30));
  }
  return scene;
}

double MarkerIou(const Warped& out, int shift_x = 0) {
  int intersection = 0, union_count = 0;
  for (int y = 0; y < out.mask.rows; ++y) {
    for (int x = 0; x < out.mask.cols; ++x) {
      const auto& p = out.image.at<cv::Vec3b>(y, x);
      // Halfway between marker and background red/green: the blend boundary.
      const bool in_image = p[0] > p[1] && p[0] > 80;
      const int mx = x + shift_x;
      const bool in_mask = mx >= 0 && mx < out.mask.cols && out.mask.at<uint8_t>(y, mx) == 1;
      intersection += in_image && in_mask;
      union_count += in_image || in_mask;
    }
  }
  return union_count == 0 ? 1.0 : static_cast<double>(intersection) / union_count;
}

TEST(AffineWarpTest, MarkerStaysAlignedOver200RandomParameterSets) {
  const MarkerScene scene = MakeMarkerScene();
  AugmentOptions options;
  double min_iou = 1.0;
  for (uint64_t id = 0; id < 200; ++id) {
    options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
    const AugmentParams params = DrawAugmentParams(options, 2024, 0, id);
    const Warped out = RunWarp(options, params, scene.image, scene.mask);
    const double iou = MarkerIou(out);
    min_iou = std::min(min_iou, iou);
    EXPECT_GE(iou, 0.95) << "sample " << id << " angle " << params.angle_deg << " lr "
                         << params.flip_lr << " ud " << params.flip_ud;
  }
  std::printf("marker IoU over 200 parameter sets: min %.4f\n", min_iou);

  // The measure is sharp enough to see a small misalignment: the same
  // output with the mask moved by 2 pixels fails the bound.
  const Warped identity = RunWarp(options, {}, scene.image, scene.mask);
  EXPECT_LT(MarkerIou(identity, 2), 0.95);
}

TEST(AffineWarpTest, MaskStaysExactlyBinaryForEveryParameterSet) {
  const MarkerScene scene = MakeMarkerScene();
  AugmentOptions options;
  options.output_width = 200;
  options.output_height = 160;
  for (uint64_t id = 0; id < 50; ++id) {
    options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
    options.fill_value = 255;
    const Warped out =
        RunWarp(options, DrawAugmentParams(options, 7, 3, id), scene.image, scene.mask);
    cv::Mat non_binary = out.mask > 1;
    EXPECT_EQ(cv::countNonZero(non_binary), 0) << id;
    EXPECT_GT(cv::countNonZero(out.mask), 0) << id;
  }
}

// Label maps survive the warp exactly: every output label is the label of a
// source pixel next to where the inverse transform lands (nearest
// neighbour), or the ignore fill where it lands outside the source. Where
// the landing point is clearly inside a uniform block, or clearly outside,
// the label is exactly that block's or the fill.
TEST(AffineWarpTest, LabelsAreSourceLabelsOrTheFillOutside) {
  constexpr int kSourceWidth = 160, kSourceHeight = 120, kBlock = 8;
  constexpr uint8_t kFill = 255;
  cv::Mat labels(kSourceHeight, kSourceWidth, CV_8UC1);
  cv::RNG rng(5);
  for (int by = 0; by < kSourceHeight; by += kBlock) {
    for (int bx = 0; bx < kSourceWidth; bx += kBlock) {
      labels(cv::Rect(bx, by, kBlock, kBlock)).setTo(rng.uniform(0, 21));
    }
  }
  const cv::Mat image(kSourceHeight, kSourceWidth, CV_8UC3, cv::Scalar(90, 90, 90));
  AugmentOptions options;
  options.output_width = 96;
  options.output_height = 80;
  options.rotation_fraction = 0.5;
  int exact_inside = 0, exact_outside = 0;
  for (uint64_t id = 0; id < 40; ++id) {
    const AugmentParams params = DrawAugmentParams(options, 11, 0, id);
    cv::Mat out(options.output_height, options.output_width, CV_8UC1);
    cv::Mat out_image(options.output_height, options.output_width, CV_8UC3);
    WarpScratch scratch;
    WarpSource source{View(image), View(labels), 0.0, kFill};
    WarpImageAndMask(options, params, source, MutableView(out_image), MutableView(out), &scratch);
    const AffineMatrix m = OutputToSourceMatrix(params, kSourceWidth, kSourceHeight,
                                                options.output_width, options.output_height);
    for (int y = 0; y < options.output_height; ++y) {
      for (int x = 0; x < options.output_width; ++x) {
        // The matrix maps pixel indices to pixel indices; nearest rounds.
        const double sx = m[0] * x + m[1] * y + m[2] + 0.5;
        const double sy = m[3] * x + m[4] * y + m[5] + 0.5;
        std::vector<uint8_t> allowed;
        bool near_outside = false;
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            const int px = static_cast<int>(std::floor(sx)) + dx;
            const int py = static_cast<int>(std::floor(sy)) + dy;
            if (px < 0 || py < 0 || px >= kSourceWidth || py >= kSourceHeight) {
              near_outside = true;
            } else {
              allowed.push_back(labels.at<uint8_t>(py, px));
            }
          }
        }
        if (near_outside) allowed.push_back(kFill);
        const uint8_t got = out.at<uint8_t>(y, x);
        ASSERT_NE(std::find(allowed.begin(), allowed.end(), got), allowed.end())
            << "params " << id << " at (" << x << ", " << y << "): " << int{got};
        if (allowed.size() == 1 || std::all_of(allowed.begin(), allowed.end(),
                                               [&](uint8_t v) { return v == allowed[0]; })) {
          EXPECT_EQ(got, allowed[0]);
          (allowed[0] == kFill ? exact_outside : exact_inside) += 1;
        }
      }
    }
  }
  // The test saw both cases many times (rotations of up to half a turn).
  EXPECT_GT(exact_inside, 10000);
  EXPECT_GT(exact_outside, 1000);
}

// The AVX-512, AVX2 and one-pixel kernels give the same bytes, for the
// image and the mask, both fills, a half-resolution source (plain warp), a
// full-resolution one (pre-reduce first) and odd output sizes that leave
// vector tails and rows whose lower taps reach the source's last row.
TEST(AffineWarpTest, VectorAndOnePixelKernelsGiveSameBytes) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU (or SEGFEED_NO_AVX2 set)";
  const auto scene = RenderDemoScene(2);
  const cv::Mat half = HalfResolution(scene.image);
  AugmentOptions options;
  for (uint64_t id = 0; id < 40; ++id) {
    options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
    options.output_width = id % 3 == 0 ? 131 : 512;
    options.output_height = id % 3 == 0 ? 77 : 512;
    const AugmentParams params = DrawAugmentParams(options, 99, 0, id);
    const cv::Mat& image = id % 4 == 1 ? scene.image : half;
    // The widest kernels the CPU has (AVX-512 where it has them), AVX2
    // alone, and one pixel at a time.
    const Warped vector = RunWarp(options, params, image, scene.mask);
    Warped avx2, one_pixel;
    {
      ScopedAvx2Kernels narrower;
      avx2 = RunWarp(options, params, image, scene.mask);
    }
    {
      ScopedOnePixelKernels scalar;
      one_pixel = RunWarp(options, params, image, scene.mask);
    }
    EXPECT_EQ(cv::norm(vector.image, one_pixel.image, cv::NORM_INF), 0.0) << "set " << id;
    EXPECT_EQ(cv::norm(vector.mask, one_pixel.mask, cv::NORM_INF), 0.0) << "set " << id;
    EXPECT_EQ(cv::norm(avx2.image, one_pixel.image, cv::NORM_INF), 0.0) << "set " << id;
    EXPECT_EQ(cv::norm(avx2.mask, one_pixel.mask, cv::NORM_INF), 0.0) << "set " << id;
  }
}

// A plane warp (decode_colour ycbcr warps Y, Cb and Cr one by one) writes
// each channel's bytes of the RGB warp of the same matrix, on every kernel
// width, both fills, scales up and down, turns, and odd sizes.
TEST(AffineWarpTest, PlaneWarpIsTheRgbWarpOfEachChannel) {
  const cv::Mat image = segfeed::testing::NoiseImage(203, 141, 3, 8);
  cv::Mat planes[3];
  cv::split(image, planes);
  const Rgb fill = {200, 17, 90};
  AugmentOptions options;
  for (uint64_t id = 0; id < 30; ++id) {
    options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
    const int width = id % 3 == 0 ? 131 : 256, height = id % 3 == 0 ? 77 : 192;
    const AffineMatrix m = OutputToSourceMatrix(DrawAugmentParams(options, 21, 0, id), image.cols,
                                                image.rows, width, height);
    cv::Mat rgb(height, width, CV_8UC3);
    ChannelSums sums{0, 0, 0};
    WarpBilinearRgb(View(image), m, BorderOf(options.fill_mode), fill, MutableView(rgb), &sums);
    cv::Mat expected[3];
    cv::split(rgb, expected);
    for (int kernel = 0; kernel < 3; ++kernel) {
      std::optional<ScopedAvx2Kernels> narrower;
      std::optional<ScopedOnePixelKernels> scalar;
      if (kernel == 1) narrower.emplace();
      if (kernel == 2) scalar.emplace();
      for (int c = 0; c < 3; ++c) {
        cv::Mat out(height, width, CV_8UC1, cv::Scalar(3));
        WarpBilinearPlane(View(planes[c]), m, BorderOf(options.fill_mode), fill[c],
                          MutableView(out));
        EXPECT_EQ(cv::norm(out, expected[c], cv::NORM_INF), 0.0)
            << "set " << id << " kernel " << kernel << " channel " << c;
      }
    }
  }
}

// The channel sums the warp reports are the sums of the levels it wrote,
// on every kernel width, both fills (a fill value that is not 0 included),
// odd sizes and a source that is pre-reduced first.
TEST(AffineWarpTest, ChannelSumsAreTheSumsOfTheWrittenLevels) {
  const auto scene = RenderDemoScene(4);
  const cv::Mat half = HalfResolution(scene.image);
  AugmentOptions options;
  options.fill_value = 200;
  for (uint64_t id = 0; id < 24; ++id) {
    options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
    options.output_width = id % 3 == 0 ? 131 : 512;
    options.output_height = id % 3 == 0 ? 77 : 512;
    const AugmentParams params = DrawAugmentParams(options, 11, 0, id);
    const cv::Mat& image = id % 4 == 1 ? scene.image : half;
    for (int kernel = 0; kernel < 3; ++kernel) {
      std::optional<ScopedAvx2Kernels> narrower;
      std::optional<ScopedOnePixelKernels> scalar;
      if (kernel == 1) narrower.emplace();
      if (kernel == 2) scalar.emplace();
      cv::Mat out(options.output_height, options.output_width, CV_8UC3);
      cv::Mat mask(options.output_height, options.output_width, CV_8UC1);
      WarpScratch scratch;
      std::optional<ChannelSums> sums;
      WarpImageAndMask(options, params, {View(image), View(scene.mask), 0.0}, MutableView(out),
                       MutableView(mask), &scratch, &sums);
      ASSERT_TRUE(sums.has_value()) << "set " << id;
      const cv::Scalar expected = cv::sum(out);
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(static_cast<double>((*sums)[c]), expected[c])
            << "set " << id << " kernel " << kernel << " channel " << c;
    }
  }
}

// A float32 mask written by the warp is the uint8 warp with every nonzero
// value 1.0, on every kernel width, for a 0/255 source too, both fills and
// a padded destination.
TEST(AffineWarpTest, FloatMaskIsTheUint8WarpBinarised) {
  const auto scene = RenderDemoScene(3);
  const cv::Mat half = HalfResolution(scene.image);
  const cv::Mat mask255 = scene.mask * 255;
  AugmentOptions options;
  for (uint64_t id = 0; id < 24; ++id) {
    options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
    options.output_width = id % 3 == 0 ? 131 : 256;
    options.output_height = id % 3 == 0 ? 77 : 256;
    const AugmentParams params = DrawAugmentParams(options, 5, 0, id);
    const cv::Mat& mask = id % 4 == 1 ? mask255 : scene.mask;
    const Warped expected = RunWarp(options, params, half, mask);
    for (int kernel = 0; kernel < 3; ++kernel) {
      std::optional<ScopedAvx2Kernels> narrower;
      std::optional<ScopedOnePixelKernels> scalar;
      if (kernel == 1) narrower.emplace();
      if (kernel == 2) scalar.emplace();
      const int padded_width = options.output_width + 5;
      std::vector<float> floats(static_cast<size_t>(padded_width) * options.output_height, -1.0f);
      cv::Mat image(options.output_height, options.output_width, CV_8UC3);
      WarpScratch scratch;
      WarpImageAndMask(options, params, {View(half), View(mask), 0.0}, MutableView(image),
                       FloatMaskView{floats.data(), options.output_width, options.output_height,
                                     static_cast<ptrdiff_t>(padded_width * sizeof(float))},
                       &scratch);
      int mismatches = 0, padding_touched = 0;
      for (int y = 0; y < options.output_height; ++y) {
        for (int x = 0; x < padded_width; ++x) {
          const float got = floats[static_cast<size_t>(y) * padded_width + x];
          if (x >= options.output_width) {
            padding_touched += got != -1.0f;
            continue;
          }
          mismatches += got != (expected.mask.at<uint8_t>(y, x) != 0 ? 1.0f : 0.0f);
        }
      }
      EXPECT_EQ(mismatches, 0) << "set " << id << " kernel " << kernel;
      EXPECT_EQ(padding_touched, 0) << "set " << id << " kernel " << kernel;
      EXPECT_EQ(cv::norm(image, expected.image, cv::NORM_INF), 0.0) << "set " << id;
    }
  }
}

// Memory whose last byte sits right before an inaccessible page: a kernel
// that reads past a raster ending there crashes the test instead of reading
// the next row's bytes unnoticed (ASan does not check AVX2 gathers).
class GuardedBytes {
 public:
  explicit GuardedBytes(size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    mapped_ = (bytes + page - 1) / page * page + page;
    base_ = static_cast<uint8_t*>(
        mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) {
      base_ = nullptr;
      return;
    }
    if (mprotect(base_ + mapped_ - page, page, PROT_NONE) != 0) return;
    data_ = base_ + mapped_ - page - bytes;
  }
  ~GuardedBytes() {
    if (base_ != nullptr) munmap(base_, mapped_);
  }
  bool ok() const { return data_ != nullptr; }
  uint8_t* data() const { return data_; }

 private:
  size_t mapped_ = 0;
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
};

// Sources of a few pixels up to wide ones, densely packed and padded, that
// end at a guard page, warped up and down with random parameters: no kernel
// reads past the source's last byte.
TEST(AffineWarpTest, KernelsNeverReadPastTheSourcesLastByte) {
  for (const auto& [width, height, padding] : {std::tuple{1, 1, 0},
                                               {2, 2, 0},
                                               {3, 2, 0},
                                               {4, 3, 0},
                                               {37, 11, 0},
                                               {37, 11, 5},
                                               {160, 3, 0},
                                               {3, 160, 1},
                                               {96, 64, 0}}) {
    const cv::Mat noise = segfeed::testing::NoiseImage(width, height, 3, width * 7 + height);
    const ptrdiff_t image_stride = ptrdiff_t{width} * 3 + padding;
    const ptrdiff_t mask_stride = width + padding;
    GuardedBytes image_bytes(static_cast<size_t>(image_stride) * (height - 1) + width * 3);
    GuardedBytes mask_bytes(static_cast<size_t>(mask_stride) * (height - 1) + width);
    ASSERT_TRUE(image_bytes.ok() && mask_bytes.ok()) << "mmap or mprotect failed";
    for (int y = 0; y < height; ++y) {
      std::memcpy(image_bytes.data() + y * image_stride, noise.ptr(y),
                  static_cast<size_t>(width) * 3);
      for (int x = 0; x < width; ++x) mask_bytes.data()[y * mask_stride + x] = (x + y) % 2;
    }
    const WarpSource source{{image_bytes.data(), width, height, 3, image_stride},
                            {mask_bytes.data(), width, height, 1, mask_stride}};
    AugmentOptions options;
    options.antialias = false;  // a pre-reduce would read the source once, then warp a copy
    for (uint64_t id = 0; id < 24; ++id) {
      options.fill_mode = id % 2 == 0 ? FillMode::kConstant : FillMode::kReflect;
      options.output_width = id % 3 == 0 ? width : 64 + static_cast<int>(id);
      options.output_height = id % 3 == 0 ? height : 48 + static_cast<int>(id);
      const AugmentParams params = id < 2 ? AugmentParams{} : DrawAugmentParams(options, 5, 0, id);
      cv::Mat image_out(options.output_height, options.output_width, CV_8UC3);
      cv::Mat mask_out(options.output_height, options.output_width, CV_8UC1);
      WarpScratch scratch;
      WarpImageAndMask(options, params, source, MutableView(image_out), MutableView(mask_out),
                       &scratch);
      EXPECT_LE(cv::countNonZero(mask_out > 1), 0) << width << "x" << height << " set " << id;
      // The plane warp of decode_colour ycbcr, on the 1-channel source.
      const AffineMatrix m =
          OutputToSourceMatrix(params, width, height, options.output_width, options.output_height);
      WarpBilinearPlane(source.mask, m, BorderOf(options.fill_mode), 0, MutableView(mask_out));
    }
  }
}

TEST(AffineWarpTest, ConstantFillUsesFillValueForImageAndZeroForMask) {
  const cv::Mat image(64, 64, CV_8UC3, cv::Scalar(10, 20, 30));
  const cv::Mat mask(64, 64, CV_8UC1, cv::Scalar(1));
  AugmentOptions options;
  options.output_width = 64;
  options.output_height = 64;
  options.fill_value = 200;
  AugmentParams params;
  params.angle_deg = 45;
  const Warped out = RunWarp(options, params, image, mask);
  // Corners are rotated in from outside; the centre is inside.
  EXPECT_EQ(out.image.at<cv::Vec3b>(0, 0), cv::Vec3b(200, 200, 200));
  EXPECT_EQ(out.mask.at<uint8_t>(0, 0), 0);
  EXPECT_EQ(out.image.at<cv::Vec3b>(32, 32), cv::Vec3b(10, 20, 30));
  EXPECT_EQ(out.mask.at<uint8_t>(32, 32), 1);

  options.fill_mode = FillMode::kReflect;
  const Warped reflected = RunWarp(options, params, image, mask);
  EXPECT_EQ(reflected.image.at<cv::Vec3b>(0, 0), cv::Vec3b(10, 20, 30));
  EXPECT_EQ(reflected.mask.at<uint8_t>(0, 0), 1);
}

// Quality: the fused single warp against a slow reference that area-resizes
// the full-resolution photo to the output size and then flips and rotates it
// with OpenCV, compared over the centre crop (never rotated in from outside).
TEST(AffineWarpTest, QualityMatchesSlowReferenceOnDemoImages) {
  AugmentOptions options;
  const cv::Rect centre(128, 128, 256, 256);
  double min_psnr = 99;
  for (int index = 0; index < 3; ++index) {
    const auto scene = RenderDemoScene(index);
    const cv::Mat half = HalfResolution(scene.image);
    cv::Mat resized;
    cv::resize(scene.image, resized, cv::Size(512, 512), 0, 0, cv::INTER_AREA);
    for (uint64_t id = 0; id < 4; ++id) {
      AugmentParams params = DrawAugmentParams(options, 99, 0, id);
      if (id == 0) params = {};
      cv::Mat expected = resized.clone();
      if (params.flip_lr || params.flip_ud)
        cv::flip(expected, expected,
                 params.flip_lr && params.flip_ud ? -1
                 : params.flip_lr                 ? 1
                                                  : 0);
      if (params.angle_deg != 0) {
        const cv::Mat rotation =
            cv::getRotationMatrix2D(cv::Point2f(255.5f, 255.5f), params.angle_deg, 1.0);
        cv::warpAffine(expected.clone(), expected, rotation, expected.size(), cv::INTER_CUBIC);
      }
      for (const cv::Mat* image : {&half, &scene.image}) {
        const Warped out = RunWarp(options, params, *image, scene.mask);
        const double psnr = Psnr(out.image(centre), expected(centre));
        std::printf("demo %d params %d source %dx%d: PSNR %.2f dB\n", index, static_cast<int>(id),
                    image->cols, image->rows, psnr);
        min_psnr = std::min(min_psnr, psnr);
        EXPECT_GE(psnr, 30.0) << "demo " << index << " params " << id << " source " << image->cols;
      }
    }
  }
  std::printf("minimum PSNR vs slow reference: %.2f dB\n", min_psnr);
}

TEST(AffineWarpTest, PreReduceImprovesQualityFromFullResolution) {
  const auto scene = RenderDemoScene(0);
  AugmentOptions options;
  options.output_width = 256;
  options.output_height = 256;
  cv::Mat expected;
  cv::resize(scene.image, expected, cv::Size(256, 256), 0, 0, cv::INTER_AREA);
  const double with = Psnr(RunWarp(options, {}, scene.image, scene.mask).image, expected);
  options.antialias = false;
  const double without = Psnr(RunWarp(options, {}, scene.image, scene.mask).image, expected);
  std::printf("1918x1280 -> 256x256 PSNR vs area resize: pre-reduce %.2f dB, none %.2f dB\n", with,
              without);
  EXPECT_GT(with, without + 1.0);
}

}  // namespace
}  // namespace segfeed::augment
