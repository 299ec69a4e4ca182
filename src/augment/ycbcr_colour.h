#pragma once

// JPEG's YCbCr (JFIF: full range, BT.601 weights) and RGB, and the linear
// colour model (AugmentOptions::colour_model = linear): the whole colour
// jitter and the conversion as one 3x4 matrix per sample.

#include <array>
#include <cstdint>

#include "augment/output_conversion.h"
#include "augment/raster_view.h"
#include "segfeed/augment.h"

namespace segfeed::augment {

// Y, Cb, Cr of an RGB colour, each rounded to a level (a plane's fill).
std::array<int, 3> RgbToYCbCr(const std::array<int, 3>& rgb);

// Three planes (Y, Cb, Cr, 1 channel each, one size) to R, G, B in the
// same planes, with libjpeg's fixed-point constants (a flat area gets the
// RGB decoder's levels), adding each channel's levels to `sums`.
void YCbCrToRgbInPlace(const std::array<MutableRasterView, 3>& planes, ChannelSums* sums);

// Three planes into an RGB raster (OpenCV's vector merge). Sizes must
// agree.
void InterleavePlanes(const std::array<MutableRasterView, 3>& planes,
                      const MutableRasterView& rgb_out);

// Sums of each plane's levels.
ChannelSums PlaneSums(const std::array<MutableRasterView, 3>& planes);

// out = M * (in0, in1, in2, 1) per pixel, rows of M being R, G and B.
using ColourMatrix = std::array<double, 12>;

// The linear model's matrix from YCbCr to RGB for `params`, applied in the
// order of AugmentOptions: contrast (each channel about its mean over the
// warped image, `means` in Y, Cb, Cr), brightness (added to Y),
// saturation (Cb, Cr scaled about 128), hue (a turn of (Cb, Cr) about
// (128, 128) by hue_delta of the circle, positive from red towards green),
// then the conversion to RGB. Nothing is clamped before the end.
ColourMatrix LinearColourFromYCbCr(const AugmentParams& params, const std::array<double, 3>& means);

// The same from RGB: `params`, the RGB means, the conversion to YCbCr first.
ColourMatrix LinearColourFromRgb(const AugmentParams& params, const std::array<double, 3>& means);

// Applies `matrix` in fixed point (12 fractional bits; each result rounded
// and clamped to 0..255) to every pixel of three planes (input channel c
// from plane c), and writes the results through `converter` to `dst`,
// chunk by chunk, so that the levels go from L1 straight to the
// destination. Integer arithmetic, so the bytes are the same on every
// machine and kernel.
void ApplyColourMatrixAndConvert(const ColourMatrix& matrix,
                                 const std::array<MutableRasterView, 3>& planes,
                                 const OutputConverter& converter, const StridedImage& dst);

// The same for an RGB raster; `dst` may be the uint8 NHWC memory `rgb` is.
void ApplyColourMatrixAndConvert(const ColourMatrix& matrix, const RasterView& rgb,
                                 const OutputConverter& converter, const StridedImage& dst);

}  // namespace segfeed::augment
