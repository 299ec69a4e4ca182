#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace segfeed::cli {

// The HTML report's charts, as inline SVG elements (no script, no external
// reference): text stays text, the page prints and scales, and each chart
// carries role="img" and an aria-label naming what it shows. The report
// gives the numbers beside each chart in a table too.

// One bar: its label (raw bytes; escaped here), its value and its fill
// ("#rrggbb").
struct ChartBar {
  std::string label;
  double value = 0;
  std::string fill = "#4a6fa5";
};

enum class ChartScale {
  kLinear,
  // log10(1 + value): class pixels span orders of magnitude, and a class
  // with a thousandth of the pixels must still show.
  kLog,
};

// Horizontal bars, one row each, the label left of the bar and the value
// right of it. `max_value` is the full length of a bar (0: the largest
// value). `title` is the chart's accessible name (raw bytes).
struct BarChart {
  std::string title;
  std::vector<ChartBar> bars;
  ChartScale scale = ChartScale::kLinear;
  double max_value = 0;
};
std::string BarChartSvg(const BarChart& chart);

// Image sizes as a scatter of width against height: one circle per
// distinct size, its area growing with the files of that size. At most
// kMaxScatterPoints points, the most common sizes; the caller says how
// many were left out.
struct SizePoint {
  int width = 0;
  int height = 0;
  int64_t files = 0;
};
inline constexpr size_t kMaxScatterPoints = 500;
std::string SizeScatterSvg(std::string title, std::span<const SizePoint> points);

}  // namespace segfeed::cli
