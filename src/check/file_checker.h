#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "check/class_table.h"
#include "check/dataset_checker.h"
#include "decode/jpeg_decoder.h"
#include "io/pair_reader.h"
#include "io/planned_source.h"
#include "source/sample_source.h"

namespace segfeed::check {

enum class FileRole { kImage, kMask };

// One file to read and decode. `pair` is the index of its pair in the
// listing, or -1 for an image without mask or a mask without image.
struct FileJob {
  std::filesystem::path path;
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
  decode::JpegHeader jpeg;
  bool decoded = false;  // the pixel statistics below are valid
  std::array<uint64_t, 3> channel_sum{};
  std::array<uint64_t, 3> channel_sum_squares{};
  int64_t foreground_pixels = 0;
  int bit_depth = 0;  // masks: bits per sample
  uint64_t palette_digest = 0;
};

// The per-thread state of the check: a PairReader, so that the checker
// reads and decodes under the loader's memory policy: file buffers bounded
// by max_file_bytes, pixel buffers kept at the size planned for the
// dataset's typical photo and shrunk back after a larger file, running out
// of memory the file's too_large error. Not thread-safe.
class FileChecker {
 public:
  // `budget_bytes` is the decode budget of this thread (DecodeBudget()).
  // A paired file is read through `source` (shared by every thread), an
  // unpaired one from its path.
  FileChecker(const CheckOptions& options, const io::PlannedSource& plan, int64_t budget_bytes,
              source::SampleSource* source);

  // The decode budget of each checking thread, the Loader's for the same
  // planned photo (MemoryPlan::decode_budget_bytes_per_thread) at the
  // checker's DCT scale, so that a file the Loader would refuse as too_large
  // is too_large here too, before anything is allocated for it. Without a
  // plan (no sampled photo's header parses) only max_pixels bounds a file:
  // INT64_MAX.
  static int64_t DecodeBudget(const CheckOptions& options, const io::PlannedSource& plan);

  // Reads and decodes one file; its problems are in the outcome, never thrown.
  FileOutcome Check(const FileJob& job);

  // The class sums of the label maps this checker read (labels mode).
  const ClassSums& class_sums() const { return class_sums_; }

 private:
  source::SampleSource* source_;
  DecodeOptions decode_;  // the mask rule, for the messages that state it
  bool labels_;
  int photo_target_;  // the size a photo is decoded for: 0 full, 1 the smallest
  io::PairReader reader_;
  ClassSums class_sums_;
};

}  // namespace segfeed::check
