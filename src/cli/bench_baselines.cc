#include "cli/bench_baselines.h"

#include <gif_lib.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#if SEGFEED_NAIVE_BASELINE
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/imgproc.hpp>
#include <span>
#include <string>

#include "decode/gif_memory_source.h"
#include "io/pair_reader.h"
#include "segfeed/augment.h"
#include "source/read_buffer.h"
#include "worker_arena.h"

#ifndef SEGFEED_NAIVE_BASELINE
#define SEGFEED_NAIVE_BASELINE 0
#endif

namespace segfeed::cli {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Why giflib failed. GifErrorString() is NULL for a code it does not know,
// and DGifOpen() leaves the code at 0 when the screen descriptor is cut.
std::string GifFailure(const decode::GifMemorySource& source, int giflib_error) {
  if (source.ran_out)
    return "truncated GIF: data ends after " + std::to_string(source.bytes.size()) + " bytes";
  const char* reason = GifErrorString(giflib_error);
  return std::string("corrupt GIF: ") +
         (reason ? reason : "giflib error " + std::to_string(giflib_error));
}

// What a user would write to decode an image: OpenCV's whole-file decoder.
Result<cv::Mat> DecodeImageNaively(std::span<const uint8_t> bytes, const std::string& path) {
  auto corrupt = [&](const std::string& detail) {
    return Error{ErrorKind::kCorruptImage, path, detail};
  };
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Error{ErrorKind::kTooLarge, path, "file too large for OpenCV"};
  }
  try {
    // OpenCV only reads through the Mat header here.
    const cv::Mat encoded(1, static_cast<int>(bytes.size()), CV_8UC1,
                          const_cast<uint8_t*>(bytes.data()));
#if SEGFEED_NAIVE_BASELINE
    cv::Mat image = cv::imdecode(encoded, cv::IMREAD_COLOR);
    if (image.empty()) return corrupt("OpenCV cannot decode it as an image");
    return image;
#else
    // Not reached: RunBench refuses --baseline first (NaiveBaselineBuilt).
    return corrupt("this build has no OpenCV imgcodecs");
#endif
  } catch (const cv::Exception& e) {
    return corrupt(std::string("OpenCV cannot decode it: ") + e.what());
  }
}

// What a user would write to read a GIF mask: the whole-file API, a fresh
// allocation per file, palette index of "white" as foreground.
Result<cv::Mat> DecodeMaskNaively(std::span<const uint8_t> bytes, const std::string& path,
                                  int64_t max_pixels) {
  auto corrupt = [&](const std::string& detail) {
    return Error{ErrorKind::kCorruptMask, path, detail};
  };
  decode::GifMemorySource source{bytes};
  int error = 0;
  std::unique_ptr<GifFileType, decode::GifCloser> gif(
      DGifOpen(&source, decode::ReadGifFromMemory, &error));
  if (!gif) return corrupt(GifFailure(source, error) + " in the header");
  if (static_cast<int64_t>(gif->SWidth) * gif->SHeight > max_pixels) {
    return Error{ErrorKind::kTooLarge, path,
                 "GIF logical screen claims " + std::to_string(gif->SWidth) + "x" +
                     std::to_string(gif->SHeight)};
  }
  if (DGifSlurp(gif.get()) != GIF_OK) return corrupt(GifFailure(source, gif->Error));
  if (gif->ImageCount < 1) return corrupt("GIF has no image");
  const SavedImage& frame = gif->SavedImages[0];
  if (frame.RasterBits == nullptr || frame.ImageDesc.Width <= 0 || frame.ImageDesc.Height <= 0) {
    return corrupt("GIF's first image is empty");
  }
  const cv::Mat indices(frame.ImageDesc.Height, frame.ImageDesc.Width, CV_8UC1, frame.RasterBits);
  return cv::Mat(indices > 0);  // 0/255, a copy that outlives `gif`
}

}  // namespace

