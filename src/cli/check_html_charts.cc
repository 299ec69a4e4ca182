#include "cli/check_html_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/check_html_text.h"

namespace segfeed::cli {
namespace {

constexpr int kBarRowHeight = 18;
constexpr int kBarLabelWidth = 190;
constexpr int kBarMaxLength = 360;
constexpr int kBarValueWidth = 110;

double Scaled(double value, ChartScale scale) {
  return scale == ChartScale::kLog ? std::log10(1.0 + std::max(value, 0.0)) : value;
}

// Numbers as a person reads them: integers whole, others to 4 digits.
std::string Number(double value) {
  char text[64];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else {
    std::snprintf(text, sizeof text, "%.4g", value);
  }
  return text;
}

std::string SvgOpen(const std::string& title, int width, int height) {
  const std::string name = HtmlText(title);
  return "<svg class=\"chart\" role=\"img\" aria-label=\"" + name + "\" width=\"" +
         std::to_string(width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
         std::to_string(width) + " " + std::to_string(height) + "\"><title>" + name + "</title>";
}

}  // namespace

std::string BarChartSvg(const BarChart& chart) {
  double full = chart.max_value;
  for (const ChartBar& bar : chart.bars) full = std::max(full, bar.value);
  full = Scaled(full, chart.scale);
  const int width = kBarLabelWidth + kBarMaxLength + kBarValueWidth;
  const int height = static_cast<int>(chart.bars.size()) * kBarRowHeight + 4;
  std::string svg = SvgOpen(chart.title, width, height);
  int y = 2;
  for (const ChartBar& bar : chart.bars) {
    const double length = full > 0 ? kBarMaxLength * Scaled(bar.value, chart.scale) / full : 0.0;
    char rect[160];
    std::snprintf(rect, sizeof rect,
                  "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                  "stroke=\"#333\" stroke-width=\"0.5\"/>",
                  kBarLabelWidth, y + 2, length, kBarRowHeight - 4, bar.fill.c_str());
    svg += "<g><text x=\"" + std::to_string(kBarLabelWidth - 6) + "\" y=\"" +
           std::to_string(y + kBarRowHeight - 5) + "\" text-anchor=\"end\">" + HtmlText(bar.label) +
           "</text>" + rect + "<text x=\"" +
           std::to_string(kBarLabelWidth + static_cast<int>(length) + 4) + "\" y=\"" +
           std::to_string(y + kBarRowHeight - 5) + "\">" + Number(bar.value) + "</text></g>";
    y += kBarRowHeight;
  }
  return svg + "</svg>";
}

std::string SizeScatterSvg(std::string title, std::span<const SizePoint> points) {
  constexpr int kPlot = 300, kMargin = 50, kSide = kPlot + 2 * kMargin;
  int max_side = 1;
  int64_t most_files = 1;
  for (const SizePoint& point : points) {
    max_side = std::max({max_side, point.width, point.height});
    most_files = std::max(most_files, point.files);
  }
  // One scale for both axes, so a square image sits on the diagonal.
  const double per_pixel = static_cast<double>(kPlot) / max_side;
  std::string svg = SvgOpen(title, kSide, kSide);
  char line[320];
  std::snprintf(line, sizeof line,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\" "
                "stroke-dasharray=\"4 3\"/>",
                kMargin, kMargin + kPlot, kMargin + kPlot, kMargin + kPlot, kMargin, kMargin,
                kMargin, kMargin + kPlot, kMargin, kMargin + kPlot, kMargin + kPlot, kMargin);
  svg += line;
  std::snprintf(line, sizeof line,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">width (0 to %d px)</text>"
                "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">"
                "height (0 to %d px)</text>",
                kMargin + kPlot / 2, kSide - 12, max_side, kMargin + kPlot / 2, kMargin + kPlot / 2,
                max_side);
  svg += line;
  for (const SizePoint& point : points) {
    const double radius =
        3.0 + 9.0 * std::sqrt(static_cast<double>(point.files) / static_cast<double>(most_files));
    std::snprintf(line, sizeof line,
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#4a6fa5\" "
                  "fill-opacity=\"0.6\" stroke=\"#223\"><title>%dx%d: %lld files</title>"
                  "</circle>",
                  kMargin + point.width * per_pixel, kMargin + kPlot - point.height * per_pixel,
                  radius, point.width, point.height, static_cast<long long>(point.files));
    svg += line;
  }
  return svg + "</svg>";
}

}  // namespace segfeed::cli
