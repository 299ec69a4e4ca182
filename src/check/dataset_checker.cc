#include "check/dataset_checker.h"

#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>

#include "decode/pair_decoder.h"
#include "digest.h"
#include "io/gif_decoder.h"
#include "io/jpeg_decoder.h"
#include "io/mask_values.h"
#include "io/pair_reader.h"
#include "io/planned_source.h"
#include "source/files_source.h"
#include "worker_arena.h"

namespace segfeed::tools {
namespace {

namespace fs = std::filesystem;
using internal::JpegColorspace;
using internal::JpegHeader;
using internal::JpegSubsampling;

enum class FileRole { kImage, kMask };

// One file to read and decode. `pair` is the index of its pair in the
// listing, or -1 for an image without mask or a mask without image.
struct FileJob {
  fs::path path;
  FileRole role = FileRole::kImage;
  int64_t pair = -1;
};

// What checking one file found: a fixed-size record (plus the text of a
// problem, if any), written by one worker and read after all have finished.
struct FileOutcome {
  std::optional<Error> error;    // the file's own problem
  std::optional<Error> warning;  // non_binary_mask
  std::optional<Error> palette;  // suspicious_mask: the palette may be inverted
  std::optional<Error> uniform;  // suspicious_mask: two values read as one
  uint64_t size_bytes = 0;       // 0 when the file was not read
  uint64_t digest = 0;
  bool header_read = false;  // width, height (and jpeg for images) are valid
  int width = 0;
  int height = 0;
  JpegHeader jpeg;
  bool decoded = false;  // the pixel statistics below are valid
  std::array<uint64_t, 3> channel_sum{};
  std::array<uint64_t, 3> channel_sum_squares{};
  int64_t foreground_pixels = 0;
  int bit_depth = 0;  // masks: bits per sample
  uint64_t palette_digest = 0;
};

// Labels mode: the class table's integer sums over the masks one checker
// read, by mask value (class id or kIgnoreLabel). Kept per checker and
// merged after: integer addition commutes, so the totals are exact and the
// same for any thread count, and memory is per thread rather than 256
// counters per file.
struct ClassSums {
  std::array<uint64_t, 256> pixels{};
  std::array<uint64_t, 256> masks{};
  // All pixels (ignore included) of the masks that contain the value: the
  // denominator of its median frequency.
  std::array<uint64_t, 256> containing_pixels{};

  void Add(const ClassSums& other) {
    for (size_t v = 0; v < pixels.size(); ++v) {
      pixels[v] += other.pixels[v];
      masks[v] += other.masks[v];
      containing_pixels[v] += other.containing_pixels[v];
    }
  }
};

uint64_t DigestOf(std::span<const uint8_t> bytes) {
  Digest digest;
  digest.Update(bytes.data(), bytes.size());
  return std::stoull(digest.Hex(), nullptr, 16);
}

// Integer sums, so the statistics are exact and the same in any order.
// `image` is the photo decoded at 1/`block` of its full_width x full_height
// (block 1 or 8): with block 8 each pixel is an 8x8 block's mean, weighted
// by the pixels the block covers (fewer at the right and bottom edges), so
// the weights add up to the full-resolution pixel count. The squares are
// summed only at full resolution, where they give the exact std.
void AddChannelSums(const internal::DecodedImage& image, int block, int full_width, int full_height,
                    FileOutcome* out) {
  const uint8_t* p = image.pixels.data();
  for (int y = 0; y < image.height; ++y) {
    const uint32_t row_weight = static_cast<uint32_t>(std::min(block, full_height - block * y));
    // 32-bit accumulators within a row vectorise well and cannot overflow:
    // a row has at most 65535 pixels (the JPEG limit) and 65535 x 255^2 < 2^32.
    uint32_t sum[3] = {0, 0, 0};
    uint32_t squares[3] = {0, 0, 0};
    if (block == 1) {
      for (int x = 0; x < image.width; ++x, p += 3) {
        for (int c = 0; c < 3; ++c) {
          const uint32_t v = p[c];
          sum[c] += v;
          squares[c] += v * v;
        }
      }
    } else {
      // Every block but the last of a row is `block` pixels wide.
      for (int x = 0; x < image.width; ++x, p += 3) {
        const auto weight = static_cast<uint32_t>(std::min(block, full_width - block * x));
        for (int c = 0; c < 3; ++c) sum[c] += weight * p[c];
      }
    }
    for (int c = 0; c < 3; ++c) {
      out->channel_sum[c] += uint64_t{sum[c]} * row_weight;
      out->channel_sum_squares[c] += squares[c];
    }
  }
}

// The ones among `n` bytes that are each 0 or 1 (a binary mask). std::count
// compares byte by byte and widens every match to 64 bits, a tenth of the
// whole check at 1/8 scale; adding the bytes as 64-bit words instead keeps
// eight counts side by side, one per byte lane, exact for up to 255 words.
int64_t CountOnes(const uint8_t* bytes, size_t n) {
  int64_t total = 0;
  size_t i = 0;
  while (n - i >= 8) {
    const size_t words = std::min<size_t>((n - i) / 8, 255);
    uint64_t lanes = 0;
    for (size_t k = 0; k < words; ++k, i += 8) {
      uint64_t word;
      std::memcpy(&word, bytes + i, 8);
      lanes += word;
    }
    // The eight byte lanes (each <= 255) into four 16-bit ones, then their sum.
    lanes = (lanes & 0x00FF00FF00FF00FFull) + ((lanes >> 8) & 0x00FF00FF00FF00FFull);
    total += static_cast<int64_t>((lanes * 0x0001000100010001ull) >> 48);
  }
  for (; i < n; ++i) total += bytes[i];
  return total;
}

// The per-thread state of the check: a PairReader, so that the checker
// reads and decodes under the loader's memory policy: file buffers bounded
// by max_file_bytes, pixel buffers kept at the size planned for the
// dataset's typical photo and shrunk back after a larger file, running out
// of memory the file's too_large error. Not thread-safe.
class FileChecker {
  // The statistics are RGB channels': the checker decodes to RGB whatever
  // the loader's decode_colour (the same entropy decoder meets the same
  // defects either way).
  static DecodeOptions RgbDecode(DecodeOptions options) {
    options.decode_colour = DecodeColour::kRgb;
    return options;
  }

