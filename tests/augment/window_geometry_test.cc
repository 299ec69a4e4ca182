// The geometry of resize modes, random scale and crop: where the output
// window lies on the photo, the matrices' exact corners, padding values,
// and that a stretch without them is today's matrix to the last bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/affine_warp.h"
#include "augment/sample_augmenter.h"
#include "augment/simd_dispatch.h"
#include "augment/ycbcr_colour.h"
#include "kernel_scopes.h"
#include "test_rasters.h"

namespace segfeed::augment {
namespace {

using segfeed::testing::MutableView;
using segfeed::testing::View;

AugmentOptions Options(ResizeMode resize, int width, int height) {
  AugmentOptions options;
  options.resize = resize;
  options.output_width = width;
  options.output_height = height;
  return options;
}

// Where source pixel index (x, y) lands in output pixel indices: the
// inverse of the output -> source matrix.
std::array<double, 2> SourceToOutput(const AffineMatrix& m, double x, double y) {
  const double det = m[0] * m[4] - m[1] * m[3];
  const double dx = x - m[2], dy = y - m[5];
  return {(m[4] * dx - m[1] * dy) / det, (-m[3] * dx + m[0] * dy) / det};
}

// The output position (continuous: pixel i spans [i, i + 1]) of the photo's
// continuous point (x, y) under `options` and `params`.
std::array<double, 2> Lands(const AugmentOptions& options, const AugmentParams& params,
                            double photo_width, double photo_height, double x, double y) {
  const WindowPlacement placement = PlaceWindow(options, params, photo_width, photo_height);
  const AffineMatrix m = OutputToSourceMatrix(params, placement, photo_width, photo_height,
                                              options.output_width, options.output_height);
  const auto index = SourceToOutput(m, x - 0.5, y - 0.5);
  return {index[0] + 0.5, index[1] + 0.5};
}

void ExpectNear(const std::array<double, 2>& got, double x, double y) {
  EXPECT_NEAR(got[0], x, 1e-9) << got[0] << ", " << got[1];
  EXPECT_NEAR(got[1], y, 1e-9) << got[0] << ", " << got[1];
}

TEST(WindowGeometryTest, StretchAtScaleOneIsTodaysMatrixBitForBit) {
  const AugmentOptions options = Options(ResizeMode::kStretch, 512, 384);
  for (double angle : {0.0, 17.5, 90.0, -33.0}) {
    for (bool flip : {false, true}) {
      AugmentParams params;
      params.angle_deg = angle;
      params.flip_lr = flip;
      params.crop_x = 0.9;  // no room: ignored
      const WindowPlacement placement = PlaceWindow(options, params, 1918, 1280);
      EXPECT_EQ(placement.scaled_width, 512.0);
      EXPECT_EQ(placement.centre_x, 0.5);
      for (double extent : {1918.0, 959.0, 239.75}) {
        EXPECT_EQ(OutputToSourceMatrix(params, placement, extent, extent * 2 / 3, 512, 384),
                  OutputToSourceMatrix(params, extent, extent * 2 / 3, 512, 384));
      }
    }
  }
}

TEST(WindowGeometryTest, KeepRatioFitsThePhotoAndPadsTheRest) {
  const AugmentOptions options = Options(ResizeMode::kKeepRatio, 512, 512);
  AugmentParams centred;
  const double height = 1280.0 * 512 / 1918;  // 341.7
  ExpectNear(Lands(options, centred, 1918, 1280, 0, 0), 0, (512 - height) / 2);
  ExpectNear(Lands(options, centred, 1918, 1280, 1918, 1280), 512, (512 + height) / 2);
  AugmentParams top;
  top.crop_y = 0;  // the photo at the window's top, the padding below (mmseg's Pad)
  ExpectNear(Lands(options, top, 1918, 1280, 0, 0), 0, 0);
  ExpectNear(Lands(options, top, 1918, 1280, 1918, 1280), 512, height);
}

TEST(WindowGeometryTest, ShortSideCropsTheLongSideWhereTheWindowIs) {
  const AugmentOptions options = Options(ResizeMode::kShortSide, 512, 512);
  AugmentParams left;
  left.crop_x = 0;
  ExpectNear(Lands(options, left, 1918, 1280, 0, 0), 0, 0);
  ExpectNear(Lands(options, left, 1918, 1280, 1280, 1280), 512, 512);
  AugmentParams right;
  right.crop_x = 1;
  ExpectNear(Lands(options, right, 1918, 1280, 1918, 1280), 512, 512);
  ExpectNear(Lands(options, right, 1918, 1280, 638, 0), 0, 0);
}

TEST(WindowGeometryTest, LongSideScalesTheLongerSideToTheOutputs) {
  const AugmentOptions options = Options(ResizeMode::kLongSide, 640, 480);
  AugmentParams params;
  params.crop_y = 0;
  // 1280x1918 portrait: its long side (1918) becomes 640, x is padded.
  const double width = 1280.0 * 640 / 1918;
  ExpectNear(Lands(options, params, 1280, 1918, 1280, 1918), (640 + width) / 2, 640);
}

TEST(WindowGeometryTest, ACropOfAScaledUpPhotoStaysInsideIt) {
  AugmentOptions options = Options(ResizeMode::kKeepRatio, 512, 512);
  options.scale_enabled = true;
  for (double scale : {1.6, 2.0, 3.0}) {
    for (double fraction : {0.0, 0.3, 0.999, 1.0}) {
      AugmentParams params;
      params.scale_factor = scale;
      params.crop_x = fraction;
      params.crop_y = 1 - fraction;
      const WindowPlacement placement = PlaceWindow(options, params, 1918, 1280);
      const AffineMatrix m = OutputToSourceMatrix(params, placement, 1918, 1280, 512, 512);
      for (const auto& [x, y] : std::vector<std::array<double, 2>>{
               {-0.5, -0.5}, {511.5, -0.5}, {-0.5, 511.5}, {511.5, 511.5}}) {
        const double sx = m[0] * x + m[1] * y + m[2] + 0.5;
        const double sy = m[3] * x + m[4] * y + m[5] + 0.5;
        EXPECT_GE(sx, -1e-9) << scale << " " << fraction;
        EXPECT_LE(sx, 1918 + 1e-9) << scale << " " << fraction;
        EXPECT_GE(sy, -1e-9) << scale << " " << fraction;
        EXPECT_LE(sy, 1280 + 1e-9) << scale << " " << fraction;
      }
    }
  }
}

TEST(WindowGeometryTest, OneFactorModesRotateInThePhotosMetric) {
  // The linear part of a rotation after a uniform scale is conformal:
  // orthogonal columns of equal length, whatever the photo's aspect.
  for (ResizeMode mode : {ResizeMode::kKeepRatio, ResizeMode::kShortSide, ResizeMode::kLongSide}) {
    const AugmentOptions options = Options(mode, 512, 256);
    AugmentParams params;
    params.angle_deg = 30;
    const WindowPlacement placement = PlaceWindow(options, params, 1918, 1280);
    const AffineMatrix m = OutputToSourceMatrix(params, placement, 1918, 1280, 512, 256);
    EXPECT_NEAR(m[0] * m[1] + m[3] * m[4], 0, 1e-12);
    EXPECT_NEAR(std::hypot(m[0], m[3]), std::hypot(m[1], m[4]), 1e-12);
  }
}

TEST(WindowGeometryTest, PaddingIsFillValueForImagesAndTheMaskFill) {
  // A 64x32 photo, all 200, with an all-1 mask, fitted into 64x64: rows
  // 0-15 and 48-63 are padding. Turned by 10 degrees, the border pixels
  // blend the fill with the photo, channel by channel.
  const cv::Mat image(32, 64, CV_8UC3, cv::Scalar::all(200));
  const cv::Mat mask(32, 64, CV_8UC1, cv::Scalar(1));
  for (const FillColor& fill_value : {FillColor(7), FillColor(124, 116, 104)}) {
    AugmentOptions options = Options(ResizeMode::kKeepRatio, 64, 64);
    options.fill_value = fill_value;
    const cv::Vec3b fill_pixel(fill_value.rgb[0], fill_value.rgb[1], fill_value.rgb[2]);
    for (uint8_t fill : {uint8_t{0}, uint8_t{255}}) {  // binary background, a label map's ignore
      cv::Mat image_out(64, 64, CV_8UC3), mask_out(64, 64, CV_8UC1);
      WarpScratch scratch;
      WarpSource source{View(image), View(mask)};
      source.mask_fill = fill;
      WarpImageAndMask(options, AugmentParams{}, source, MutableView(image_out),
                       MutableView(mask_out), &scratch);
      for (int y : {0, 15, 48, 63}) {
        EXPECT_EQ(image_out.at<cv::Vec3b>(y, 30), fill_pixel) << y;
        EXPECT_EQ(mask_out.at<uint8_t>(y, 30), fill) << y;
      }
      for (int y : {16, 32, 47}) {
        EXPECT_EQ(image_out.at<cv::Vec3b>(y, 30), cv::Vec3b(200, 200, 200)) << y;
        EXPECT_EQ(mask_out.at<uint8_t>(y, 30), 1) << y;
      }
      AugmentParams turned;
      turned.angle_deg = 10;
      WarpImageAndMask(options, turned, source, MutableView(image_out), MutableView(mask_out),
                       &scratch);
      int blended = 0;
      for (int y = 0; y < 64; ++y) {
        for (int x = 0; x < 64; ++x) {
          const cv::Vec3b pixel = image_out.at<cv::Vec3b>(y, x);
          // Every channel lies between the fill and the photo, in the
          // same proportion (up to the rounding of each, and of the share).
          const double share = (pixel[0] - 200.0) / (fill_pixel[0] - 200.0);
          for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(pixel[c], 200.0 + share * (fill_pixel[c] - 200.0), 1.5) << x << "," << y;
          blended += share > 0.01 && share < 0.99;
        }
      }
      EXPECT_GT(blended, 64);  // the turned edges
    }
  }
}

// The source position (continuous: pixel i spans [i, i + 1]) of output
// pixel (x, y)'s centre.
std::array<double, 2> SourceOf(const AffineMatrix& m, int x, int y) {
  return {m[0] * x + m[1] * y + m[2] + 0.5, m[3] * x + m[4] * y + m[5] + 0.5};
}

// The edges of a photo the window lies past (padding beyond them), from the
// applied geometry: left, right, top, bottom.
std::array<bool, 4> PaddedEdges(const AugmentOptions& options, AugmentParams params, int width,
                                int height) {
  SetAppliedGeometry(options, width, height, &params);
  constexpr double kTolerance = 1e-6;
  return {params.window_x<-kTolerance, params.window_x + params.window_width> width + kTolerance,
          params.window_y<-kTolerance, params.window_y + params.window_height> height + kTolerance};
}

// True where (x, y) lies more than `margin` past an edge in `edges`.
bool PastAnEdge(const std::array<bool, 4>& edges, double x, double y, int width, int height,
                double margin) {
  return (edges[0] && x < -margin) || (edges[1] && x > width + margin) ||
         (edges[2] && y < -margin) || (edges[3] && y > height + margin);
}

int ReflectedIndex(int index, int size) {
  const int period = 2 * size;
  const int i = ((index % period) + period) % period;
  return i < size ? i : period - 1 - i;
}

// One warp's output and what it is checked against.
struct FillCase {
  const cv::Mat& image_out;  // RGB
  const cv::Mat& mask_out;
  const cv::Mat& reference;  // OpenCV's bilinear warp of the photo, reflected borders
  const cv::Mat& mask;       // the source mask
  const AffineMatrix& m;     // output -> source, for the photo's (and mask's) pixels
  std::array<bool, 4> padded;
  FillMode mode;
  cv::Vec3b fill_pixel;
  uint8_t mask_fill;
  const cv::Mat& luma;  // the same warp's Y plane of a grey photo, or empty
  uint8_t fill_luma;
};

struct FillCounts {
  int padding = 0, mirrored = 0, photo = 0;
};

// Pixel by pixel: past a padded edge (by more than the taps reach), the
// fill in image, Y plane and mask whatever the mode; past any other edge,
// the fill under constant and the mirrored photo and labels under reflect;
// inside, the photo and its labels. Pixels whose taps straddle an edge blend
// and are left out.
void CheckFills(const FillCase& c, const std::string& where, FillCounts* counts) {
  const int width = c.mask.cols, height = c.mask.rows;
  // How far the image's taps reach, in photo pixels: a pixel, or a
  // pre-reduced pixel where the photo shrinks by more than 2x.
  const double reach = std::max({1.0, std::hypot(c.m[0], c.m[3]), std::hypot(c.m[1], c.m[4])});
  for (int y = 0; y < c.image_out.rows; ++y) {
    for (int x = 0; x < c.image_out.cols; ++x) {
      const auto [sx, sy] = SourceOf(c.m, x, y);
      // Built only for a failure's message.
      const auto at = [&] {
        return where + " at " + std::to_string(x) + "," + std::to_string(y) + " from " +
               std::to_string(sx) + "," + std::to_string(sy);
      };
      const uint8_t got_mask = c.mask_out.at<uint8_t>(y, x);
      const cv::Vec3b got = c.image_out.at<cv::Vec3b>(y, x);
      // The mask's nearest neighbour has no taps to straddle.
      if (PastAnEdge(c.padded, sx, sy, width, height, 0.01)) {
        ASSERT_EQ(got_mask, c.mask_fill) << at();
      }
      if (PastAnEdge(c.padded, sx, sy, width, height, reach)) {
        ASSERT_EQ(got, c.fill_pixel) << at();
        if (!c.luma.empty()) {
          ASSERT_EQ(c.luma.at<uint8_t>(y, x), c.fill_luma) << at();
        }
        ++counts->padding;
        continue;
      }
      const bool inside = sx > reach && sx < width - reach && sy > reach && sy < height - reach;
      const bool outside = sx < -reach || sx > width + reach || sy < -reach || sy > height + reach;
      if (outside && c.mode == FillMode::kConstant) {
        ASSERT_EQ(got, c.fill_pixel) << at();
        ASSERT_EQ(got_mask, c.mask_fill) << at();
        continue;
      }
      if (!inside && !outside) continue;
      if (outside && PastAnEdge(c.padded, sx, sy, width, height, -reach)) continue;
      const cv::Vec3b want = c.reference.at<cv::Vec3b>(y, x);
      for (int i = 0; i < 3; ++i) ASSERT_NEAR(got[i], want[i], 3) << at();
      const double fx = sx - std::floor(sx), fy = sy - std::floor(sy);
      if (fx > 0.01 && fx < 0.99 && fy > 0.01 && fy < 0.99) {
        const int ix = ReflectedIndex(static_cast<int>(std::floor(sx)), width);
        const int iy = ReflectedIndex(static_cast<int>(std::floor(sy)), height);
        ASSERT_EQ(got_mask, c.mask.at<uint8_t>(iy, ix)) << at();
      }
      (outside ? counts->mirrored : counts->photo) += 1;
    }
  }
}

// CheckFills for every geometry of the test below, on a photo of 48x36
// pixels times `zoom`: a smooth image, so that OpenCV's bilinear warp is a
// close reference (at zoom 10 the warp area-reduces the photo first), and
// blocks of labels 1-5 (or 0/1).
void CheckEveryGeometry(int zoom, FillCounts* counts) {
  const int width = 48 * zoom, height = 36 * zoom;
  cv::Mat image(height, width, CV_8UC3), labels(height, width, CV_8UC1);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      image.at<cv::Vec3b>(y, x) =
          cv::Vec3b(std::lround(40 + 3.0 * x / zoom), std::lround(30 + 4.0 * y / zoom),
                    std::lround(100 + (2.0 * x + y) / zoom));
      labels.at<uint8_t>(y, x) = 1 + (x / (6 * zoom) + 2 * (y / (6 * zoom))) % 5;
    }
  }
  const cv::Mat binary = labels & cv::Scalar(1);
  const FillColor fill_value(7, 9, 11);
  const cv::Vec3b fill_pixel(7, 9, 11);
  const uint8_t fill_luma = static_cast<uint8_t>(RgbToYCbCr(fill_value.rgb)[0]);
  cv::Mat grey;
  cv::cvtColor(image, grey, cv::COLOR_RGB2GRAY);
  const KernelChoice widest = KernelChoiceForTesting();
  const KernelChoice kernels[] = {{false, false}, {widest.avx2, false}, widest};
  for (ResizeMode resize : {ResizeMode::kStretch, ResizeMode::kKeepRatio, ResizeMode::kShortSide,
                            ResizeMode::kLongSide}) {
    AugmentOptions options = Options(resize, 32, 40);
    options.scale_enabled = true;
    options.fill_value = fill_value;
    for (double scale : {0.7, 1.0, 1.6}) {
      for (const auto& [crop_x, crop_y] :
           std::vector<std::array<double, 2>>{{0, 1}, {0.5, 0.5}, {1, 0.3}}) {
        for (double angle : {0.0, 25.0, -140.0}) {
          AugmentParams params;
          params.scale_factor = scale;
          params.crop_x = crop_x;
          params.crop_y = crop_y;
          params.angle_deg = angle;
          params.flip_lr = angle > 0;
          const std::array<bool, 4> padded = PaddedEdges(options, params, width, height);
          const AffineMatrix m = OutputToSourceMatrix(
              params, PlaceWindow(options, params, width, height), width, height, 32, 40);
          for (FillMode mode : {FillMode::kConstant, FillMode::kReflect}) {
            options.fill_mode = mode;
            cv::Mat reference;
            cv::warpAffine(image, reference, cv::Mat(2, 3, CV_64F, const_cast<double*>(m.data())),
                           cv::Size(32, 40), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                           cv::BORDER_REFLECT);
            for (uint8_t mask_fill : {uint8_t{0}, uint8_t{255}}) {  // binary, labels
              const cv::Mat& mask = mask_fill == 0 ? binary : labels;
              const std::string where =
                  "resize " + std::to_string(static_cast<int>(resize)) + " scale " +
                  std::to_string(scale) + " crop " + std::to_string(crop_x) + "," +
                  std::to_string(crop_y) + " angle " + std::to_string(angle) + " " +
                  std::string(FillModeName(mode)) + " zoom " + std::to_string(zoom) +
                  " mask fill " + std::to_string(mask_fill);
              cv::Mat first_image, first_mask;
              for (const KernelChoice& kernel : kernels) {
                ScopedKernelChoice scope(kernel);
                cv::Mat image_out(40, 32, CV_8UC3), mask_out(40, 32, CV_8UC1);
                WarpScratch scratch;
                WarpSource source{View(image), View(mask)};
                source.mask_fill = mask_fill;
                std::optional<ChannelSums> sums;
                WarpImageAndMask(options, params, source, MutableView(image_out),
                                 MutableView(mask_out), &scratch, &sums);
                // The contrast step's means: the sums of the levels written,
                // fill included.
                const cv::Scalar levels = cv::sum(image_out);
                ASSERT_TRUE(sums.has_value()) << where;
                for (int c = 0; c < 3; ++c)
                  ASSERT_EQ((*sums)[c], static_cast<uint64_t>(levels[c])) << where;
                if (first_image.empty()) {
                  first_image = image_out, first_mask = mask_out;
                } else {
                  EXPECT_EQ(cv::norm(image_out, first_image, cv::NORM_INF), 0) << where;
                  EXPECT_EQ(cv::norm(mask_out, first_mask, cv::NORM_INF), 0) << where;
                }
                // The same geometry into a float mask and into a grey photo's
                // Y plane (the ycbcr decode's path).
                cv::Mat float_mask(40, 32, CV_32FC1);
                WarpImageAndMask(options, params, source, MutableView(image_out),
                                 FloatMaskView{float_mask.ptr<float>(), 32, 40,
                                               static_cast<ptrdiff_t>(float_mask.step)},
                                 &scratch);
                cv::Mat planes[3] = {cv::Mat(40, 32, CV_8UC1), cv::Mat(40, 32, CV_8UC1),
                                     cv::Mat(40, 32, CV_8UC1)};
                WarpSource grey_source{View(grey), View(mask)};
                WarpYCbCrPlanes(
                    options, params, grey_source,
                    {MutableView(planes[0]), MutableView(planes[1]), MutableView(planes[2])},
                    &scratch);
                CheckFills({image_out, mask_out, reference, mask, m, padded, mode, fill_pixel,
                            mask_fill, planes[0], fill_luma},
                           where, counts);
                ASSERT_FALSE(::testing::Test::HasFatalFailure());
                for (int y = 0; y < 40; ++y)
                  for (int x = 0; x < 32; ++x)
                    ASSERT_EQ(float_mask.at<float>(y, x), mask_out.at<uint8_t>(y, x) != 0 ? 1 : 0)
                        << where;
              }
            }
          }
        }
      }
    }
  }
}

