#pragma once

#include "segfeed/augment.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// A rectangle of a raster, in its pixels.
struct PixelRect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

// The part of a photo's decoded image that WarpImageAndMask() reads for
// one sample: the bilinear taps of every output pixel with a margin of
// kFootprintMarginPixels, their mirror images where they pass an edge the
// border mirrors, and the block the warp area-reduces first when it
// shrinks by more than 2x (PlanPreReduction), all within the image. Known
// before decoding: it depends on `params` (drawn first) and the photo's
// size, not on its pixels, so a decoder can decode only this part.
// `image_scale` is image pixels per photo pixel (the DCT scale), and the
// image is image_width x image_height of them (the scale's rounded-up
// size). RGB images only: a YCbCr photo's planes are read as a whole.
PixelRect WarpImageFootprint(const AugmentOptions& options, const AugmentParams& params,
                             int photo_width, int photo_height, double image_scale, int image_width,
                             int image_height);

// Pixels past the outermost taps that the footprint holds too: the taps are
// computed in fixed point by the warp and in double here.
constexpr int kFootprintMarginPixels = 3;

}  // namespace segfeed::augment
