#include "check/class_table.h"

#include <algorithm>
#include <vector>

#include "decode/mask_values.h"

namespace segfeed::check {

int64_t ClassSums::AddLabelMap(const uint8_t* labels, size_t pixel_count) {
  std::array<uint64_t, 256> histogram{};
  for (size_t i = 0; i < pixel_count; ++i) ++histogram[labels[i]];
  for (size_t v = 0; v < histogram.size(); ++v) {
    if (histogram[v] == 0) continue;
    pixels[v] += histogram[v];
    ++masks[v];
    containing_pixels[v] += pixel_count;
  }
  return static_cast<int64_t>(pixel_count - histogram[0] - histogram[decode::kIgnoreLabel]);
}

void ClassSums::Add(const ClassSums& other) {
  for (size_t v = 0; v < pixels.size(); ++v) {
    pixels[v] += other.pixels[v];
    masks[v] += other.masks[v];
    containing_pixels[v] += other.containing_pixels[v];
  }
}

void FinishClasses(const ClassSums& sums, int num_classes, std::span<const std::string> names,
                   CheckReport* report) {
  report->ignore_pixels = static_cast<int64_t>(sums.pixels[decode::kIgnoreLabel]);
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
    if (static_cast<size_t>(c) < names.size()) entry.name = names[static_cast<size_t>(c)];
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

}  // namespace segfeed::check