// Every resize mode, scale, crop, angle, fill mode, mask kind and kernel,
// pixel by pixel: where the window pads the photo (keep_ratio's letterbox, a
// window larger than the scaled photo, short_side and long_side past an
// edge), the image is fill_value and the mask 0 or the ignore value under
// either fill mode, and so is everything past that edge; only past an edge
// the window reaches without padding (the corners a rotation brings in) does
// reflect mirror the photo, image and labels together. The photo itself is
// the photo's, and the kernels agree to the byte.
TEST(WindowGeometryTest, PaddingIsTheFillWhateverTheFillModeAndKernel) {
  FillCounts counts;
  for (int zoom : {1, 10}) {
    CheckEveryGeometry(zoom, &counts);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
  }
  // Each case was seen many times: padding in both modes, mirrored corners.
  std::printf("pixels checked: padding %d, mirrored %d, photo %d\n", counts.padding,
              counts.mirrored, counts.photo);
  EXPECT_GT(counts.padding, 20000);
  EXPECT_GT(counts.mirrored, 2000);
  EXPECT_GT(counts.photo, 20000);
}

// The same rule where a photo is too large for the fixed-point kernels
// (16384 pixels or more on a side) and OpenCV warps it, with one border for
// all four edges: a 16400x300 strip scaled by its short side at 0.7, so
// that the window pads above and below it and a rotation brings in corners
// past its left edge.
TEST(WindowGeometryTest, PaddingIsTheFillOnOpenCvsPathForLargePhotos) {
  constexpr int kWidth = 16400, kHeight = 300;
  cv::Mat image(kHeight, kWidth, CV_8UC3), labels(kHeight, kWidth, CV_8UC1);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      image.at<cv::Vec3b>(y, x) = cv::Vec3b(40 + x % 1600 / 10, 30 + y / 2, 90);
      labels.at<uint8_t>(y, x) = 1 + (x / 50 + y / 50) % 5;
    }
  }
  AugmentOptions options = Options(ResizeMode::kShortSide, 64, 48);
  options.scale_enabled = true;
  options.antialias = false;  // the image too stays larger than the kernels take
  options.fill_value = FillColor(7, 9, 11);
  FillCounts counts;
  for (double angle : {0.0, 30.0}) {
    AugmentParams params;
    params.scale_factor = 0.7;
    params.crop_x = 0;
    params.angle_deg = angle;
    const std::array<bool, 4> padded = PaddedEdges(options, params, kWidth, kHeight);
    ASSERT_EQ(padded, (std::array<bool, 4>{false, false, true, true}));
    const AffineMatrix m = OutputToSourceMatrix(
        params, PlaceWindow(options, params, kWidth, kHeight), kWidth, kHeight, 64, 48);
    cv::Mat reference;
    cv::warpAffine(image, reference, cv::Mat(2, 3, CV_64F, const_cast<double*>(m.data())),
                   cv::Size(64, 48), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REFLECT);
    for (FillMode mode : {FillMode::kConstant, FillMode::kReflect}) {
      options.fill_mode = mode;
      cv::Mat image_out(48, 64, CV_8UC3), mask_out(48, 64, CV_8UC1);
      WarpScratch scratch;
      WarpSource source{View(image), View(labels)};
      source.mask_fill = 255;
      WarpImageAndMask(options, params, source, MutableView(image_out), MutableView(mask_out),
                       &scratch);
      CheckFills({image_out, mask_out, reference, labels, m, padded, mode, cv::Vec3b(7, 9, 11), 255,
                  cv::Mat(), 0},
                 "angle " + std::to_string(angle) + " " + std::string(FillModeName(mode)), &counts);
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
    }
  }
  EXPECT_GT(counts.padding, 1000);
  EXPECT_GT(counts.mirrored, 50);
  EXPECT_GT(counts.photo, 1000);
}