 public:
  // `budget_bytes` is the decode budget of this thread (DecodeBudget()).
  // A paired file is read through `source` (shared by every thread), an
  // unpaired one from its path.
  FileChecker(const CheckOptions& options, const internal::PlannedSource& plan,
              int64_t budget_bytes, internal::SampleSource* source)
      : source_(source),
        decode_(options.decode),
        labels_(options.decode.mask_mode == MaskMode::kLabels),
        photo_target_(PhotoTarget(options)),
        reader_(RgbDecode(options.decode)) {
    reader_.Reserve(plan.width, plan.height, photo_target_, photo_target_, budget_bytes,
                    plan.formats);
  }

  // The size a photo is decoded for: a 1x1 target gets the smallest DCT
  // scale, 1/8; none (0), full size.
  static int PhotoTarget(const CheckOptions& options) {
    return options.statistics == ChannelStatistics::kExact ? 0 : 1;
  }

  FileOutcome Check(const FileJob& job) {
    FileOutcome out;
    const auto id = static_cast<internal::SampleId>(job.pair);
    const bool paired = job.pair >= 0;
    const internal::Status status =
        job.role == FileRole::kImage
            ? (paired ? reader_.ReadImage(*source_, id, photo_target_, photo_target_)
                      : reader_.ReadImage(job.path, photo_target_, photo_target_))
            : (paired ? reader_.ReadMask(*source_, id) : reader_.ReadMask(job.path));
    // The reader refuses FIFOs without blocking and files over
    // max_file_bytes without reading them: then it has no bytes.
    if (const std::span<const uint8_t> bytes = reader_.file_bytes(); !bytes.empty()) {
      out.size_bytes = bytes.size();
      out.digest = DigestOf(bytes);
    }
    if (!status.ok()) out.error = status.error();
    if (job.role == FileRole::kImage) {
      if (const JpegHeader* header = reader_.image_header()) {
        out.header_read = true;
        out.jpeg = *header;
        out.width = header->width;
        out.height = header->height;
      }
      if (!status.ok()) return out;
      out.decoded = true;
      const internal::DctScale scale = reader_.image_scale();
      const internal::DecodedImage& image = reader_.image();
      // PNG photos and a JPEG too small to scale (1/8 of a 1x1 image is
      // still 1x1) come at full size; a 1/8 decode is 8 pixels a block.
      const bool full_size = image.width == out.width && image.height == out.height;
      AddChannelSums(image, full_size ? 1 : scale.denom / scale.num, out.width, out.height, &out);
    } else {
      if (!status.ok()) return out;
      const internal::MaskImage& mask = reader_.mask();
      out.header_read = true;
      out.decoded = true;
      out.width = mask.width;
      out.height = mask.height;
      out.bit_depth = mask.bit_depth;
      out.palette_digest = mask.palette_digest;
      const size_t pixels = static_cast<size_t>(mask.width) * mask.height;
      if (labels_) {
        out.foreground_pixels = AddClassCounts(mask.pixels.data(), pixels);
        return out;
      }
      out.foreground_pixels = CountOnes(mask.pixels.data(), pixels);
      if (mask.distinct_values > 2)
        out.warning = internal::NonBinaryMaskWarning(job.path.string(), decode_);
      // A file with two values whose pixels all read as one: the rule in
      // force does not tell its values apart (a dark foreground under the
      // luminance rule, a transparent foreground index).
      const bool all_foreground = static_cast<size_t>(out.foreground_pixels) == pixels;
      if (mask.distinct_values >= 2 && (out.foreground_pixels == 0 || all_foreground))
        out.uniform =
            internal::UniformMaskWarning(job.path.string(), decode_, mask, all_foreground);
      if (mask.palette_disagrees) {
        out.palette = Error{ErrorKind::kSuspiciousMask, job.path.string(),
                            "palette index 0 is not black, or a used foreground index is black: "
                            "the palette may be inverted (mask_foreground nonzero takes every "
                            "index but 0 as foreground, whatever its colour)"};
      }
    }
    return out;
  }