double DecodeOnlyPairsPerSecond(source::SampleSource& source, const LoaderOptions& options,
                                int threads) {
  WorkerArena arena(threads);
  tbb::concurrent_queue<std::unique_ptr<io::PairReader>> readers;
  // The bound is the RGB decode's whatever the run's decode_colour: a
  // YCbCr run is measured against the decode it replaces.
  DecodeOptions decode = options.decode;
  decode.decode_colour = DecodeColour::kRgb;
  for (int i = 0; i < threads; ++i) readers.push(std::make_unique<io::PairReader>(decode));
  const int width = options.augment.output_width;
  const int height = options.augment.output_height;
  const size_t count = source.sample_count();
  const Clock::time_point start = Clock::now();
  arena.arena()->execute([&] {
    tbb::parallel_for(size_t{0}, count, [&](size_t i) {
      std::unique_ptr<io::PairReader> reader;
      // At most `threads` bodies run at once in the arena, so one is free.
      while (!readers.try_pop(reader)) {
      }
      // Bad files cost what they cost.
      (void)reader->Read(source, static_cast<source::SampleId>(i), width, height);
      readers.push(std::move(reader));
    });
  });
  return static_cast<double>(count) / SecondsSince(start);
}

bool NaiveBaselineBuilt() { return SEGFEED_NAIVE_BASELINE != 0; }

Result<double> NaiveBaselinePairsPerSecond(source::SampleSource& source,
                                           const LoaderOptions& options, int max_pairs) {
  cv::setNumThreads(1);
  const int count = std::min<int>(max_pairs, static_cast<int>(source.sample_count()));
  const cv::Size out(options.augment.output_width, options.augment.output_height);
  source::ReadBuffer buffer(options.decode.max_file_bytes);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < count; ++i) {
    const auto id = static_cast<source::SampleId>(i);
    // The buffer's bytes last until its next Read(): decode each file first.
    auto image_bytes = source.Read(id, source::Member::kImage, &buffer);
    if (!image_bytes.ok()) return image_bytes.error();
    Result<cv::Mat> decoded_image =
        DecodeImageNaively(image_bytes.value(), source.MemberName(id, source::Member::kImage));
    if (!decoded_image.ok()) return decoded_image.error();
    auto mask_bytes = source.Read(id, source::Member::kMask, &buffer);
    if (!mask_bytes.ok()) return mask_bytes.error();
    Result<cv::Mat> decoded_mask =
        DecodeMaskNaively(mask_bytes.value(), source.MemberName(id, source::Member::kMask),
                          options.decode.max_pixels);
    if (!decoded_mask.ok()) return decoded_mask.error();
    cv::Mat image = std::move(decoded_image).value();
    cv::Mat mask = std::move(decoded_mask).value();
    const AugmentParams p =
        DrawAugmentParams(options.augment, options.seed, 0, static_cast<uint64_t>(i));
    if (p.flip_lr) {
      cv::flip(image, image, 1);
      cv::flip(mask, mask, 1);
    }
    if (p.flip_ud) {
      cv::flip(image, image, 0);
      cv::flip(mask, mask, 0);
    }
    if (p.angle_deg != 0.0) {
      const cv::Mat rotation = cv::getRotationMatrix2D(
          cv::Point2f(image.cols / 2.0f, image.rows / 2.0f), p.angle_deg, 1.0);
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
    channels[0].forEach<float>(
        [](float& h, const int*) { h = h < 0 ? h + 360.0f : (h >= 360.0f ? h - 360.0f : h); });
    cv::merge(channels, hsv);
    cv::cvtColor(hsv, pixels, cv::COLOR_HSV2BGR);
    cv::Mat mask_out;
    mask.convertTo(mask_out, CV_32F, 1.0 / 255.0);
  }
  return static_cast<double>(count) / SecondsSince(start);
}

}  // namespace segfeed::cli