// A crop of a panorama scaled by its short side: the warp area-reduces the
// block the window reaches, not the panorama, within the ceiling the plan
// states, and the picture is the one a reduction of the whole photo gives.
TEST(WindowGeometryTest, APanoramasCropPreReducesOnlyTheWindowsBlock) {
  // 6000x600, a smooth pattern the reduction keeps, into 128x128 at scale
  // 0.5: the photo measures 640x64 output pixels (9.4 photo pixels per
  // output pixel), the window 128 of them.
  cv::Mat image(600, 6000, CV_8UC3);
  for (int y = 0; y < image.rows; ++y)
    for (int x = 0; x < image.cols; ++x)
      image.at<cv::Vec3b>(y, x) =
          cv::Vec3b(static_cast<uint8_t>(x / 24), static_cast<uint8_t>(y / 3),
                    static_cast<uint8_t>((x + y) / 30));
  const cv::Mat mask(600, 6000, CV_8UC1, cv::Scalar(1));
  AugmentOptions options = Options(ResizeMode::kShortSide, 128, 128);
  options.scale_enabled = true;
  options.scale_factor = {0.5, 0.5};
  options.rotation_fraction = 0.1;
  for (double crop_x : {0.0, 0.37, 1.0}) {
    for (double angle : {0.0, 30.0}) {
      AugmentParams params;
      params.scale_factor = 0.5;
      params.crop_x = crop_x;
      params.angle_deg = angle;
      cv::Mat image_out(128, 128, CV_8UC3), mask_out(128, 128, CV_8UC1);
      WarpScratch scratch;
      WarpImageAndMask(options, params, WarpSource{View(image), View(mask)}, MutableView(image_out),
                       MutableView(mask_out), &scratch);
      // The factor is 5 on both axes (the smallest >= 9.375 / 2 that
      // divides): reducing the whole panorama would take 1200x120x3 bytes.
      const int factor = PreReduceFactor(6000.0 / 640, 6000);
      ASSERT_EQ(factor, 5);
      const size_t whole_bytes = size_t{6000 / 5} * (600 / 5) * 3;
      EXPECT_GT(scratch.reduced_image.size(), 0u);
      EXPECT_LE(scratch.reduced_image.size(), MaxPreReducedBytes(options));
      EXPECT_LT(scratch.reduced_image.size(), whole_bytes / 3);

      // The reference: the whole photo area-reduced by the same factor,
      // warped without a pre-reduction.
      cv::Mat whole;
      cv::resize(image, whole, cv::Size(6000 / factor, 600 / factor), 0, 0, cv::INTER_AREA);
      AugmentOptions direct = options;
      direct.antialias = false;
      cv::Mat reference(128, 128, CV_8UC3), reference_mask(128, 128, CV_8UC1);
      WarpSource reduced_source{View(whole), View(mask)};
      reduced_source.image_scale = 1.0 / factor;
      WarpImageAndMask(direct, params, reduced_source, MutableView(reference),
                       MutableView(reference_mask), &scratch);
      cv::Mat difference;
      cv::absdiff(image_out, reference, difference);
      double largest = 0;
      cv::minMaxLoc(difference.reshape(1), nullptr, &largest);
      EXPECT_LE(largest, 1.0) << "crop_x " << crop_x << ", angle " << angle;
    }
  }
}

