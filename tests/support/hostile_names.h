#pragma once

// A small Carvana-layout dataset whose file names are what a file system
// allows but a report must not print raw: bytes that are not UTF-8, a
// newline, terminal escape sequences (ESC, a C1 CSI), and names of the full
// 255 bytes; for the tests of every command that prints names.

#include <filesystem>
#include <string>
#include <vector>

namespace segfeed::testing {

struct HostileNamesDataset {
  std::vector<std::string> problems;    // every path check reports, sorted (byte order)
  std::vector<std::string> skipped;     // pairs bench --on-error skip skips (by image path)
  std::vector<std::string> unpaired;    // images without a mask and masks without an image
  std::vector<std::string> duplicates;  // the byte-identical files (two images, two masks), sorted
  std::string ignored;                  // the one ignored file
  std::string escaped_stem;             // a stem with ESC sequences, for messages
  int pairs = 0;                        // complete pairs
};

// Stems of 246 bytes: with "_mask.gif" the mask's name takes all 255 bytes.
constexpr size_t kLongestStemBytes = 246;

// Writes `root`/train and `root`/train_masks: 64x48 demo pairs renamed to
// hostile names, with an empty image, a cut image, a missing mask, an
// orphan mask with a 255-byte name, a duplicated pair, a good pair with a
// 246-byte stem and an ignored file.
HostileNamesDataset WriteHostileNamesDataset(const std::filesystem::path& root);

// A stem of exactly `bytes` bytes: `prefix`, then "é" (2 bytes each) and
// one 'x' if needed, so a cut inside a character would show.
std::string LongStem(const std::string& prefix, size_t bytes);

}  // namespace segfeed::testing
