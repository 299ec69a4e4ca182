#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed::check {

// Every ErrorKind, in declaration order: the order the checker's summary
// lists its problem counts in.
inline constexpr std::array<ErrorKind, 15> kAllErrorKinds = {
    ErrorKind::kMissingMask,       ErrorKind::kOrphanMask,      ErrorKind::kMissingImage,
    ErrorKind::kDuplicateKey,      ErrorKind::kOutsideRoot,     ErrorKind::kCorruptImage,
    ErrorKind::kCorruptMask,       ErrorKind::kSizeMismatch,    ErrorKind::kNonBinaryMask,
    ErrorKind::kUnsupportedFormat, ErrorKind::kTooLarge,        ErrorKind::kEmptyFile,
    ErrorKind::kIoError,           ErrorKind::kLabelOutOfRange, ErrorKind::kSuspiciousMask};

// How the checker decodes photos, and so what channel statistics it reports.
enum class ChannelStatistics {
  // JPEG photos at DCT scale 1/8, where the inverse DCT keeps only each 8x8
  // block's DC term: its mean. The entropy decoder still reads every bit,
  // so every defect a full decode finds is found, with the same message, at
  // a fraction of the cost. The channel mean is then the mean of the block
  // means, each weighted by the pixels its block covers (within about 0.1
  // of a level of the exact mean on photos; see BENCHMARKS.md), and there
  // is no standard deviation: the variation inside a block is gone.
  kBlockMeans,
  // JPEG photos at full resolution: the exact mean and standard deviation
  // over all pixels.
  kExact,
};

// How `segfeed check` checks a dataset.
struct CheckOptions {
  // Limits of the decoders. max_pixels is the too_large limit for a header,
  // max_file_bytes for a file (refused without being read; it bounds each
  // thread's read buffer). JPEG warnings are errors by default, which is
  // how a truncated photo is found (libjpeg-turbo fills the missing part
  // with grey and warns).
  DecodeOptions decode;
  ChannelStatistics statistics = ChannelStatistics::kBlockMeans;
  // Threads decoding files; 0 means one per core. Each holds at most its
  // decode budget and two file buffers (CheckReport says how much), so
  // memory grows with this, never with the files.
  int threads = 0;
  // How shards in object storage (s3://, https://) are read: signing,
  // retries, timeouts, connections, as the Loader reads them.
  ObjectStorageOptions object_storage;
  // Called after each file with (files done, files in total), from worker
  // threads, possibly concurrently: it must be thread-safe. May be empty.
  std::function<void(int64_t, int64_t)> progress;
};

// How many files had one value of a property ("4:2:0", "1918x1280").
struct ValueCount {
  std::string value;
  int64_t files = 0;
};

// How many masks with another palette CheckReport lists by path.
inline constexpr size_t kOtherPaletteListed = 5;

// One class of a labels-mode check, over every mask that decoded without
// error. The weights are the usual loss weights for unbalanced classes; 0
// for a class without pixels (absent: nothing to weight, and a finite number
// keeps the JSON valid).
struct ClassCount {
  int id = 0;
  // The class's name (class_names, a preset's own); empty when unnamed.
  std::string name;
  // Pixels of this class, and masks with at least one of them.
  int64_t pixels = 0;
  int64_t masks = 0;
  // pixels / all labelled pixels (ignore pixels are not labelled).
  double fraction = 0;
  // labelled pixels / (num_classes x pixels).
  double inverse_frequency_weight = 0;
  // SegNet's median frequency balancing: median over the present classes
  // of their frequency / this class's frequency, where a class's frequency
  // is its pixels / all pixels (ignore included) of the masks containing it.
  double median_frequency_weight = 0;
};

// What CheckDataset() found. Everything in it depends only on the files and
// the options' limits, never on the thread count or timing.
struct CheckReport {
  // Complete image/mask pairs in the listing.
  int64_t pairs = 0;
  // Files read and decoded: every listed image and mask, paired or not.
  int64_t images_checked = 0;
  int64_t masks_checked = 0;
  // Every problem, sorted by path, then kind, then detail. A size_mismatch
  // is reported on the image and names the mask in its detail.
  std::vector<Error> problems;
  // Files in the dataset folders that are neither image nor mask (hidden
  // files, subfolders, other names, a second file for one stem), by path.
  std::vector<IgnoredFile> ignored;

  // The memory bound of each checking thread, the Loader's: at most its
  // decode budget (decoded pixels, libjpeg's coefficients, scanlines; a
  // file whose header says it needs more is too_large) and two file
  // buffers of up to max_file_bytes. The budget is scratch_headroom x what
  // the planned photo (the median of a few pairs' headers) needs at the
  // checker's DCT scale, plus the decoders' fixed needs; 0 when no sampled
  // photo's header parsed, where only max_pixels bounds a file. The files'
  // own sizes never raise it.
  int64_t decode_budget_bytes_per_thread = 0;
  int64_t read_buffer_bytes_per_thread = 0;
  // Besides, shared by the threads: the bytes a dataset in object storage
  // reads ahead of them at most (read_ahead_bytes); 0 for local data.
  int64_t read_ahead_bytes = 0;

