#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "augment/raster_view.h"
#include "augment/window_geometry.h"
#include "segfeed/augment.h"
#include "segfeed/options.h"

namespace segfeed::augment {

// One sample's decoded rasters.
struct WarpSource {
  // RGB, 3 channels; may be a reduced (DCT-scaled) decode of the photo. Or
  // a YCbCr photo's Y plane (1 channel), for WarpYCbCrPlanes().
  RasterView image;
  // 1 channel, 0/1 (or class ids), at the photo's full resolution.
  RasterView mask;
  // Image pixels per mask pixel, e.g. 0.5 for a 1/2 DCT decode; both axes.
  // 0 means "infer": image.width / mask.width and image.height / mask.height.
  // Pass the decoder's exact scale when known: libjpeg-turbo rounds scaled
  // sizes up (1918/8 -> 240), and inferring from those counts would shift the
  // image against the mask by up to half a reduced pixel at the far edge.
  double image_scale = 0.0;
  // What the mask is taken to hold where the warp fills (see BorderFor):
  // background 0, or a label map's ignore value (MaskEncoding::fill()).
  uint8_t mask_fill = 0;
  // With a Y plane: the Cb and Cr planes (data nullptr for a grey photo),
  // each sample spanning chroma_step_x x chroma_step_y luma samples.
  std::array<RasterView, 2> chroma{};
  int chroma_step_x = 1;
  int chroma_step_y = 1;
};

// Memory one thread reuses across samples for the pre-reduced image, so the
// steady state allocates nothing. Not shared between threads.
struct WarpScratch {
  std::vector<uint8_t> reduced_image;
};

// Integer area-reduction factor applied to the image along one axis of
// `source_pixels` pixels before the warp, given the remaining downscale
// `source_pixels_per_output_pixel`: 1 up to 2x; else a factor k with
// downscale/2 <= k <= downscale, so the bilinear warp is left with at most
// 2x. Among those, the smallest that divides `source_pixels` exactly, because
// OpenCV's area resize is several times faster for exact integer ratios
// (1918 -> 959, not 1918 -> 639); if none divides, floor(downscale).
int PreReduceFactor(double source_pixels_per_output_pixel, int source_pixels);

// What the warp area-reduces before it samples, when the image shrinks by
// more than 2x on an axis: a block of the decoded image, reduced to
// reduced_width x reduced_height (0 x 0: nothing, the image is warped as it
// is). The block is the whole image when the window's taps reach all of it
// (a stretch), else only the part they reach plus a margin, aligned to the
// factors: a crop of a panorama scaled by its short side reduces a window's
// worth, not the panorama, so the scratch stays within
// MaxPreReducedBytes() whatever the photo's aspect.
struct PreReduction {
  int x = 0, y = 0, width = 0, height = 0;  // the block, in image pixels
  int reduced_width = 0;
  int reduced_height = 0;
  bool whole = false;  // the block is the whole image
  size_t bytes() const { return static_cast<size_t>(reduced_width) * reduced_height * 3; }
};

// The pre-reduction for an image of image_width x image_height pixels
// covering extent_width x extent_height of the photo (see
// OutputToSourceMatrix), sampled through `image_matrix` (output -> image)
// for `placement`.
PreReduction PlanPreReduction(const AugmentOptions& options, const WindowPlacement& placement,
                              const AffineMatrix& image_matrix, int image_width, int image_height,
                              double extent_width, double extent_height);

// The most bytes a pre-reduced block can take under `options`, for any
// photo: each axis is at most twice what the window's taps span in output
// pixels (the factor is at least half the downscale) plus the margin, and
// under stretch and keep_ratio at most twice the scaled photo.
size_t MaxPreReducedBytes(const AugmentOptions& options);

// Warps image (bilinear, weights in 1/128 pixel, integer arithmetic:
// bit-exact and independent of the thread count) and mask (nearest neighbour: output values are
// source values, so a 0/1 mask stays exactly 0/1) to the output size in one pass each, straight
// into the caller's rasters. `image_out` must be output_width x output_height x 3 and `mask_out`
// the same x 1, not overlapping the sources. When options.antialias is set and the image must
// shrink by more than 2x on an axis, it is first area-reduced into
// `scratch` (see PreReduceFactor). `options` must be valid.
//
// When `image_sums` is given, it receives the exact sums of each channel's
// levels over `image_out`, added up by the warp as it writes them (the
// contrast step's means, without a pass of their own), or nullopt where the
// warp fell back to OpenCV for a source too large for its kernels.
void WarpImageAndMask(const AugmentOptions& options, const AugmentParams& params,
                      const WarpSource& source, const MutableRasterView& image_out,
                      const MutableRasterView& mask_out, WarpScratch* scratch,
                      std::optional<ChannelSums>* image_sums = nullptr);

// The mask's part of WarpImageAndMask alone, into `mask_out` (output size,
// one channel), with `fill` where the warp fills (see BorderFor).
void WarpMaskOnly(const AugmentOptions& options, const AugmentParams& params,
                  const RasterView& mask, uint8_t fill, const MutableRasterView& mask_out);

// Warps a YCbCr photo's planes (source.image is Y, source.chroma Cb and
// Cr) bilinearly to three output-size planes, Y, Cb, Cr: each plane through
// the same geometry, the chroma's matrix scaled for its subsampling, so
// that the chroma is upsampled by the warp's own interpolation at the
// output positions. Each plane is area-reduced first where it must shrink
// by more than 2x (as WarpImageAndMask does). A grey photo's chroma planes
// are written 128. Under a constant fill the chroma within a sample of the
// photo's edge repeats the edge sample (as libjpeg's upsampling does) and
// each plane takes the fill by the share the Y warp takes from outside the
// photo, so the colour at the edge is the RGB warp's. Uses segfeed's
// fixed-point warp (OpenCV's for sources beyond it): bit-exact, whatever
// the thread count or the vector unit. The mask is WarpMaskOnly's.
void WarpYCbCrPlanes(const AugmentOptions& options, const AugmentParams& params,
                     const WarpSource& source, const std::array<MutableRasterView, 3>& planes_out,
                     WarpScratch* scratch);

// A float32 mask raster: `height` rows of `width` elements, rows
// `stride_bytes` apart (a batch slot's mask).
struct FloatMaskView {
  float* data = nullptr;
  int width = 0;
  int height = 0;
  ptrdiff_t stride_bytes = 0;
};

// The same warp with the mask written straight as float32, 1.0 for every
// nonzero source value and 0.0 elsewhere: exactly what warping to uint8 and
// then converting gives, without the uint8 raster or the second pass.
void WarpImageAndMask(const AugmentOptions& options, const AugmentParams& params,
                      const WarpSource& source, const MutableRasterView& image_out,
                      const FloatMaskView& mask_out, WarpScratch* scratch,
                      std::optional<ChannelSums>* image_sums = nullptr);

}  // namespace segfeed::augment