TEST(WindowGeometryTest, TheWindowIsDrawnOnlyWhenItCanMove) {
  AugmentOptions options;
  const AugmentParams stretched = DrawAugmentParams(options, 1, 2, 3);
  EXPECT_EQ(stretched.crop_x, 0.5);
  EXPECT_EQ(stretched.scale_factor, 1.0);
  options.resize = ResizeMode::kShortSide;
  options.scale_enabled = true;
  const AugmentParams drawn = DrawAugmentParams(options, 1, 2, 3);
  EXPECT_EQ(drawn, DrawAugmentParams(options, 1, 2, 3));
  EXPECT_NE(drawn.crop_x, 0.5);
  EXPECT_GE(drawn.scale_factor, 0.5);
  EXPECT_LE(drawn.scale_factor, 2.0);
  // The other parameters keep their stream positions.
  EXPECT_EQ(drawn.angle_deg, stretched.angle_deg);
  EXPECT_EQ(drawn.hue_delta, stretched.hue_delta);
  options.crop = CropPlacement::kCenter;
  EXPECT_EQ(DrawAugmentParams(options, 1, 2, 3).crop_x, 0.5);
}

TEST(WindowGeometryTest, TheAppliedGeometryIsTheWarpsMatrixAndItsInverse) {
  AugmentOptions options = Options(ResizeMode::kShortSide, 512, 256);
  options.scale_enabled = true;
  AugmentParams params;
  params.scale_factor = 1.5;
  params.crop_x = 0.25;
  params.angle_deg = 20;
  params.flip_lr = true;
  SetAppliedGeometry(options, 1918, 1280, &params);
  EXPECT_EQ(params.source_width, 1918);
  const WindowPlacement placement = PlaceWindow(options, params, 1918, 1280);
  const AffineMatrix m = OutputToSourceMatrix(params, placement, 1918, 1280, 512, 256);
  const Affine2x3& to_source = params.output_to_source;
  EXPECT_EQ((AffineMatrix{to_source.xx, to_source.xy, to_source.x0, to_source.yx, to_source.yy,
                          to_source.y0}),
            m);
  // Forward then back is the identity.
  const Affine2x3& f = params.source_to_output;
  for (const auto& [x, y] : std::vector<std::array<double, 2>>{{0, 0}, {700, 300}, {1917, 1279}}) {
    const double ox = f.xx * x + f.xy * y + f.x0, oy = f.yx * x + f.yy * y + f.y0;
    EXPECT_NEAR(to_source.xx * ox + to_source.xy * oy + to_source.x0, x, 1e-9);
    EXPECT_NEAR(to_source.yx * ox + to_source.yy * oy + to_source.y0, y, 1e-9);
  }
  // The window: 256 output rows are 256 / (1280 * 0.2 * 1.5) of the photo's height.
  EXPECT_NEAR(params.window_height, 1280.0 * 256 / (256 * 1.5), 1e-9);
  EXPECT_NEAR(params.window_width, 2 * params.window_height, 1e-9);
  EXPECT_NEAR(params.window_x, 0.25 * (1918 - params.window_width), 1e-9);
}

