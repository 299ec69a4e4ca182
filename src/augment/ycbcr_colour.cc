#include "augment/ycbcr_colour.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <opencv2/core.hpp>

namespace segfeed::internal {
namespace {

// JFIF's conversion, as an affine map on (Y, Cb, Cr, 1).
constexpr double kCrToR = 1.402;
constexpr double kCbToG = -0.344136286;
constexpr double kCrToG = -0.714136286;
constexpr double kCbToB = 1.772;

// A 4x4 affine map (last row 0 0 0 1), row-major.
using Affine4 = std::array<double, 16>;

Affine4 Multiply(const Affine4& a, const Affine4& b) {
  Affine4 product{};
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 4; ++col)
      for (int k = 0; k < 4; ++k) product[row * 4 + col] += a[row * 4 + k] * b[k * 4 + col];
  return product;
}

Affine4 Identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

Affine4 YCbCrToRgbMap() {
  return {1, 0,      kCrToR, -128 * kCrToR, 1, kCbToG, kCrToG, -128 * (kCbToG + kCrToG),
          1, kCbToB, 0,      -128 * kCbToB, 0, 0,      0,      1};
}

Affine4 RgbToYCbCrMap() {
  return {0.299, 0.587,     0.114,     0,   -0.168736, -0.331264, 0.5, 128,
          0.5,   -0.418688, -0.081312, 128, 0,         0,         0,   1};
}

// The jitter in YCbCr space, `means` in Y, Cb, Cr.
Affine4 JitterMap(const AugmentParams& params, const std::array<double, 3>& means) {
  const double c = params.contrast_factor;
  Affine4 contrast = Identity();
  for (int i = 0; i < 3; ++i) {
    contrast[i * 4 + i] = c;
    contrast[i * 4 + 3] = (1 - c) * means[i];
  }
  Affine4 brightness = Identity();
  brightness[3] = params.brightness_delta * 255.0;
  const double s = params.saturation_factor;
  Affine4 saturation = Identity();
  saturation[5] = s, saturation[7] = 128 * (1 - s);
  saturation[10] = s, saturation[11] = 128 * (1 - s);
  const double turn = params.hue_delta * 2 * std::numbers::pi;
  const double cos_turn = std::cos(turn), sin_turn = std::sin(turn);
  Affine4 hue = Identity();
  hue[5] = cos_turn, hue[6] = -sin_turn, hue[7] = 128 * (1 - cos_turn + sin_turn);
  hue[9] = sin_turn, hue[10] = cos_turn, hue[11] = 128 * (1 - sin_turn - cos_turn);
  return Multiply(hue, Multiply(saturation, Multiply(brightness, contrast)));
}

ColourMatrix TopRows(const Affine4& map) {
  ColourMatrix matrix;
  std::copy_n(map.begin(), 12, matrix.begin());
  return matrix;
}

constexpr int kMatrixBits = 12;
// Coefficients beyond this saturate every pixel anyway (a level's step
// moves the output by more than 255); bounding them keeps the sums in
// int32: 3 x 255 x 500 x 4096 + the offset < 2^31.
constexpr double kLargestCoefficient = 500;
constexpr double kLargestOffset = 100'000;

std::array<int32_t, 12> FixedPoint(const ColourMatrix& matrix) {
  std::array<int32_t, 12> fixed;
  for (int i = 0; i < 12; ++i) {
    const double bound = i % 4 == 3 ? kLargestOffset : kLargestCoefficient;
    const double value = std::clamp(matrix[i], -bound, bound) * (1 << kMatrixBits);
    // The offset carries the rounding of the final shift.
    fixed[i] = static_cast<int32_t>(std::lround(value)) +
               (i % 4 == 3 ? int32_t{1} << (kMatrixBits - 1) : 0);
  }
  return fixed;
}

inline uint8_t ClampLevel(int32_t fixed) {
  return static_cast<uint8_t>(std::clamp(fixed >> kMatrixBits, 0, 255));
}

}  // namespace

std::array<int, 3> RgbToYCbCr(const std::array<int, 3>& rgb) {
  const Affine4 map = RgbToYCbCrMap();
  std::array<int, 3> levels;
  for (int i = 0; i < 3; ++i) {
    const double value =
        map[i * 4] * rgb[0] + map[i * 4 + 1] * rgb[1] + map[i * 4 + 2] * rgb[2] + map[i * 4 + 3];
    levels[i] = static_cast<int>(std::clamp(std::lround(value), 0L, 255L));
  }
  return levels;
}

