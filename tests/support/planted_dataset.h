#pragma once

// A small Carvana-layout dataset with one file of each problem kind the
// checker knows, planted among clean pairs, for the checker's tests.

#include <filesystem>
#include <string>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::testing {

struct PlantedProblem {
  std::string path;
  ErrorKind kind;
};

struct PlantedDataset {
  int pairs = 0;                         // complete pairs in the listing
  std::vector<PlantedProblem> problems;  // sorted by path, one per planted problem
  std::vector<std::string> duplicates;   // the one group of byte-identical files, sorted
};

// Writes `root`/train and `root`/train_masks: 64x48 demo pairs, then plants
// a missing mask, an orphan mask, a truncated JPEG, random bytes named .jpg,
// PNG bytes named .jpg, an empty file, a size mismatch, a three-colour GIF,
// a truncated GIF, a JPEG whose header claims 60000x60000, a dangling
// symlink and a copy of one photo over another.
PlantedDataset WritePlantedDataset(const std::filesystem::path& root);

// A clean demo dataset of `count` 64x48 pairs.
void WriteCleanDataset(const std::filesystem::path& root, int count);

}  // namespace segfeed::testing