// A 200x50 label map: class 1 on columns 0-149, classes 2 and 3 in
// alternate columns on 150-199. A 50x50 window at offset ox (short_side:
// scale 1, room 150 along x) keeps class 1 at or under 75% of its pixels
// exactly when ox >= 112.5, crop_x >= 0.75: a quarter of the draws.
TEST(WindowGeometryTest, CropMaxClassRatioRedrawsUntilNoClassDominates) {
  cv::Mat mask(50, 200, CV_8UC1, cv::Scalar(1));
  for (int x = 150; x < 200; ++x) mask.col(x).setTo(x % 2 == 0 ? 2 : 3);
  const cv::Mat image(50, 200, CV_8UC3, cv::Scalar::all(90));
  AugmentOptions options = Options(ResizeMode::kShortSide, 50, 50);
  options.crop_max_class_ratio = 0.75;
  options.rotation_fraction = 0;
  options.flip_lr_probability = options.flip_ud_probability = 0;
  SampleAugmenter augmenter(options, OutputOptions{}, MaskEncoding{true, 255, 255});
  WarpSource source{View(image), View(mask)};
  int fallbacks = 0;
  constexpr int kSamples = 400;
  for (uint64_t id = 0; id < kSamples; ++id) {
    AugmentParams params = DrawAugmentParams(options, 11, 0, id);
    std::vector<double> draws = {params.crop_x};
    const int drawn = augmenter.ChooseWindow(source, &params, [&](int attempt, AugmentParams* p) {
      RedrawCrop(11, 0, id, attempt, p);
      draws.push_back(p->crop_x);
    });
    ASSERT_EQ(drawn, static_cast<int>(draws.size()));
    ASSERT_LE(drawn, kCropRedraws);
    // Every rejected window was one that class 1 dominates.
    for (size_t k = 0; k + 1 < draws.size(); ++k) EXPECT_LT(draws[k], 0.75 + 1e-9) << id;
    if (params.crop_x >= 0.75 + 1e-9) continue;  // passed
    EXPECT_EQ(drawn, kCropRedraws) << id;        // the tenth window stays when none passed
    ++fallbacks;
    // The same draws again: a function of (seed, epoch, sample, attempt).
    AugmentParams again = DrawAugmentParams(options, 11, 0, id);
    augmenter.ChooseWindow(
        source, &again, [&](int attempt, AugmentParams* p) { RedrawCrop(11, 0, id, attempt, p); });
    EXPECT_EQ(again.crop_x, params.crop_x);
  }
  // 0.75^10 = 5.6% of the samples find no window; far fewer than without redraws (75%).
  EXPECT_LT(fallbacks, kSamples / 8);
  // Binary masks and crop_max_class_ratio 1 draw once.
  SampleAugmenter binary(options, OutputOptions{});
  AugmentParams params = DrawAugmentParams(options, 11, 0, 1);
  EXPECT_EQ(binary.ChooseWindow(source, &params, [](int, AugmentParams*) { FAIL(); }), 1);
}

}  // namespace
}  // namespace segfeed::augment