void YCbCrToRgbInPlace(const std::array<MutableRasterView, 3>& planes, ChannelSums* sums) {
  // libjpeg's jdcolor.c: 16 fractional bits, rounding added to R, B and G's
  // Cr term. Planar, so that the loop is one vector loop.
  constexpr int kBits = 16;
  constexpr int32_t kHalf = 1 << (kBits - 1);
  constexpr auto fix = [](double value) {
    return static_cast<int32_t>(value * (1 << kBits) + 0.5);
  };
  constexpr int32_t cr_r = fix(1.40200), cb_b = fix(1.77200);
  constexpr int32_t cb_g = fix(0.34414), cr_g = fix(0.71414);
  for (int y = 0; y < planes[0].height; ++y) {
    // Distinct planes: no store can change another plane's next input, so
    // the loop vectorizes.
    uint8_t* __restrict const luma_red = planes[0].Row(y);
    uint8_t* __restrict const cb_green = planes[1].Row(y);
    uint8_t* __restrict const cr_blue = planes[2].Row(y);
    uint32_t row_r = 0, row_g = 0, row_b = 0;
    const int width = planes[0].width;
    for (int x = 0; x < width; ++x) {
      const int32_t l = luma_red[x], u = cb_green[x] - 128, v = cr_blue[x] - 128;
      const int32_t r = std::clamp(l + ((cr_r * v + kHalf) >> kBits), 0, 255);
      const int32_t g = std::clamp(l + ((-cb_g * u - cr_g * v + kHalf) >> kBits), 0, 255);
      const int32_t b = std::clamp(l + ((cb_b * u + kHalf) >> kBits), 0, 255);
      luma_red[x] = static_cast<uint8_t>(r);
      cb_green[x] = static_cast<uint8_t>(g);
      cr_blue[x] = static_cast<uint8_t>(b);
      row_r += r, row_g += g, row_b += b;
    }
    (*sums)[0] += row_r, (*sums)[1] += row_g, (*sums)[2] += row_b;
  }
}

namespace {

cv::Mat PlaneMat(const MutableRasterView& plane) {
  assert(plane.channels == 1);
  return cv::Mat(plane.height, plane.width, CV_8UC1, plane.data,
                 static_cast<size_t>(plane.stride_bytes));
}

}  // namespace

void InterleavePlanes(const std::array<MutableRasterView, 3>& planes,
                      const MutableRasterView& rgb_out) {
  const cv::Mat sources[3] = {PlaneMat(planes[0]), PlaneMat(planes[1]), PlaneMat(planes[2])};
  cv::Mat rgb(rgb_out.height, rgb_out.width, CV_8UC3, rgb_out.data,
              static_cast<size_t>(rgb_out.stride_bytes));
  [[maybe_unused]] const uchar* caller_memory = rgb.data;
  cv::merge(sources, 3, rgb);
  assert(rgb.data == caller_memory);
}

void SplitPlanes(const RasterView& rgb, const std::array<MutableRasterView, 3>& planes_out) {
  const cv::Mat source(rgb.height, rgb.width, CV_8UC3, const_cast<uint8_t*>(rgb.data),
                       static_cast<size_t>(rgb.stride_bytes));
  cv::Mat planes[3] = {PlaneMat(planes_out[0]), PlaneMat(planes_out[1]), PlaneMat(planes_out[2])};
  cv::split(source, planes);
  assert(planes[0].data == planes_out[0].data);
}

ChannelSums PlaneSums(const std::array<MutableRasterView, 3>& planes) {
  ChannelSums sums{0, 0, 0};
  for (int plane = 0; plane < 3; ++plane) {
    for (int y = 0; y < planes[plane].height; ++y) {
      const uint8_t* row = planes[plane].Row(y);
      uint32_t row_sum = 0;
      for (int x = 0; x < planes[plane].width; ++x) row_sum += row[x];
      sums[plane] += row_sum;
    }
  }
  return sums;
}

ColourMatrix LinearColourFromYCbCr(const AugmentParams& params,
                                   const std::array<double, 3>& means) {
  return TopRows(Multiply(YCbCrToRgbMap(), JitterMap(params, means)));
}

ColourMatrix LinearColourFromRgb(const AugmentParams& params, const std::array<double, 3>& means) {
  const Affine4 to_ycbcr = RgbToYCbCrMap();
  std::array<double, 3> ycbcr_means;
  for (int i = 0; i < 3; ++i) {
    ycbcr_means[i] = to_ycbcr[i * 4] * means[0] + to_ycbcr[i * 4 + 1] * means[1] +
                     to_ycbcr[i * 4 + 2] * means[2] + to_ycbcr[i * 4 + 3];
  }
  return TopRows(Multiply(YCbCrToRgbMap(), Multiply(JitterMap(params, ycbcr_means), to_ycbcr)));
}

void ApplyColourMatrixInPlace(const ColourMatrix& matrix,
                              const std::array<MutableRasterView, 3>& planes) {
  const std::array<int32_t, 12> fixed = FixedPoint(matrix);
  // Locals and restricted rows: a byte store could otherwise alias the
  // coefficients or the other planes, and the loop would stay scalar.
  const int32_t m0 = fixed[0], m1 = fixed[1], m2 = fixed[2], m3 = fixed[3];
  const int32_t m4 = fixed[4], m5 = fixed[5], m6 = fixed[6], m7 = fixed[7];
  const int32_t m8 = fixed[8], m9 = fixed[9], m10 = fixed[10], m11 = fixed[11];
  for (int y = 0; y < planes[0].height; ++y) {
    uint8_t* __restrict const a = planes[0].Row(y);
    uint8_t* __restrict const b = planes[1].Row(y);
    uint8_t* __restrict const c = planes[2].Row(y);
    const int width = planes[0].width;
    for (int x = 0; x < width; ++x) {
      const int32_t p = a[x], q = b[x], r = c[x];
      a[x] = ClampLevel(m0 * p + m1 * q + m2 * r + m3);
      b[x] = ClampLevel(m4 * p + m5 * q + m6 * r + m7);
      c[x] = ClampLevel(m8 * p + m9 * q + m10 * r + m11);
    }
  }
}

}  // namespace segfeed::internal
