#include "cli/stage_table.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>
#include <vector>

namespace segfeed::cli {

std::string StageLabel(std::string_view field) {
  constexpr std::string_view kDecode = "decode_";
  const size_t role_end = field.find('_', kDecode.size());
  if (field.starts_with(kDecode) && role_end != std::string_view::npos) {
    const std::string_view role = field.substr(kDecode.size(), role_end - kDecode.size());
    std::string format(field.substr(role_end + 1));
    // decode_photo_jpeg_roi: "JPEG ROI decode (photos)".
    for (char& c : format)
      c = c == '_' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return format + " decode (" + std::string(role) + "s)";
  }
  std::string label(field);
  std::replace(label.begin(), label.end(), '_', ' ');
  return label;
}

std::string StageTable(const StageSeconds& stages) {
  // The stages of the decode threads, in the field list's order: every
  // field but the consumer's wait, which is told apart by the member it
  // is, not by its name.
  std::vector<std::pair<std::string, double>> rows;
  double work = 0;
  ForEachField(stages, [&](std::string_view name, const double& seconds) {
    if (&seconds == &stages.consumer_wait) return;
    work += seconds;
    if (seconds > 0) rows.emplace_back(StageLabel(name), seconds);
  });
  size_t width = 0;
  for (const auto& [label, seconds] : rows) width = std::max(width, label.size());

  std::string table = "  stages (thread-seconds, all epochs):\n";
  char line[160];
  for (const auto& [label, seconds] : rows) {
    std::snprintf(line, sizeof line, "    %-*s %8.2f %4.0f%%\n", static_cast<int>(width),
                  label.c_str(), seconds, 100.0 * seconds / work);
    table += line;
  }
  std::snprintf(line, sizeof line, "  consumer waited %.2f s\n", stages.consumer_wait);
  table += line;
  return table;
}

}  // namespace segfeed::cli
