#include "augment/affine_warp.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/warp_scalar.h"
#include "augment/ycbcr_colour.h"

namespace segfeed::augment {
namespace {

cv::Mat ConstMat(const RasterView& view) {
  assert(view.channels == 1 || view.channels == 3);
  // OpenCV takes non-const data for headers; the Mat is only read.
  return cv::Mat(view.height, view.width, CV_MAKETYPE(CV_8U, view.channels),
                 const_cast<uint8_t*>(view.data), static_cast<size_t>(view.stride_bytes));
}

// The other way: a view of an 8-bit OpenCV raster (1 or 3 channels).
RasterView ViewOf(const cv::Mat& mat) {
  return {mat.data, mat.cols, mat.rows, mat.channels(), static_cast<ptrdiff_t>(mat.step)};
}

cv::Mat WritableMat(const MutableRasterView& view) {
  assert(view.channels == 1 || view.channels == 3);
  return cv::Mat(view.height, view.width, CV_MAKETYPE(CV_8U, view.channels), view.data,
                 static_cast<size_t>(view.stride_bytes));
}

// OpenCV's warp, for sources too large for the fixed-point kernels. Its
// border is one for all four edges: where `border` mirrors some edges and
// fills others, the pixels whose taps may reach past a filled edge are
// taken from a constant warp and the rest from a reflected one (so a tap
// past a mirrored edge too, in the corner where the two kinds meet, takes
// the fill).
void Warp(const cv::Mat& source, const AffineMatrix& m, int interpolation, const Border& border,
          const cv::Scalar& constant_fill, cv::Mat& out) {
  const cv::Mat matrix(2, 3, CV_64F, const_cast<double*>(m.data()));
  const bool mirror_all =
      border.mirror_left && border.mirror_right && border.mirror_top && border.mirror_bottom;
  const bool mirror_any =
      border.mirror_left || border.mirror_right || border.mirror_top || border.mirror_bottom;
  // `out` wraps the caller's memory with the right size and type, so
  // warpAffine writes in place and never reallocates.
  [[maybe_unused]] const uchar* caller_memory = out.data;
  cv::warpAffine(source, out, matrix, out.size(), interpolation | cv::WARP_INVERSE_MAP,
                 mirror_all ? cv::BORDER_REFLECT : cv::BORDER_CONSTANT, constant_fill);
  assert(out.data == caller_memory);
  if (mirror_all || !mirror_any) return;
  cv::Mat mirrored(out.size(), out.type());
  cv::warpAffine(source, mirrored, matrix, out.size(), interpolation | cv::WARP_INVERSE_MAP,
                 cv::BORDER_REFLECT);
  const double last_x = source.cols - 1.0, last_y = source.rows - 1.0;
  for (int y = 0; y < out.rows; ++y) {
    for (int x = 0; x < out.cols; ++x) {
      const double sx = m[0] * x + m[1] * y + m[2], sy = m[3] * x + m[4] * y + m[5];
      const bool near_filled_edge =
          (sx < 1 && !border.mirror_left) || (sx > last_x - 1 && !border.mirror_right) ||
          (sy < 1 && !border.mirror_top) || (sy > last_y - 1 && !border.mirror_bottom);
      if (!near_filled_edge) std::memcpy(out.ptr(y, x), mirrored.ptr(y, x), out.elemSize());
    }
  }
}

// The mask's warp into `out`'s elements (see WarpNearestMask).
template <typename T>
void WarpMask(const AugmentOptions& options, const AugmentParams& params,
              const WindowPlacement& placement, const RasterView& mask, uint8_t fill, T* out,
              int output_width, int output_height, ptrdiff_t out_stride_bytes) {
  // Nearest neighbour: masks must stay exactly 0 or 1, labels exactly
  // labels. A constant fill is background (or a label map's ignore value),
  // whatever the image's fill value.
  const AffineMatrix mask_matrix =
      OutputToSourceMatrix(params, placement, mask.width, mask.height, output_width, output_height);
  const Border border = BorderFor(options, placement);
  if (FitsFixedPoint(mask_matrix, output_width, output_height, mask)) {
    WarpNearestMask(mask, mask_matrix, border, fill, out, output_width, output_height,
                    out_stride_bytes);
    return;
  }
  cv::Mat warped;
  if constexpr (std::is_same_v<T, uint8_t>)
    warped =
        cv::Mat(output_height, output_width, CV_8UC1, out, static_cast<size_t>(out_stride_bytes));
  else
    warped.create(output_height, output_width, CV_8UC1);
  Warp(ConstMat(mask), mask_matrix, cv::INTER_NEAREST, border, cv::Scalar::all(fill), warped);
  if constexpr (std::is_same_v<T, float>) {
    // Only sources too large for the fixed-point kernels come here.
    for (int y = 0; y < output_height; ++y) {
      T* dst = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(out) + y * out_stride_bytes);
      for (int x = 0; x < output_width; ++x) dst[x] = warped.at<uint8_t>(y, x) != 0 ? 1.0f : 0.0f;
    }
  }
}

}  // namespace

