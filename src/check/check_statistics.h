#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "check/dataset_checker.h"
#include "check/file_checker.h"

namespace segfeed::check {

// A size as the report writes it: "1918x1280".
std::string SizeText(int width, int height);

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

// Sums and tallies over the checked files, added on one thread in listing
// order, so every sum, floating-point ones included, is the same for any
// thread count.
struct CheckStatistics {
  Tally<std::pair<int, int>> image_sizes, mask_sizes;
  Tally<std::string> process, entropy, subsampling, colorspace;
  Tally<int> bit_depths;
  std::array<uint64_t, 3> channel_sum{}, channel_sum_squares{};
  double foreground_sum = 0;
  int64_t masks_with_foreground = 0;
};

// One checked image: its header's properties and its pixel sums; counts it
// in report->images_checked.
void AddImage(const FileOutcome& out, CheckStatistics* stats, CheckReport* report);

// One checked mask: its size, bit depth and foreground fraction; counts it
// in report->masks_checked.
void AddMask(const FileOutcome& out, CheckStatistics* stats, CheckReport* report);

// Means, standard deviations (as report->statistics asks) and the sorted
// tallies, into the report.
void FinishStatistics(const CheckStatistics& stats, CheckReport* report);

}  // namespace segfeed::check
