#pragma once

#include <array>

#include "segfeed/augment.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// A 2x3 matrix {a, b, c, d, e, f}, row-major, that maps an output pixel index
// (x, y) to the source position (a*x + b*y + c, d*x + e*y + f), both in
// OpenCV's pixel-index convention (pixel (i, j) has its centre at (i, j)).
using AffineMatrix = std::array<double, 6>;

// The fused geometry of one sample, output -> source.
//
// Convention: a raster of W x H pixels covers the continuous rectangle
// [0, W] x [0, H]; pixel i has its centre at i + 0.5. The forward chain is
//   resize the source extent onto the output extent (stretching if the aspect
//   ratios differ), flip left-right / up-down, rotate by angle_deg
//   counter-clockwise about the output centre (W_out/2, H_out/2),
// and the matrix is its inverse, expressed in pixel indices. Because it is
// built from extents rather than pixel counts, rasters of one scene at
// different resolutions (a 1/2 DCT-decoded photo and its full-size mask) get
// matrices that land on the same physical point for every output pixel.
//
// source_width/height are the source extent in source pixels; they may be
// fractional (a 1/8 DCT decode of 1918 pixels covers 239.75 of its pixels).
// Multiples of 90 degrees use exact sines and cosines, so those rotations
// are exact pixel permutations on a square output.
AffineMatrix OutputToSourceMatrix(const AugmentParams& params, double source_width,
                                  double source_height, int output_width, int output_height);

// Where one sample's output window lies on its photo, whatever raster of the
// photo (a DCT-reduced decode, the full-size mask) it is applied to: the
// photo scaled (resize mode, then the random scale) measures
// scaled_width x scaled_height output pixels, and the window's centre lies
// at (centre_x, centre_y) as fractions of the photo's extent.
struct WindowPlacement {
  double scaled_width = 0;
  double scaled_height = 0;
  double centre_x = 0.5;
  double centre_y = 0.5;
};

// The placement for a photo of photo_width x photo_height pixels (its full
// resolution, the mask's) under `options` and `params`. Stretch without a
// random scale is exactly the output size, centred, so its matrices are
// today's to the last bit.
WindowPlacement PlaceWindow(const AugmentOptions& options, const AugmentParams& params,
                            double photo_width, double photo_height);

// The output -> source matrix of a raster covering the photo's extent with
// extent_width x extent_height of its own pixels, for `placement`. The
// forward chain: scale the photo to scaled_width x scaled_height, cut the
// window around the placement's centre, flip and rotate about the window's
// centre. With keep_ratio, short_side and long_side the scale is the same
// on both axes, so angles are angles on the photo; with stretch the
// rotation turns the stretched picture.
AffineMatrix OutputToSourceMatrix(const AugmentParams& params, const WindowPlacement& placement,
                                  double extent_width, double extent_height, int output_width,
                                  int output_height);

// What a tap past each edge of the source reads: the pixel mirrored about
// that edge ("fedcba|abcdef"), or the fill. A tap past two edges (a corner)
// is mirrored only when both mirror.
struct Border {
  bool mirror_left = false;
  bool mirror_right = false;
  bool mirror_top = false;
  bool mirror_bottom = false;
};

// The border of one sample's warp, for every raster of its photo: under
// FillMode::kReflect, the edges of the photo that the window reaches without
// padding past them mirror (the corners a rotation brings in are the photo
// mirrored, image and mask alike); an edge the window pads past is filled,
// so the padding, and all that lies beyond it, is fill_value in the image
// and the mask's fill. FillMode::kConstant fills past every edge.
Border BorderFor(const AugmentOptions& options, const WindowPlacement& placement);

}  // namespace segfeed::augment