PreReduction PlanPreReduction(const AugmentOptions& options, const WindowPlacement& placement,
                              const AffineMatrix& image_matrix, int image_width, int image_height,
                              double extent_width, double extent_height) {
  if (!options.antialias) return {};
  const int factor_x = PreReduceFactor(extent_width / placement.scaled_width, image_width);
  const int factor_y = PreReduceFactor(extent_height / placement.scaled_height, image_height);
  if (factor_x == 1 && factor_y == 1) return {};
  // The image positions of the output's corner pixels bound those of all
  // its pixels (the map is affine).
  const int corner_x[] = {0, options.output_width - 1};
  const int corner_y[] = {0, options.output_height - 1};
  double low_x = INFINITY, high_x = -INFINITY, low_y = INFINITY, high_y = -INFINITY;
  for (int u : corner_x) {
    for (int v : corner_y) {
      const double px = image_matrix[0] * u + image_matrix[1] * v + image_matrix[2];
      const double py = image_matrix[3] * u + image_matrix[4] * v + image_matrix[5];
      low_x = std::min(low_x, px), high_x = std::max(high_x, px);
      low_y = std::min(low_y, py), high_y = std::max(high_y, py);
    }
  }
  // One axis's block: the pixels the bilinear taps touch, two reduced
  // pixels more on each side, aligned to the factor, within the image. Taps
  // past a mirrored edge read pixels mirrored from inside: the whole axis.
  const Border border = BorderFor(options, placement);
  auto span = [&](double low, double high, bool mirror_low, bool mirror_high, int factor,
                  int pixels, int* start, int* length) {
    if ((mirror_low && low < 0) || (mirror_high && high > pixels - 1)) {
      *start = 0, *length = pixels;
      return;
    }
    const double first = std::floor(low) - 2.0 * factor;
    const double last = std::floor(high) + 2.0 + 2.0 * factor;  // one past
    const double aligned_first = std::floor(first / factor) * factor;
    const double aligned_last = std::ceil(last / factor) * factor;
    const int begin = static_cast<int>(std::clamp(aligned_first, 0.0, pixels - 1.0));
    const int end = static_cast<int>(std::clamp(aligned_last, begin + 1.0, double(pixels)));
    *start = begin, *length = end - begin;
  };
  PreReduction block;
  span(low_x, high_x, border.mirror_left, border.mirror_right, factor_x, image_width, &block.x,
       &block.width);
  span(low_y, high_y, border.mirror_top, border.mirror_bottom, factor_y, image_height, &block.y,
       &block.height);
  block.reduced_width = std::max(1, (block.width + factor_x / 2) / factor_x);
  block.reduced_height = std::max(1, (block.height + factor_y / 2) / factor_y);
  block.whole = block.width == image_width && block.height == image_height;
  return block;
}

