#pragma once

// A Carvana-layout dataset of good pairs interleaved with one bad pair for
// every defect the decoders and the file reader know, plus unpaired images
// and orphan masks: the dataset a careless or hostile user brings. Tests
// run whole sequences over it (a bad file followed by a good one on the same
// thread), where state that survives an error shows.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::testing {

struct MixedFile {
  std::string path;
  ErrorKind kind;
};

struct MixedDataset {
  static constexpr int kWidth = 64;
  static constexpr int kHeight = 48;
  // Stems of the pairs that load, each picture different.
  std::vector<std::string> good_stems;
  // One per bad pair: the file at fault and what the loader reports.
  std::vector<MixedFile> bad_files;
  // Pairs that load but whose mask has three colours (read by the binary rule; the
  // checker reports non_binary_mask).
  std::vector<MixedFile> non_binary_masks;
  std::vector<MixedFile> unpaired_images;  // missing_mask
  std::vector<MixedFile> orphan_masks;     // orphan_mask
  int complete_pairs() const {
    return static_cast<int>(good_stems.size() + bad_files.size() + non_binary_masks.size());
  }
};

// Writes `root`/train and `root`/train_masks: `good_pairs` good pairs
// interleaved (by stem order) with the bad ones, among them an empty image
// and mask, a dangling symlink, a FIFO, a size mismatch and every
// DefectiveJpegs() and DefectiveGifs() file.
MixedDataset WriteMixedDataset(const std::filesystem::path& root, int good_pairs);

// Pairs whose headers claim far more than a 64x48 photo needs, written
// among the files of `root`/train and `root`/train_masks: a 10000x10000
// baseline and a 10000x10000 progressive JPEG (small files whose frame
// headers claim the size), a GIF mask whose screen is 10000x10000, a
// JPEG-looking junk file just under `max_file_bytes` and a junk file over
// it. Returns the file at fault of each, with the kind the loader reports.
std::vector<MixedFile> WriteOutlierPairs(const std::filesystem::path& root, int64_t max_file_bytes);

// Files of a few dozen bytes whose headers claim 10000x10000 pixels (8000x8000
// for a progressive JPEG: its coefficients alone would be 200 MB), as a
// broken or hostile tool writes them, in pairs written into `root`/train
// and `root`/train_masks: PNG photos (8-bit RGB, 16-bit RGBA, interlaced
// palette) with PNG masks of the same claimed size (8- and 16-bit grey,
// interlaced 1-bit), JPEG photos whose frame header lies (baseline,
// progressive) with GIF masks whose logical screen is as large, and good
// 64x48 photos with such masks (PNG 8- and 16-bit, interlaced, GIF).
struct HugeHeaderFiles {
  // Every file whose header claims the size, sorted: what the checker,
  // which reads every file, reports as too_large.
  std::vector<std::string> claiming;
  // The first of each pair that does, sorted: what the loader reports as
  // too_large (it reads no further into a pair than its first bad file).
  std::vector<std::string> first_of_pair;
};
HugeHeaderFiles WriteHugeHeaderPairs(const std::filesystem::path& root);

// Tiny JPEG photos of every coding, 1x1 to 16x16, with GIF masks, in
// `root`/train and `root`/train_masks: progressive as OpenCV writes it
// (libjpeg-turbo's default progression) and as libjpeg's own simple
// progression writes it, arithmetic-coded (sequential and progressive),
// progressive 4:1:1, and baseline. Returns how many pairs.
int WriteTinyJpegPairs(const std::filesystem::path& root);

// Only the good pairs of WriteMixedDataset(), with the same stems and bytes.
void WriteGoodPairsOfMixedDataset(const std::filesystem::path& root, int good_pairs);

}  // namespace segfeed::testing
