#include "cli/check_html_thumbnails.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <unordered_set>

#include "cli/preview_grid.h"
#include "counter_rng.h"
#include "decode/mask_values.h"
#include "io/dataset_source.h"
#include "output/image_writers.h"

namespace segfeed::cli {
namespace {

// Small enough to keep a report of 250 thumbnails near 2 MB, sharp enough
// to see a mask's edge.
constexpr int kThumbnailQuality = 80;
// A mask drawn without its photo lies on this grey.
constexpr uint8_t kMaskPanelGrey = 96;

std::string Base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t left = bytes.size() - i;
    uint32_t chunk = static_cast<uint8_t>(bytes[i]) << 16;
    if (left > 1) chunk |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (left > 2) chunk |= static_cast<uint8_t>(bytes[i + 2]);
    text += kDigits[(chunk >> 18) & 63];
    text += kDigits[(chunk >> 12) & 63];
    text += left > 1 ? kDigits[(chunk >> 6) & 63] : '=';
    text += left > 2 ? kDigits[chunk & 63] : '=';
  }
  return text;
}

std::string SizeCaption(const char* what, int width, int height) {
  return std::string(what) + std::to_string(width) + "x" + std::to_string(height);
}

// The lenient reader's options: in labels mode without a label_map or
// mask_colors, every value below the ignore value a class, so a map with
// values out of range decodes and they can be drawn. None otherwise.
std::unique_ptr<io::PairReader> LenientReader(const DecodeOptions& decode) {
  if (decode.mask_mode != MaskMode::kLabels || !decode.label_map.empty() ||
      !decode.mask_colors.empty() || decode.mask_ignore_value <= decode.num_classes) {
    return nullptr;
  }
  DecodeOptions lenient = decode;
  lenient.num_classes = std::min(decode.mask_ignore_value, 255);
  lenient.class_names.clear();
  try {
    return std::make_unique<io::PairReader>(lenient);
  } catch (const ConfigError&) {
    return nullptr;
  }
}

// The check's options with photos decoded to RGB pixels, whatever
// decode_colour says: the thumbnails are drawn from them.
DecodeOptions RgbDecode(DecodeOptions decode) {
  decode.decode_colour = DecodeColour::kRgb;
  return decode;
}

}  // namespace

// One member as decoded: RGB pixels or mask values, at the size decoded,
// and the member's full size.
struct PairThumbnails::Decoded {
  bool ok = false;
  int width = 0;  // of `pixels`
  int height = 0;
  int full_width = 0;
  int full_height = 0;
  std::vector<uint8_t> pixels;
};

PairThumbnails::PairThumbnails(const Dataset& listing, const DecodeOptions& decode,
                               std::span<const std::string> problem_paths)
    : decode_(RgbDecode(decode)),
      source_(io::DatasetSource(listing)),
      reader_(decode_),
      lenient_reader_(LenientReader(decode_)) {
  const std::unordered_set<std::string> wanted(problem_paths.begin(), problem_paths.end());
  for (size_t i = 0; i < source_->sample_count() && !wanted.empty(); ++i) {
    const auto id = static_cast<source::SampleId>(i);
    for (source::Member member : {source::Member::kImage, source::Member::kMask}) {
      std::string name = source_->MemberName(id, member);
      if (wanted.count(name) != 0) sample_of_path_.emplace(std::move(name), id);
    }
  }
}

PairThumbnails::~PairThumbnails() = default;

size_t PairThumbnails::pair_count() const { return source_ ? source_->sample_count() : 0; }

std::vector<source::SampleId> PairThumbnails::SampleIds(size_t count, uint64_t seed) const {
  const size_t pairs = pair_count();
  std::set<source::SampleId> chosen;
  if (pairs <= count) {
    for (size_t i = 0; i < pairs; ++i) chosen.insert(static_cast<source::SampleId>(i));
  } else {
    // Floyd's sampling: `count` distinct ids in `count` draws.
    CounterRng rng(seed);
    for (size_t j = pairs - count; j < pairs; ++j) {
      const auto drawn = static_cast<source::SampleId>(rng.Below(j + 1));
      if (!chosen.insert(drawn).second) chosen.insert(static_cast<source::SampleId>(j));
    }
  }
  return {chosen.begin(), chosen.end()};
}

PairThumbnails::Decoded PairThumbnails::ReadImage(std::optional<source::SampleId> id,
                                                  const std::string& path) {
  Decoded out;
  const Status read = id ? reader_.ReadImage(*source_, *id, kThumbnailSide, kThumbnailSide)
                         : reader_.ReadImage(path, kThumbnailSide, kThumbnailSide);
  const decode::DecodedImage& image = reader_.image();
  if (!read.ok() || image.layout != decode::DecodedImage::Layout::kRgb) return out;
  out.ok = true;
  out.width = image.width;
  out.height = image.height;
  const decode::JpegHeader* header = reader_.image_header();
  out.full_width = header ? header->width : image.width;
  out.full_height = header ? header->height : image.height;
  out.pixels.assign(image.pixels.begin(),
                    image.pixels.begin() + static_cast<size_t>(image.width) * image.height * 3);
  return out;
}