size_t MaxPreReducedBytes(const AugmentOptions& options) {
  const double width = options.output_width;
  const double height = options.output_height;
  // What the taps span, in output pixels: the window, or its diagonal on
  // both axes once it may turn.
  const bool turns = options.rotation_fraction > 0;
  const double diagonal = std::hypot(width, height);
  const double span_x = turns ? diagonal : width;
  const double span_y = turns ? diagonal : height;
  // The block's margin and alignment add at most 7 reduced pixels an axis.
  double reduced_x = 2 * span_x + 7;
  double reduced_y = 2 * span_y + 7;
  if (options.resize == ResizeMode::kStretch || options.resize == ResizeMode::kKeepRatio) {
    // The scaled photo is at most the output size times the largest scale.
    const double scale = options.scale_enabled ? std::max(1.0, options.scale_factor.max) : 1.0;
    reduced_x = std::min(reduced_x, 2 * width * scale + 2);
    reduced_y = std::min(reduced_y, 2 * height * scale + 2);
  }
  return static_cast<size_t>(std::ceil(reduced_x)) * static_cast<size_t>(std::ceil(reduced_y)) * 3;
}

int PreReduceFactor(double source_pixels_per_output_pixel, int source_pixels) {
  if (!(source_pixels_per_output_pixel > 2.0)) return 1;
  const int largest = static_cast<int>(std::floor(source_pixels_per_output_pixel));
  const int smallest = static_cast<int>(std::ceil(source_pixels_per_output_pixel / 2.0));
  for (int factor = std::max(smallest, 2); factor <= largest; ++factor)
    if (source_pixels % factor == 0) return factor;
  return largest;
}

namespace {

// The raster the warp samples for `image` (1 or 3 channels) covering
// extent_width x extent_height of its own pixels, and its output -> raster
// matrix in `matrix`: `image` itself, or where it must shrink by more than
// 2x, a block of it area-reduced into `scratch`.
cv::Mat PreReduced(const AugmentOptions& options, const AugmentParams& params,
                   const WindowPlacement& placement, const RasterView& image, double extent_width,
                   double extent_height, int output_width, int output_height,
                   std::vector<uint8_t>* scratch, AffineMatrix* matrix) {
  cv::Mat whole = ConstMat(image);
  AffineMatrix image_matrix = OutputToSourceMatrix(params, placement, extent_width, extent_height,
                                                   output_width, output_height);
  const PreReduction block = PlanPreReduction(options, placement, image_matrix, image.width,
                                              image.height, extent_width, extent_height);
  if (block.reduced_width == 0) {
    *matrix = image_matrix;
    return whole;
  }
  scratch->resize(block.bytes() / 3 * image.channels);
  cv::Mat reduced(block.reduced_height, block.reduced_width, CV_MAKETYPE(CV_8U, image.channels),
                  scratch->data());
  // Area averaging maps the block's extent onto the reduced raster
  // (OpenCV's fast integer path when the sizes divide exactly), so the
  // reduced pixels keep the extent convention above.
  cv::resize(whole(cv::Rect(block.x, block.y, block.width, block.height)), reduced, reduced.size(),
             0, 0, cv::INTER_AREA);
  const double ratio_x = static_cast<double>(block.reduced_width) / block.width;
  const double ratio_y = static_cast<double>(block.reduced_height) / block.height;
  if (block.whole) {
    // The whole image: the matrix of the reduced extent, as it always was.
    image_matrix = OutputToSourceMatrix(params, placement, extent_width * ratio_x,
                                        extent_height * ratio_y, output_width, output_height);
  } else {
    // A block: image position p is reduced position (p + 0.5 - x) * ratio - 0.5.
    for (int i = 0; i < 3; ++i) image_matrix[i] *= ratio_x;
    for (int i = 3; i < 6; ++i) image_matrix[i] *= ratio_y;
    image_matrix[2] += (0.5 - block.x) * ratio_x - 0.5;
    image_matrix[5] += (0.5 - block.y) * ratio_y - 0.5;
  }
  *matrix = image_matrix;
  return reduced;
}

// Image pixels per mask pixel on each axis (see WarpSource::image_scale).
std::pair<double, double> ImageScale(const WarpSource& source) {
  if (source.image_scale > 0) return {source.image_scale, source.image_scale};
  return {static_cast<double>(source.image.width) / source.mask.width,
          static_cast<double>(source.image.height) / source.mask.height};
}

void WarpImage(const AugmentOptions& options, const AugmentParams& params,
               const WindowPlacement& placement, const WarpSource& source,
               const MutableRasterView& image_out, WarpScratch* scratch,
               std::optional<ChannelSums>* image_sums) {
  assert(source.image.channels == 3 && source.mask.channels == 1);
  assert(source.image.stride_bytes >= source.image.width * 3);
  assert(source.mask.stride_bytes >= source.mask.width);
  assert(image_out.channels == 3);
  const auto [scale_x, scale_y] = ImageScale(source);
  // The image's extent in its own pixels: the mask's extent at its scale.
  AffineMatrix image_matrix;
  const cv::Mat image =
      PreReduced(options, params, placement, source.image, source.mask.width * scale_x,
                 source.mask.height * scale_y, image_out.width, image_out.height,
                 &scratch->reduced_image, &image_matrix);

  const RasterView image_view = ViewOf(image);
  if (FitsFixedPoint(image_matrix, image_out.width, image_out.height, image_view)) {
    ChannelSums sums{0, 0, 0};
    const std::array<int, 3>& fill = options.fill_value.rgb;
    WarpBilinearRgb(image_view, image_matrix, BorderFor(options, placement),
                    {static_cast<uint8_t>(fill[0]), static_cast<uint8_t>(fill[1]),
                     static_cast<uint8_t>(fill[2])},
                    image_out, &sums);
    if (image_sums != nullptr) *image_sums = sums;
  } else {
    if (image_sums != nullptr) image_sums->reset();
    cv::Mat image_dst = WritableMat(image_out);
    const std::array<int, 3>& fill = options.fill_value.rgb;
    Warp(image, image_matrix, cv::INTER_LINEAR, BorderFor(options, placement),
         cv::Scalar(fill[0], fill[1], fill[2]), image_dst);
  }
}

// Where the Y plane was sampled: the raster's size and the output -> raster
// matrix.
struct LumaSampling {
  int width = 0;
  int height = 0;
  AffineMatrix matrix{};
};

// The fill colour in each YCbCr plane.
std::array<int, 3> FillLevels(const AugmentOptions& options) {
  return RgbToYCbCr(options.fill_value.rgb);
}

}  // namespace