  const ClassSums& class_sums() const { return class_sums_; }

 private:
  // Adds one label map's histogram to class_sums_; returns its pixels of a
  // class other than 0 (the background) and the ignore label.
  int64_t AddClassCounts(const uint8_t* labels, size_t pixels) {
    std::array<uint64_t, 256> histogram{};
    for (size_t i = 0; i < pixels; ++i) ++histogram[labels[i]];
    for (size_t v = 0; v < histogram.size(); ++v) {
      if (histogram[v] == 0) continue;
      class_sums_.pixels[v] += histogram[v];
      ++class_sums_.masks[v];
      class_sums_.containing_pixels[v] += pixels;
    }
    return static_cast<int64_t>(pixels - histogram[0] - histogram[internal::kIgnoreLabel]);
  }

  internal::SampleSource* source_;
  DecodeOptions decode_;  // the mask rule, for the messages that state it
  bool labels_;
  int photo_target_;  // the size a photo is decoded for: 0 full, 1 the smallest
  internal::PairReader reader_;
  ClassSums class_sums_;
};

// Byte-by-byte comparison, streaming, so confirming a duplicate costs no
// memory beyond two small buffers. A file that cannot be read equals nothing.
bool SameBytes(const fs::path& a, const fs::path& b) {
  std::ifstream in_a(a, std::ios::binary);
  std::ifstream in_b(b, std::ios::binary);
  if (!in_a || !in_b) return false;
  constexpr size_t kChunk = 64 * 1024;
  std::vector<char> buffer_a(kChunk), buffer_b(kChunk);
  for (;;) {
    in_a.read(buffer_a.data(), kChunk);
    in_b.read(buffer_b.data(), kChunk);
    const std::streamsize n = in_a.gcount();
    if (n != in_b.gcount()) return false;
    if (!std::equal(buffer_a.begin(), buffer_a.begin() + n, buffer_b.begin())) return false;
    if (n < static_cast<std::streamsize>(kChunk)) return in_a.eof() && in_b.eof();
  }
}

std::string SizeText(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

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

// Counts by value, emitted sorted by key.
template <typename Key>
class Tally {
 public:
  void Add(const Key& key) { ++counts_[key]; }
  template <typename Format>
  std::vector<ValueCount> Sorted(Format format) const {
    std::vector<ValueCount> out;
    for (const auto& [key, files] : counts_) out.push_back({format(key), files});
    return out;
  }
  std::vector<ValueCount> Sorted() const {
    return Sorted([](const Key& key) { return key; });
  }

 private:
  std::map<Key, int64_t> counts_;
};

void ValidateCheckOptions(const CheckOptions& options) {
  ValidateDecodeOptions(options.decode);
  if (options.threads < 0) {
    throw ConfigError("threads must be >= 0 (got " + std::to_string(options.threads) + ")");
  }
}

// The decode budget of each checking thread, the Loader's for the same
// planned photo (MemoryPlan::decode_budget_bytes_per_thread) at the
// checker's DCT scale, so that a file the Loader would refuse as too_large
// is too_large here too, before anything is allocated for it. Without a
// plan (no sampled photo's header parses) only max_pixels bounds a file.
int64_t DecodeBudget(const CheckOptions& options, const internal::PlannedSource& plan) {
  if (plan.width < 1 || plan.height < 1) return INT64_MAX;
  const int target = FileChecker::PhotoTarget(options);
  const internal::DctScale scale = plan.formats.png_images
                                       ? internal::DctScale{}
                                       : internal::JpegDecoder(options.decode)
                                             .ChooseScale(plan.width, plan.height, target, target);
  return static_cast<int64_t>(internal::PairDecoder::DecodeBudgetBytes(
      scale, plan.width, plan.height, plan.formats, options.decode.scratch_headroom));
}

// Checks every job on `threads` threads; outcomes[i] belongs to jobs[i].
// The checkers' class sums are added to `class_sums`.
std::vector<FileOutcome> CheckFiles(const std::vector<FileJob>& jobs, const CheckOptions& options,
                                    const internal::PlannedSource& plan, int64_t budget_bytes,
                                    internal::SampleSource* source, ClassSums* class_sums) {
  std::vector<FileOutcome> outcomes(jobs.size());
  if (jobs.empty()) return outcomes;
  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  internal::WorkerArena arena(threads);
  // Free checkers. At most `threads` bodies run at once in the arena, so
  // the pool stays at that size; a new checker is made only if none is free.
  tbb::concurrent_queue<std::unique_ptr<FileChecker>> checkers;
  std::atomic<int64_t> done{0};
  const auto total = static_cast<int64_t>(jobs.size());
  arena.arena()->execute([&] {
    // Grain 1: one file is milliseconds of work, and files differ in size.
    tbb::parallel_for(tbb::blocked_range<size_t>(0, jobs.size(), 1),
                      [&](const tbb::blocked_range<size_t>& range) {
                        std::unique_ptr<FileChecker> checker;
                        if (!checkers.try_pop(checker))
                          checker =
                              std::make_unique<FileChecker>(options, plan, budget_bytes, source);
                        for (size_t i = range.begin(); i != range.end(); ++i) {
                          outcomes[i] = checker->Check(jobs[i]);
                          const int64_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
                          if (options.progress) options.progress(finished, total);
                        }
                        checkers.push(std::move(checker));
                      });
  });
  // Every checker is back in the queue once the loop has finished.
  for (std::unique_ptr<FileChecker> checker; checkers.try_pop(checker);)
    class_sums->Add(checker->class_sums());
  return outcomes;
}

// Groups of byte-identical non-empty files among the outcomes.
std::vector<std::vector<std::string>> FindDuplicates(const std::vector<FileJob>& jobs,
                                                     const std::vector<FileOutcome>& outcomes) {
  // Candidates share size and digest; each candidate group is then split
  // into classes of truly equal bytes (a digest collision is not a duplicate).
  std::vector<std::tuple<uint64_t, uint64_t, size_t>> keyed;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].size_bytes > 0)
      keyed.emplace_back(outcomes[i].size_bytes, outcomes[i].digest, i);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::vector<std::string>> groups;
  for (size_t begin = 0; begin < keyed.size();) {
    size_t end = begin + 1;
    while (end < keyed.size() && std::get<0>(keyed[end]) == std::get<0>(keyed[begin]) &&
           std::get<1>(keyed[end]) == std::get<1>(keyed[begin])) {
      ++end;
    }
    std::vector<std::vector<size_t>> classes;
    for (size_t k = begin; end - begin > 1 && k < end; ++k) {
      const size_t index = std::get<2>(keyed[k]);
      auto same =
          std::find_if(classes.begin(), classes.end(), [&](const std::vector<size_t>& members) {
            return SameBytes(jobs[members.front()].path, jobs[index].path);
          });
      if (same != classes.end()) {
        same->push_back(index);
      } else {
        classes.push_back({index});
      }
    }
    for (const std::vector<size_t>& members : classes) {
      if (members.size() < 2) continue;
      std::vector<std::string> paths;
      for (size_t index : members) paths.push_back(jobs[index].path.string());
      std::sort(paths.begin(), paths.end());
      groups.push_back(std::move(paths));
    }
    begin = end;
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

// The files to check, in listing order: each pair's image then its mask,
// then the unpaired files. Every file is decoded, unpaired ones too: a
// missing mask does not make the image's own corruption less worth knowing.
// The listing's problems move to the report.
std::vector<FileJob> ListJobs(Dataset* dataset, CheckReport* report) {
  std::vector<FileJob> jobs;
  jobs.reserve(2 * dataset->pairs.size() + dataset->problems.size());
  for (size_t i = 0; i < dataset->pairs.size(); ++i) {
    jobs.push_back({dataset->pairs[i].image_path, FileRole::kImage, static_cast<int64_t>(i)});
    jobs.push_back({dataset->pairs[i].mask_path, FileRole::kMask, static_cast<int64_t>(i)});
  }
  for (Error& problem : dataset->problems) {
    if (problem.kind == ErrorKind::kMissingMask)
      jobs.push_back({problem.path, FileRole::kImage, -1});
    if (problem.kind == ErrorKind::kOrphanMask) jobs.push_back({problem.path, FileRole::kMask, -1});
    report->problems.push_back(std::move(problem));
  }
  return jobs;
}

// Sums and tallies over the checked files, added on one thread in listing
// order, so every sum, floating-point ones included, is the same for any
// thread count.
struct Statistics {
  Tally<std::pair<int, int>> image_sizes, mask_sizes;
  Tally<std::string> process, entropy, subsampling, colorspace;
  Tally<int> bit_depths;
  std::array<uint64_t, 3> channel_sum{}, channel_sum_squares{};
  double foreground_sum = 0;
  int64_t masks_with_foreground = 0;
};

// Image job `i`: its header's properties, its pixel sums, and whether its
// pair's mask (the next job) has its size.
void AddImage(const std::vector<FileJob>& jobs, const std::vector<FileOutcome>& outcomes, size_t i,
              Statistics* stats, CheckReport* report) {
  const FileJob& job = jobs[i];
  const FileOutcome& out = outcomes[i];
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
  // The pair's mask is the next job; compare full-resolution sizes.
  const FileOutcome* mask = job.pair >= 0 ? &outcomes[i + 1] : nullptr;
  if (mask && out.header_read && mask->header_read &&
      (out.width != mask->width || out.height != mask->height)) {
    report->problems.push_back(Error{ErrorKind::kSizeMismatch, job.path.string(),
                                     "image is " + SizeText(out.width, out.height) +
                                         " but its mask " + jobs[i + 1].path.string() + " is " +
                                         SizeText(mask->width, mask->height)});
  }
}

void AddMask(const FileOutcome& out, Statistics* stats, CheckReport* report) {
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
  ++report->foreground_masks;
}

// Means, standard deviations and the sorted tallies, into the report.
void FinishStatistics(const Statistics& stats, CheckReport* report) {
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

// The class table of a labels-mode check, from the merged sums.
void FinishClasses(const ClassSums& sums, int num_classes, CheckReport* report) {
  report->ignore_pixels = static_cast<int64_t>(sums.pixels[internal::kIgnoreLabel]);
  uint64_t labelled = 0;
  for (int c = 0; c < num_classes; ++c) labelled += sums.pixels[c];
  auto frequency = [&](int c) {
    return static_cast<double>(sums.pixels[c]) / static_cast<double>(sums.containing_pixels[c]);
  };
  std::vector<double> present;
  for (int c = 0; c < num_classes; ++c) {
    if (sums.pixels[c] > 0) present.push_back(frequency(c));
  }
  std::sort(present.begin(), present.end());
  const size_t n = present.size();
  const double median = n == 0       ? 0.0
                        : n % 2 == 1 ? present[n / 2]
                                     : (present[n / 2 - 1] + present[n / 2]) / 2;
  for (int c = 0; c < num_classes; ++c) {
    ClassCount entry;
    entry.id = c;
    entry.pixels = static_cast<int64_t>(sums.pixels[c]);
    entry.masks = static_cast<int64_t>(sums.masks[c]);
    if (entry.pixels > 0) {
      const auto pixels = static_cast<double>(entry.pixels);
      entry.fraction = pixels / static_cast<double>(labelled);
      entry.inverse_frequency_weight = static_cast<double>(labelled) / (num_classes * pixels);
      entry.median_frequency_weight = median / frequency(c);
    }
    report->classes.push_back(entry);
  }
}

// Masks whose palette is not the most common one (the smallest digest among
// equally common ones, so the choice does not depend on the order). This is
// information rather than a problem: writers often store only the colours a
// mask uses, or a shorter palette, and a mask is read by its indices (or by
// mask_colors, whose unlisted colours are label_out_of_range already), so a
// different palette is no error by itself; it only hints at a second tool.
void FindOtherPalettes(const std::vector<FileJob>& jobs, const std::vector<FileOutcome>& outcomes,
                       CheckReport* report) {
  std::map<uint64_t, int64_t> masks_by_digest;
  for (const FileOutcome& out : outcomes) {
    if (out.decoded && out.palette_digest != 0) ++masks_by_digest[out.palette_digest];
  }
  if (masks_by_digest.size() < 2) return;
  const uint64_t common =
      std::max_element(masks_by_digest.begin(), masks_by_digest.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; })
          ->first;
  std::vector<std::string> paths;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const FileOutcome& out = outcomes[i];
    if (jobs[i].role == FileRole::kMask && out.decoded && out.palette_digest != 0 &&
        out.palette_digest != common) {
      paths.push_back(jobs[i].path.string());
    }
  }
  std::sort(paths.begin(), paths.end());
  report->other_palette_masks = static_cast<int64_t>(paths.size());
  if (paths.size() > kOtherPaletteListed) paths.resize(kOtherPaletteListed);
  report->other_palette_paths = std::move(paths);
}

}  // namespace

CheckReport CheckDataset(const DatasetSpec& spec, const CheckOptions& options) {
  ValidateCheckOptions(options);
  CheckReport report;
  report.statistics = options.statistics;
  Dataset dataset;
  try {
    dataset = ListDataset(spec);
  } catch (const FileError& e) {
    report.problems.push_back(e.error());
    return report;
  }
  report.pairs = static_cast<int64_t>(dataset.pairs.size());
  report.ignored = std::move(dataset.ignored);
  const std::vector<FileJob> jobs = ListJobs(&dataset, &report);
  // The buffers are planned for the dataset's typical photo, as the
  // Loader's are; without one (no pair's header parses) nothing is kept.
  internal::FilesSource files(dataset.pairs);
  internal::PlannedSource plan;
  if (auto source = internal::PlanSourceFromHeaders(files, options.decode); source.ok())
    plan = source.value();
  const int64_t budget_bytes = DecodeBudget(options, plan);
  report.decode_budget_bytes_per_thread = budget_bytes == INT64_MAX ? 0 : budget_bytes;
  report.read_buffer_bytes_per_thread = 2 * options.decode.max_file_bytes;
  ClassSums class_sums;
  const std::vector<FileOutcome> outcomes =
      CheckFiles(jobs, options, plan, budget_bytes, &files, &class_sums);
  Statistics stats;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (outcomes[i].error) report.problems.push_back(*outcomes[i].error);
    if (outcomes[i].warning) report.problems.push_back(*outcomes[i].warning);
    if (outcomes[i].palette) report.problems.push_back(*outcomes[i].palette);
    if (outcomes[i].uniform) report.problems.push_back(*outcomes[i].uniform);
    if (jobs[i].role == FileRole::kImage) {
      AddImage(jobs, outcomes, i, &stats, &report);
    } else {
      AddMask(outcomes[i], &stats, &report);
    }
  }
  FinishStatistics(stats, &report);
  if (options.decode.mask_mode == MaskMode::kLabels) {
    FinishClasses(class_sums, options.decode.num_classes, &report);
  } else if (report.foreground_masks > 0 && stats.masks_with_foreground == 0) {
    // Training on these would learn "always background"; the rule that
    // reads them is the likelier mistake than every mask being empty.
    report.problems.push_back(
        Error{ErrorKind::kSuspiciousMask, spec.mask_dir.string(),
              "no mask has any foreground pixel: all " + std::to_string(report.foreground_masks) +
                  " masks that decoded are background only; check mask_foreground (nonzero or "
                  "luminance, mask_threshold) / mask_mode (label maps need mask_mode labels)"});
  }
  FindOtherPalettes(jobs, outcomes, &report);
  report.duplicates = FindDuplicates(jobs, outcomes);
  std::sort(report.problems.begin(), report.problems.end(), [](const Error& a, const Error& b) {
    return std::tie(a.path, a.kind, a.detail) < std::tie(b.path, b.kind, b.detail);
  });
  return report;
}

int64_t CountProblems(const CheckReport& report, ErrorKind kind) {
  return std::count_if(report.problems.begin(), report.problems.end(),
                       [kind](const Error& e) { return e.kind == kind; });
}

}  // namespace segfeed::tools