PairThumbnails::Decoded PairThumbnails::ReadMask(std::optional<source::SampleId> id,
                                                 const std::string& path) {
  Decoded out;
  io::PairReader* reader = &reader_;
  Status read = id ? reader->ReadMask(*source_, *id) : reader->ReadMask(path);
  if (!read.ok() && read.error().kind == ErrorKind::kLabelOutOfRange && lenient_reader_) {
    reader = lenient_reader_.get();
    read = id ? reader->ReadMask(*source_, *id) : reader->ReadMask(path);
  }
  if (!read.ok()) return out;
  const decode::MaskImage& mask = reader->mask();
  out.ok = true;
  out.width = out.full_width = mask.width;
  out.height = out.full_height = mask.height;
  out.pixels.assign(mask.pixels.begin(),
                    mask.pixels.begin() + static_cast<size_t>(mask.width) * mask.height);
  return out;
}

Thumbnail PairThumbnails::Pair(source::SampleId id) {
  if (!source_ || id >= source_->sample_count()) return {};
  return Draw(ReadImage(id, {}), ReadMask(id, {}), source_->Key(id));
}

Thumbnail PairThumbnails::ForFile(const std::string& path, bool is_mask) {
  if (auto found = sample_of_path_.find(path); found != sample_of_path_.end())
    return Pair(found->second);
  Decoded none;
  return is_mask ? Draw(none, ReadMask(std::nullopt, path), path)
                 : Draw(ReadImage(std::nullopt, path), none, path);
}

Thumbnail PairThumbnails::Draw(const Decoded& image, const Decoded& mask, const std::string& name) {
  Thumbnail thumbnail;
  thumbnail.name = name;
  const int num_classes = decode_.mask_mode == MaskMode::kLabels ? decode_.num_classes : 0;
  std::vector<uint8_t> drawn_mask = mask.pixels;
  if (mask.ok && num_classes > 0) {
    std::set<int> classes;
    for (uint8_t& value : drawn_mask) {
      if (value < num_classes) {
        classes.insert(value);
      } else if (value == decode::kIgnoreLabel) {
        thumbnail.ignore = true;
      } else {
        thumbnail.out_of_range = true;
      }
    }
    thumbnail.classes.assign(classes.begin(), classes.end());
  }
  // One scale for every panel, so a size mismatch shows as one.
  int longest = 1;
  if (image.ok) longest = std::max({longest, image.full_width, image.full_height});
  if (mask.ok) longest = std::max({longest, mask.full_width, mask.full_height});
  const double scale = static_cast<double>(kThumbnailSide) / longest;
  auto scaled = [scale](int side) {
    return std::max(1, static_cast<int>(std::lround(side * scale)));
  };
  const bool together = image.ok && mask.ok && image.full_width == mask.full_width &&
                        image.full_height == mask.full_height;

  auto panel = [&](const Decoded* photo, const Decoded* labels, std::string alt,
                   std::string caption) {
    const Decoded& sized = photo ? *photo : *labels;
    const int width = scaled(sized.full_width), height = scaled(sized.full_height);
    cv::Mat rgb(height, width, CV_8UC3, cv::Scalar(kMaskPanelGrey, kMaskPanelGrey, kMaskPanelGrey));
    if (photo) {
      const cv::Mat source(photo->height, photo->width, CV_8UC3,
                           const_cast<uint8_t*>(photo->pixels.data()));
      cv::resize(source, rgb, rgb.size(), 0, 0, cv::INTER_AREA);
    }
    if (labels) {
      const cv::Mat source(labels->height, labels->width, CV_8UC1, drawn_mask.data());
      cv::Mat values;
      cv::resize(source, values, rgb.size(), 0, 0, cv::INTER_NEAREST);
      PreviewSample sample;
      sample.width = width;
      sample.height = height;
      sample.num_classes = num_classes;
      sample.mask.assign(values.datastart, values.dataend);
      OverlayPreviewMask(sample, rgb.data, static_cast<int>(rgb.step));
      for (size_t i = 0; num_classes > 0 && i < sample.mask.size(); ++i) {
        const uint8_t value = sample.mask[i];
        if (value >= num_classes && value != decode::kIgnoreLabel)
          std::memcpy(rgb.data + 3 * i, kOutOfRangeColour, 3);
      }
    }
    Result<std::string> jpeg = output::EncodeJpeg(rgb.data, width, height, kThumbnailQuality, name);
    if (!jpeg.ok()) return;
    thumbnail.panels.push_back({"data:image/jpeg;base64," + Base64(jpeg.value()), width, height,
                                std::move(alt), std::move(caption)});
  };
  if (together) {
    panel(&image, &mask, name + ": photo with its mask overlaid",
          SizeCaption("", image.full_width, image.full_height));
    return thumbnail;
  }
  if (image.ok)
    panel(&image, nullptr, name + ": photo" + (mask.ok ? "" : " (its mask did not decode)"),
          SizeCaption("photo ", image.full_width, image.full_height));
  if (mask.ok)
    panel(nullptr, &mask, name + ": mask" + (image.ok ? "" : " (its photo did not decode)"),
          SizeCaption("mask ", mask.full_width, mask.full_height));
  return thumbnail;
}

}  // namespace segfeed::cli