void WarpYCbCrPlanes(const AugmentOptions& options, const AugmentParams& params,
                     const WarpSource& source, const std::array<MutableRasterView, 3>& planes_out,
                     WarpScratch* scratch) {
  assert(source.image.channels == 1 && source.mask.channels == 1);
  const WindowPlacement placement =
      PlaceWindow(options, params, source.mask.width, source.mask.height);
  const auto [scale_x, scale_y] = ImageScale(source);
  const double luma_width = source.mask.width * scale_x;
  const double luma_height = source.mask.height * scale_y;
  const std::array<int, 3> fill = FillLevels(options);
  const Border border = BorderFor(options, placement);
  const bool grey = source.chroma[0].data == nullptr;
  // A constant fill enters each output pixel of the RGB warp by the share
  // of its taps outside the photo, in every channel alike, and libjpeg's
  // upsampling repeats the chroma's outermost sample up to the photo's
  // edge. A chroma plane warped with the fill on its own does neither: a
  // chroma sample spans several luma pixels, so its taps leave the plane up
  // to a sample before the luma's leave the photo, and the fill would blend
  // into pixels the Y warp takes wholly from the photo. So at the edges each
  // chroma pixel is taken again with its taps clamped to the plane (a grey
  // photo's: 128) and the fill blended in by the share the
  // Y warp took from outside: the Y raster it sampled (the photo's, or its
  // pre-reduced block) and its matrix. Not for a Y that OpenCV warped (a
  // source beyond 16.16): its chroma keeps OpenCV's fill.
  std::optional<LumaSampling> luma;
  for (int plane = 0; plane < (grey ? 1 : 3); ++plane) {
    // A chroma raster covers the photo's extent with 1/step of the luma's
    // pixels on each axis: its matrix is the luma's, scaled, so that the
    // bilinear taps upsample the chroma at the output positions.
    const RasterView& view = plane == 0 ? source.image : source.chroma[plane - 1];
    const double step_x = plane == 0 ? 1.0 : source.chroma_step_x;
    const double step_y = plane == 0 ? 1.0 : source.chroma_step_y;
    const MutableRasterView& out = planes_out[plane];
    assert(out.channels == 1);
    AffineMatrix matrix;
    const cv::Mat raster =
        PreReduced(options, params, placement, view, luma_width / step_x, luma_height / step_y,
                   out.width, out.height, &scratch->reduced_image, &matrix);
    const RasterView raster_view = ViewOf(raster);
    const bool fixed_point = FitsFixedPoint(matrix, out.width, out.height, raster_view);
    if (fixed_point) {
      WarpBilinearPlane(raster_view, matrix, border, static_cast<uint8_t>(fill[plane]), out);
    } else {
      cv::Mat dst = WritableMat(out);
      Warp(raster, matrix, cv::INTER_LINEAR, border, cv::Scalar(fill[plane]), dst);
    }
    if (plane == 0 && fixed_point && options.fill_mode == FillMode::kConstant)
      luma = LumaSampling{raster_view.width, raster_view.height, matrix};
    // Before the next plane's pre-reduction takes the scratch this raster
    // may lie in.
    if (plane > 0 && fixed_point && luma)
      BlendFillByCoverage(raster_view, matrix, luma->width, luma->height, luma->matrix,
                          static_cast<uint8_t>(fill[plane]), out);
  }
  if (grey) {
    for (int plane = 1; plane < 3; ++plane) {
      for (int y = 0; y < planes_out[plane].height; ++y)
        std::fill_n(planes_out[plane].Row(y), planes_out[plane].width, uint8_t{128});
      if (luma && fill[plane] != 128)  // else the fill's chroma is the photo's
        BlendFillByCoverage(RasterView{}, luma->matrix, luma->width, luma->height, luma->matrix,
                            static_cast<uint8_t>(fill[plane]), planes_out[plane]);
    }
  }
}

