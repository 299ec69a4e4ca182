#include "check/check_statistics.h"

#include <algorithm>
#include <cmath>

namespace segfeed::check {
namespace {

using decode::JpegColorspace;
using decode::JpegSubsampling;

const char* SubsamplingName(JpegSubsampling subsampling) {
  switch (subsampling) {
    case JpegSubsampling::k444:
      return "4:4:4";
    case JpegSubsampling::k422:
      return "4:2:2";
    case JpegSubsampling::k420:
      return "4:2:0";
    case JpegSubsampling::kGray:
      return "gray";
    case JpegSubsampling::k440:
      return "4:4:0";
    case JpegSubsampling::k411:
      return "4:1:1";
  }
  return "unknown";
}

const char* ColorspaceName(JpegColorspace colorspace) {
  switch (colorspace) {
    case JpegColorspace::kRgb:
      return "RGB";
    case JpegColorspace::kYCbCr:
      return "YCbCr";
    case JpegColorspace::kGray:
      return "gray";
    case JpegColorspace::kCmyk:
      return "CMYK";
    case JpegColorspace::kYcck:
      return "YCCK";
  }
  return "unknown";
}

}  // namespace

std::string SizeText(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

void AddImage(const FileOutcome& out, CheckStatistics* stats, CheckReport* report) {
  ++report->images_checked;
  if (out.header_read) {
    stats->image_sizes.Add({out.width, out.height});
    stats->process.Add(out.jpeg.progressive ? "progressive" : "baseline");
    stats->entropy.Add(out.jpeg.arithmetic ? "arithmetic" : "huffman");
    stats->subsampling.Add(SubsamplingName(out.jpeg.subsampling));
    stats->colorspace.Add(ColorspaceName(out.jpeg.colorspace));
  }
  if (out.decoded) {
    ++report->statistics_images;
    report->statistics_pixels += static_cast<int64_t>(out.width) * out.height;
    for (int c = 0; c < 3; ++c) {
      stats->channel_sum[c] += out.channel_sum[c];
      stats->channel_sum_squares[c] += out.channel_sum_squares[c];
    }
  }
}

void AddMask(const FileOutcome& out, CheckStatistics* stats, CheckReport* report) {
  ++report->masks_checked;
  if (!out.decoded) return;
  stats->mask_sizes.Add({out.width, out.height});
  stats->bit_depths.Add(out.bit_depth);
  if (out.foreground_pixels > 0) ++stats->masks_with_foreground;
  const double pixels = static_cast<double>(out.width) * out.height;
  const double fraction = pixels > 0 ? static_cast<double>(out.foreground_pixels) / pixels : 0.0;
  report->foreground_min =
      report->foreground_masks == 0 ? fraction : std::min(report->foreground_min, fraction);
  report->foreground_max =
      report->foreground_masks == 0 ? fraction : std::max(report->foreground_max, fraction);
  stats->foreground_sum += fraction;
  const int bin = static_cast<int>(fraction * CheckReport::kForegroundBins);
  ++report->foreground_histogram[std::clamp(bin, 0, CheckReport::kForegroundBins - 1)];
  ++report->foreground_masks;
}

void FinishStatistics(const CheckStatistics& stats, CheckReport* report) {
  if (report->foreground_masks > 0)
    report->foreground_mean = stats.foreground_sum / report->foreground_masks;
  if (report->statistics_pixels > 0) {
    const auto n = static_cast<long double>(report->statistics_pixels);
    for (int c = 0; c < 3; ++c) {
      const long double mean = stats.channel_sum[c] / n;
      report->channel_mean[c] = static_cast<double>(mean);
      if (report->statistics != ChannelStatistics::kExact) continue;
      const long double variance = stats.channel_sum_squares[c] / n - mean * mean;
      report->channel_std[c] = static_cast<double>(std::sqrt(std::max(variance, 0.0L)));
    }
  }
  auto size_text = [](const std::pair<int, int>& size) {
    return SizeText(size.first, size.second);
  };
  report->image_sizes = stats.image_sizes.Sorted(size_text);
  report->mask_sizes = stats.mask_sizes.Sorted(size_text);
  report->jpeg_process = stats.process.Sorted();
  report->jpeg_entropy_coding = stats.entropy.Sorted();
  report->jpeg_subsampling = stats.subsampling.Sorted();
  report->jpeg_colorspace = stats.colorspace.Sorted();
  report->mask_bit_depths = stats.bit_depths.Sorted([](int bits) { return std::to_string(bits); });
}

}  // namespace segfeed::check
