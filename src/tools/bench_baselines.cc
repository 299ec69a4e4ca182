#include "tools/bench_baselines.h"

#include <gif_lib.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

#include "io/pair_reader.h"
#include "pipeline/worker_arena.h"
#include "segfeed/augment.h"

namespace segfeed::tools {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What a user would write to read a GIF mask: the whole-file API, a fresh
// allocation per file, palette index of "white" as foreground.
cv::Mat ReadMaskNaively(const std::filesystem::path& path) {
  int error = 0;
  GifFileType* gif = DGifOpenFileName(path.c_str(), &error);
  if (!gif) throw std::runtime_error(path.string() + ": " + GifErrorString(error));
  if (DGifSlurp(gif) != GIF_OK || gif->ImageCount < 1) {
    DGifCloseFile(gif, &error);
    throw std::runtime_error(path.string() + ": cannot read GIF");
  }
  const SavedImage& frame = gif->SavedImages[0];
  cv::Mat indices(frame.ImageDesc.Height, frame.ImageDesc.Width, CV_8UC1, frame.RasterBits);
  cv::Mat mask = indices > 0;  // 0/255
  DGifCloseFile(gif, &error);
  return mask;
}

}  // namespace

double DecodeOnlyPairsPerSecond(const std::vector<SamplePair>& pairs, const LoaderOptions& options,
                                int threads) {
  internal::WorkerArena arena(threads);
  tbb::concurrent_queue<std::unique_ptr<internal::PairReader>> readers;
  for (int i = 0; i < threads; ++i) readers.push(std::make_unique<internal::PairReader>(options.decode));
  const int width = options.augment.output_width;
  const int height = options.augment.output_height;
  const Clock::time_point start = Clock::now();
  arena.arena()->execute([&] {
    tbb::parallel_for(size_t{0}, pairs.size(), [&](size_t i) {
      std::unique_ptr<internal::PairReader> reader;
      // At most `threads` bodies run at once in the arena, so one is free.
      while (!readers.try_pop(reader)) {
      }
      (void)reader->Read(pairs[i], width, height);  // bad files cost what they cost
      readers.push(std::move(reader));
    });
  });
  return static_cast<double>(pairs.size()) / SecondsSince(start);
}

double NaiveBaselinePairsPerSecond(const std::vector<SamplePair>& pairs, const LoaderOptions& options,
                                   int max_pairs) {
  cv::setNumThreads(1);
  const int count = std::min<int>(max_pairs, static_cast<int>(pairs.size()));
  const cv::Size out(options.augment.output_width, options.augment.output_height);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < count; ++i) {
    cv::Mat image = cv::imread(pairs[i].image_path.string(), cv::IMREAD_COLOR);
    if (image.empty()) continue;
    cv::Mat mask = ReadMaskNaively(pairs[i].mask_path);
    const AugmentParams p = DrawAugmentParams(options.augment, options.seed, 0, static_cast<uint64_t>(i));
    if (p.flip_lr) {
      cv::flip(image, image, 1);
      cv::flip(mask, mask, 1);
    }
    if (p.flip_ud) {
      cv::flip(image, image, 0);
      cv::flip(mask, mask, 0);
    }
    if (p.angle_deg != 0.0) {
      const cv::Mat rotation =
          cv::getRotationMatrix2D(cv::Point2f(image.cols / 2.0f, image.rows / 2.0f), p.angle_deg, 1.0);
      cv::warpAffine(image, image, rotation, image.size(), cv::INTER_LINEAR);
      cv::warpAffine(mask, mask, rotation, mask.size(), cv::INTER_NEAREST);
    }
    cv::resize(image, image, out, 0, 0, cv::INTER_LINEAR);
    cv::resize(mask, mask, out, 0, 0, cv::INTER_NEAREST);
    cv::Mat pixels;
    image.convertTo(pixels, CV_32F, 1.0 / 255.0);
    const cv::Scalar mean = cv::mean(pixels);
    pixels = (pixels - mean) * p.contrast_factor + mean;
    pixels += cv::Scalar::all(p.brightness_delta);
    cv::min(cv::max(pixels, 0.0), 1.0, pixels);
    cv::Mat hsv;
    cv::cvtColor(pixels, hsv, cv::COLOR_BGR2HSV);
    std::vector<cv::Mat> channels;
    cv::split(hsv, channels);
    channels[1] = cv::min(channels[1] * p.saturation_factor, 1.0);
    channels[0] += p.hue_delta * 360.0;
    channels[0].forEach<float>([](float& h, const int*) { h = h < 0 ? h + 360.0f : (h >= 360.0f ? h - 360.0f : h); });
    cv::merge(channels, hsv);
    cv::cvtColor(hsv, pixels, cv::COLOR_HSV2BGR);
    cv::Mat mask_out;
    mask.convertTo(mask_out, CV_32F, 1.0 / 255.0);
  }
  return count / SecondsSince(start);
}

}  // namespace segfeed::tools