void WarpMaskOnly(const AugmentOptions& options, const AugmentParams& params,
                  const RasterView& mask, uint8_t fill, const MutableRasterView& mask_out) {
  const WindowPlacement placement = PlaceWindow(options, params, mask.width, mask.height);
  WarpMask(options, params, placement, mask, fill, mask_out.data, mask_out.width, mask_out.height,
           mask_out.stride_bytes);
}

void WarpImageAndMask(const AugmentOptions& options, const AugmentParams& params,
                      const WarpSource& source, const MutableRasterView& image_out,
                      const MutableRasterView& mask_out, WarpScratch* scratch,
                      std::optional<ChannelSums>* image_sums) {
  assert(mask_out.channels == 1);
  const WindowPlacement placement =
      PlaceWindow(options, params, source.mask.width, source.mask.height);
  WarpImage(options, params, placement, source, image_out, scratch, image_sums);
  WarpMask(options, params, placement, source.mask, source.mask_fill, mask_out.data, mask_out.width,
           mask_out.height, mask_out.stride_bytes);
}

void WarpImageAndMask(const AugmentOptions& options, const AugmentParams& params,
                      const WarpSource& source, const MutableRasterView& image_out,
                      const FloatMaskView& mask_out, WarpScratch* scratch,
                      std::optional<ChannelSums>* image_sums) {
  const WindowPlacement placement =
      PlaceWindow(options, params, source.mask.width, source.mask.height);
  WarpImage(options, params, placement, source, image_out, scratch, image_sums);
  WarpMask(options, params, placement, source.mask, source.mask_fill, mask_out.data, mask_out.width,
           mask_out.height, mask_out.stride_bytes);
}

}  // namespace segfeed::augment
