#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "check/dataset_checker.h"

namespace segfeed::check {

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

  // Adds one label map of `pixel_count` values; returns its pixels of a
  // class other than 0 (the background) and the ignore label.
  int64_t AddLabelMap(const uint8_t* labels, size_t pixel_count);
  void Add(const ClassSums& other);
};

// The class table of a labels-mode check (CheckReport::classes and
// ignore_pixels), from the sums merged over every checker; `names` are the
// classes' names (class_names), empty or one per class.
void FinishClasses(const ClassSums& sums, int num_classes, std::span<const std::string> names,
                   CheckReport* report);

}  // namespace segfeed::check
