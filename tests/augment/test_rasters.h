#pragma once

// Inputs for the augment tests, made in memory with OpenCV: views over
// cv::Mat, make-demo scenes at full and half resolution, noise, differences.

#include <cmath>
#include <cstdint>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/raster_view.h"
#include "counter_rng.h"
#include "demo/demo_scene.h"
#include "segfeed/augment.h"

namespace segfeed::testing {

inline augment::RasterView View(const cv::Mat& m) {
  return {m.data, m.cols, m.rows, m.channels(), static_cast<ptrdiff_t>(m.step)};
}

inline augment::MutableRasterView MutableView(cv::Mat& m) {
  return {m.data, m.cols, m.rows, m.channels(), static_cast<ptrdiff_t>(m.step)};
}

// A make-demo photo (1918x1280 RGB) and its 0/1 mask.
struct DemoScene {
  cv::Mat image;  // CV_8UC3, RGB order
  cv::Mat mask;   // CV_8UC1, 0/1
};

inline DemoScene RenderDemoScene(int index) {
  demo::DemoOptions options;
  demo::DemoRaster raster;
  demo::RenderDemoSample(options, index, &raster);
  DemoScene scene;
  scene.image = cv::Mat(raster.height, raster.width, CV_8UC3, raster.rgb.data()).clone();
  scene.mask = cv::Mat(raster.height, raster.width, CV_8UC1, raster.mask.data()).clone();
  return scene;
}

// What a 1/2 DCT-scaled JPEG decode looks like: each pixel the average of a
// 2x2 block of the full-resolution photo.
inline cv::Mat HalfResolution(const cv::Mat& image) {
  cv::Mat half;
  cv::resize(image, half, cv::Size((image.cols + 1) / 2, (image.rows + 1) / 2), 0, 0,
             cv::INTER_AREA);
  return half;
}

// Uniform noise, a pure function of `seed`.
inline cv::Mat NoiseImage(int width, int height, int channels, uint64_t seed) {
  cv::Mat out(height, width, CV_MAKETYPE(CV_8U, channels));
  CounterRng rng(seed);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * channels; ++x) out.ptr<uint8_t>(y)[x] = rng.NextU64() & 0xff;
  return out;
}

// Largest absolute difference between two 8-bit images of the same shape.
inline int MaxAbsDiff(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d;
  cv::absdiff(a.reshape(1), b.reshape(1), d);
  double max_diff = 0;
  cv::minMaxLoc(d, nullptr, &max_diff);
  return static_cast<int>(max_diff);
}

// The colour jitter parameters, for failure messages.
inline std::string DescribeJitter(const AugmentParams& params) {
  return "contrast " + std::to_string(params.contrast_factor) + " brightness " +
         std::to_string(params.brightness_delta) + " saturation " +
         std::to_string(params.saturation_factor) + " hue " + std::to_string(params.hue_delta);
}

// Peak signal-to-noise ratio in dB between two 8-bit images.
inline double Psnr(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat diff;
  cv::absdiff(a, b, diff);
  diff.convertTo(diff, CV_64F);
  const cv::Scalar sums = cv::sum(diff.mul(diff));
  const double mse = (sums[0] + sums[1] + sums[2] + sums[3]) / (a.total() * a.channels());
  return mse == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace segfeed::testing
