#include "augment/ycbcr_colour.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <opencv2/core.hpp>

#include "augment/jitter_kernels.h"
#include "augment/simd_dispatch.h"

namespace segfeed::augment {
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

FixedColourMatrix FixedPoint(const ColourMatrix& matrix) {
  FixedColourMatrix fixed;
  for (int i = 0; i < 12; ++i) {
    const double bound = i % 4 == 3 ? kLargestOffset : kLargestCoefficient;
    const double value = std::clamp(matrix[i], -bound, bound) * (1 << kMatrixBits);
    // The offset carries the rounding of the final shift.
    fixed.m[i] = static_cast<int32_t>(std::lround(value)) +
                 (i % 4 == 3 ? int32_t{1} << (kMatrixBits - 1) : 0);
  }
  fixed.shift = kMatrixBits;
  return fixed;
}

inline uint8_t ClampLevel(int32_t fixed, int shift) {
  return static_cast<uint8_t>(std::clamp(fixed >> shift, 0, 255));
}

// The vector kernels' one-pixel version: pixels first .. count - 1, each
// input channel read as in(c, i).
template <typename Input>
void ColourMatrixScalar(const FixedColourMatrix& matrix, Input in, int first, int count,
                        uint8_t* out0, uint8_t* out1, uint8_t* out2) {
  const int32_t* m = matrix.m;
  const int shift = matrix.shift;
  for (int i = first; i < count; ++i) {
    const int32_t p = in(0, i), q = in(1, i), r = in(2, i);
    out0[i] = ClampLevel(m[0] * p + m[1] * q + m[2] * r + m[3], shift);
    out1[i] = ClampLevel(m[4] * p + m[5] * q + m[6] * r + m[7], shift);
    out2[i] = ClampLevel(m[8] * p + m[9] * q + m[10] * r + m[11], shift);
  }
}

// The sum of a row's levels (a 32-bit total: vectorises, and a row of
// 2^24 pixels fits).
inline uint32_t RowSum(const uint8_t* row, int width) {
  uint32_t sum = 0;
  for (int x = 0; x < width; ++x) sum += row[x];
  return sum;
}

// Pixels per chunk, as the colour jitter's: the levels of a chunk stay in
// L1 between the matrix and the conversion.
constexpr int kChunk = 512;

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
  // Cr term, as a matrix: y + ((k * (c - 128) + half) >> 16) is
  // (65536 y + k c - 128 k + half) >> 16 exactly.
  constexpr int kBits = 16;
  constexpr int32_t kHalf = 1 << (kBits - 1);
  constexpr auto fix = [](double value) {
    return static_cast<int32_t>(value * (1 << kBits) + 0.5);
  };
  constexpr int32_t one = 1 << kBits, cr_r = fix(1.40200), cb_b = fix(1.77200);
  constexpr int32_t cb_g = fix(0.34414), cr_g = fix(0.71414);
  const FixedColourMatrix conversion{{one, 0, cr_r, kHalf - 128 * cr_r,                //
                                      one, -cb_g, -cr_g, kHalf + 128 * (cb_g + cr_g),  //
                                      one, cb_b, 0, kHalf - 128 * cb_b},
                                     kBits};
  const bool avx2 = CpuHasAvx2();
  for (int y = 0; y < planes[0].height; ++y) {
    uint8_t* const rows[3] = {planes[0].Row(y), planes[1].Row(y), planes[2].Row(y)};
    const int width = planes[0].width;
    // In place: each pixel's three levels are read before any is written.
    const int done = avx2 ? ColourMatrixPlanarAvx2(conversion, rows[0], rows[1], rows[2], width,
                                                   rows[0], rows[1], rows[2])
                          : 0;
    ColourMatrixScalar(
        conversion, [&rows](int c, int i) { return int32_t{rows[c][i]}; }, done, width, rows[0],
        rows[1], rows[2]);
    for (int c = 0; c < 3; ++c) (*sums)[c] += RowSum(rows[c], width);
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

ChannelSums PlaneSums(const std::array<MutableRasterView, 3>& planes) {
  ChannelSums sums{0, 0, 0};
  for (int plane = 0; plane < 3; ++plane)
    for (int y = 0; y < planes[plane].height; ++y)
      sums[plane] += RowSum(planes[plane].Row(y), planes[plane].width);
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

void ApplyColourMatrixAndConvert(const ColourMatrix& matrix,
                                 const std::array<MutableRasterView, 3>& planes,
                                 const OutputConverter& converter, const StridedImage& dst) {
  const FixedColourMatrix fixed = FixedPoint(matrix);
  const bool avx2 = CpuHasAvx2();
  alignas(64) uint8_t out0[kChunk], out1[kChunk], out2[kChunk];
  for (int y = 0; y < planes[0].height; ++y) {
    const uint8_t* const rows[3] = {planes[0].Row(y), planes[1].Row(y), planes[2].Row(y)};
    for (int x0 = 0; x0 < planes[0].width; x0 += kChunk) {
      const int n = std::min(kChunk, planes[0].width - x0);
      const uint8_t* const in[3] = {rows[0] + x0, rows[1] + x0, rows[2] + x0};
      const int done =
          avx2 ? ColourMatrixPlanarAvx2(fixed, in[0], in[1], in[2], n, out0, out1, out2) : 0;
      ColourMatrixScalar(
          fixed, [&in](int c, int i) { return int32_t{in[c][i]}; }, done, n, out0, out1, out2);
      converter.ConvertPlanarSpan(out0, out1, out2, n, dst, y, x0);
    }
  }
}

void ApplyColourMatrixAndConvert(const ColourMatrix& matrix, const RasterView& rgb,
                                 const OutputConverter& converter, const StridedImage& dst) {
  assert(rgb.channels == 3);
  const FixedColourMatrix fixed = FixedPoint(matrix);
  const bool avx2 = CpuHasAvx2();
  alignas(64) uint8_t out0[kChunk], out1[kChunk], out2[kChunk];
  for (int y = 0; y < rgb.height; ++y) {
    for (int x0 = 0; x0 < rgb.width; x0 += kChunk) {
      const int n = std::min(kChunk, rgb.width - x0);
      const uint8_t* const p = rgb.Row(y) + 3 * x0;
      const int done = avx2 ? ColourMatrixInterleavedAvx2(fixed, p, n, out0, out1, out2) : 0;
      ColourMatrixScalar(
          fixed, [p](int c, int i) { return int32_t{p[3 * i + c]}; }, done, n, out0, out1, out2);
      converter.ConvertPlanarSpan(out0, out1, out2, n, dst, y, x0);
    }
  }
}

}  // namespace segfeed::augment