  // Image and mask sizes ("1918x1280"), over every file whose header could
  // be read, sorted by value.
  std::vector<ValueCount> image_sizes;
  std::vector<ValueCount> mask_sizes;
  // JPEG coding over every image whose header could be read, sorted by
  // value: "baseline" (any sequential process) or "progressive";
  // "huffman" or "arithmetic"; "4:2:0", "4:2:2", "4:4:4", "4:4:0", "4:1:1",
  // "gray"; "YCbCr", "RGB", "gray", "CMYK", "YCCK".
  std::vector<ValueCount> jpeg_process;
  std::vector<ValueCount> jpeg_entropy_coding;
  std::vector<ValueCount> jpeg_subsampling;
  std::vector<ValueCount> jpeg_colorspace;

  // Per-channel (R, G, B) mean and population standard deviation on the
  // 0-255 scale, over ALL pixels of every image that decoded without error
  // (statistics_pixels counts them at full resolution), computed as
  // `statistics` says: exact mean and std, or the mean of the block means
  // and no std (channel_std stays 0). From integer sums, so the same for
  // any thread count. Divide by 255 for the [0, 1] scale the loader's
  // normalisation uses.
  ChannelStatistics statistics = ChannelStatistics::kBlockMeans;
  int64_t statistics_images = 0;
  int64_t statistics_pixels = 0;
  std::array<double, 3> channel_mean{};
  std::array<double, 3> channel_std{};

  // Fraction of foreground pixels per mask, over every mask that decoded
  // without error (a non-binary mask counts, as the binary rule reads it; in labels mode,
  // pixels of a class other than 0, the background): the mean of the
  // per-mask fractions, the smallest and the largest. 0 when no mask decoded.
  int64_t foreground_masks = 0;
  double foreground_mean = 0;
  double foreground_min = 0;
  double foreground_max = 0;
  // The same masks by their fraction, in kForegroundBins equal bins:
  // bin i holds the fractions in [i, i + 1) / kForegroundBins, the last one
  // 1.0 too. For the HTML report's histogram.
  static constexpr int kForegroundBins = 10;
  std::array<int64_t, kForegroundBins> foreground_histogram{};

  // Labels mode only (empty in binary mode): one entry per class id 0 ..
  // num_classes - 1, and the pixels that are ignore_index. Exact integer
  // counts, the same for any thread count.
  std::vector<ClassCount> classes;
  int64_t ignore_pixels = 0;

  // Bits per sample of every mask that decoded ("1", "8", "16"), sorted by
  // bit depth: a mix of 8- and 16-bit label maps usually means two tools.
  std::vector<ValueCount> mask_bit_depths;
  // Masks with a palette other than the most common one (the smallest
  // digest among equally common ones): their count and the first
  // kOtherPaletteListed of them by path. Masks without a palette are not
  // counted. Information, not a problem (see CheckDataset()).
  int64_t other_palette_masks = 0;
  std::vector<std::string> other_palette_paths;

  // Groups of byte-identical non-empty files (confirmed byte by byte, not
  // only by hash), each sorted by path, groups sorted by their first path.
  // Not a problem by itself (two empty masks are normal): information.
  std::vector<std::vector<std::string>> duplicates;
};

// Lists the dataset and reads and decodes every image and mask in it
// (every bit of every JPEG through the entropy decoder, at the DCT scale
// options.statistics asks for, so truncation and damage are found), in
// parallel. Never throws for a bad file: each becomes a problem naming it.
// A dataset folder that cannot be listed becomes a single io_error
// problem. Throws ConfigError for invalid options.
//
// Checks of the mask set as a whole, in suspicious_mask problems: in binary
// mode, masks that all decoded without a single foreground pixel (one
// problem, on the mask folder: the foreground rule or the mode is likely
// wrong), and each mask whose palette contradicts the nonzero rule (maybe
// inverted).
//
// Each thread reads with a PairReader, under the Loader's memory policy and
// decode budget: its buffers are planned for the dataset's typical photo
// (the median of a few pairs' headers) at the DCT scale of
// options.statistics, a file over decode.max_file_bytes or
// decode.max_pixels, or whose header says decoding it needs more than the
// budget (3 bytes per pixel at its scale, libjpeg's coefficients for a
// progressive JPEG, a mask's canvas and samples), is too_large without its
// pixels being allocated, a larger file's buffers are freed before the next
// file, and running out of memory is that file's too_large. So memory is at
// most `threads` x (decode budget + 2 x max_file_bytes), as the report
// states, plus a fixed-size record per listed file.
//
// With `listing`, the dataset is listed into it and left there for a
// caller that reads pairs again (the HTML report's thumbnails), so it is
// not listed twice: its pairs (or shards) are valid, its problems and
// ignored files were moved out into the report. A dataset that cannot be
// listed leaves it empty.
CheckReport CheckDataset(const DatasetSpec& spec, const CheckOptions& options,
                         Dataset* listing = nullptr);

// Problems of one kind in `report`.
int64_t CountProblems(const CheckReport& report, ErrorKind kind);

}  // namespace segfeed::check
