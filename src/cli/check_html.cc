// segfeed check --report: the dataset report as one self-contained HTML
// page, from the CheckReport the text and the JSON are made from.
#include "cli/check_html.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/check_html_charts.h"
#include "cli/check_html_style.h"
#include "cli/check_html_text.h"
#include "cli/check_html_thumbnails.h"
#include "cli/preview_grid.h"
#include "output/label_palette.h"

namespace segfeed::cli {
namespace {

std::string Count(int64_t value) { return std::to_string(value); }

std::string Fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string Hex(const uint8_t (&rgb)[3]) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}
std::string Hex(const output::LabelRgb& rgb) {
  const uint8_t colour[3] = {rgb[0], rgb[1], rgb[2]};
  return Hex(colour);
}

std::string Swatch(const std::string& colour, const std::string& text) {
  return "<span class=\"swatch\" style=\"background:" + colour + "\"></span>" + text;
}

// A row of a two-column table: a header cell and a number, the number's
// data-count attribute naming it for whoever reads the page's DOM.
std::string CountRow(const std::string& name, const std::string& key, int64_t value) {
  return "<tr><th scope=\"row\">" + name + "</th><td class=\"n\" data-count=\"" + key + "\">" +
         Count(value) + "</td></tr>";
}

std::string Images(const Thumbnail& thumbnail) {
  std::string html;
  for (const ThumbnailPanel& panel : thumbnail.panels) {
    html += "<img src=\"" + panel.data_uri + "\" width=\"" + std::to_string(panel.width) +
            "\" height=\"" + std::to_string(panel.height) + "\" alt=\"" + HtmlText(panel.alt) +
            "\" title=\"" + HtmlText(panel.caption) + "\">";
  }
  return html;
}

std::string ClassName(int id, const DecodeOptions& decode) {
  std::string name = std::to_string(id);
  if (static_cast<size_t>(id) < decode.class_names.size())
    name += " " + decode.class_names[static_cast<size_t>(id)];
  return name;
}

// The overlay's colours in words and swatches: the preview's.
std::string Legend(const DecodeOptions& decode, const std::set<int>& classes, bool ignore,
                   bool out_of_range) {
  std::string html = "<p class=\"legend\">Overlay:";
  if (decode.mask_mode != MaskMode::kLabels) {
    html += Swatch(Hex(kPreviewMaskColor), "foreground") +
            Swatch(Hex(kPreviewContourColor), "its outline");
  } else {
    for (int id : classes) {
      if (id == 0) continue;  // the background is drawn as the photo
      html +=
          Swatch(Hex(output::LabelColour(id, decode.num_classes)), HtmlText(ClassName(id, decode)));
    }
    if (ignore) html += Swatch(Hex(output::kIgnoreColour), "ignore (hatched)");
    if (out_of_range) html += Swatch(Hex(kOutOfRangeColour), "value out of range");
    html += " (class 0 is left unpainted)";
  }
  return html + "</p>";
}

std::string Summary(const check::CheckReport& report, const DatasetSpec& spec,
                    const HtmlReportContext& context) {
  const bool clean = report.problems.empty() && report.pairs > 0;
  const int64_t unpaired = check::CountProblems(report, ErrorKind::kMissingMask) +
                           check::CountProblems(report, ErrorKind::kMissingImage);
  std::string html = "<header><h1>segfeed check report</h1><p><span class=\"verdict " +
                     std::string(clean ? "clean\">clean" : "problems\">NOT CLEAN") + "</span> " +
                     Count(static_cast<int64_t>(report.problems.size())) + " problem" +
                     (report.problems.size() == 1 ? "" : "s") + " in " + Count(report.pairs) +
                     " pairs" + (report.pairs == 0 ? " (no image/mask pair found)" : "") + "</p>";
  html += "<p class=\"meta\">Dataset: <code>" + HtmlText(DescribeDatasetRule(spec)) + "</code></p>";
  html += "<p class=\"meta\">Made by <code>" + HtmlText(context.command) + "</code> with segfeed " +
          HtmlText(context.version) + "</p></header>";
  html +=
      "<section aria-labelledby=\"summary\"><h2 id=\"summary\">Summary</h2><div class=\"cols\">";
  html += "<table class=\"summary\"><caption class=\"note\">Pairing</caption><tbody>";
  html += CountRow("pairs", "pairs", report.pairs);
  html += CountRow("unpaired images", "unpaired_images", unpaired);
  html += CountRow("orphan masks", "orphan_masks",
                   check::CountProblems(report, ErrorKind::kOrphanMask));
  html += CountRow("ignored files", "ignored_files", static_cast<int64_t>(report.ignored.size()));
  html += CountRow("images checked", "images_checked", report.images_checked);
  html += CountRow("masks checked", "masks_checked", report.masks_checked);
  html += CountRow("problems", "problem_count", static_cast<int64_t>(report.problems.size()));
  html +=
      "</tbody></table><table class=\"by-kind\"><caption class=\"note\">Problems by kind"
      "</caption><thead><tr><th scope=\"col\">kind</th><th scope=\"col\">problems</th></tr>"
      "</thead><tbody>";
  for (ErrorKind kind : check::kAllErrorKinds) {
    if (const int64_t n = check::CountProblems(report, kind)) {
      const std::string name(ErrorKindName(kind));
      html += "<tr><th scope=\"row\">" + name + "</th><td class=\"n\" data-kind=\"" + name + "\">" +
              Count(n) + "</td></tr>";
    }
  }
  if (report.problems.empty()) html += "<tr><td colspan=\"2\">none</td></tr>";
  return html + "</tbody></table></div></section>";
}

// The filter: one radio button per kind present, siblings before the
// table, and a CSS rule per kind that hides the other rows while its
// button is checked. No script: the page works with scripts off.
std::string ProblemFilter(const check::CheckReport& report) {
  std::string css, radios =
                       "<span class=\"filter\">Show: </span><input type=\"radio\" "
                       "name=\"kind\" id=\"kind-all\" checked><label for=\"kind-all\" "
                       "class=\"filter\">all</label>";
  for (ErrorKind kind : check::kAllErrorKinds) {
    const int64_t n = check::CountProblems(report, kind);
    if (n == 0) continue;
    const std::string name(ErrorKindName(kind));
    radios += "<input type=\"radio\" name=\"kind\" id=\"kind-" + name +
              "\"><label class=\"filter\" for=\"kind-" + name + "\">" + name + " (" + Count(n) +
              ")</label>";
    css += "#kind-" + name + ":checked ~ table tr.problem:not(.kind-" + name + "){display:none}";
  }
  return "<style>" + css + "</style>" + radios;
}

std::string Problems(const check::CheckReport& report, PairThumbnails* thumbnails) {
  std::string html = "<section aria-labelledby=\"problems\"><h2 id=\"problems\">Problems (" +
                     Count(static_cast<int64_t>(report.problems.size())) + ")</h2>";
  if (report.problems.empty()) return html + "<p>No problem found.</p></section>";
  html += "<p class=\"note\">Thumbnails of the first " + std::to_string(kProblemThumbnails) +
          " problems' pairs where they decode: the photo with its mask overlaid, or photo and "
          "mask at one scale when their sizes differ; out-of-range label values in red.</p>";
  html += "<div class=\"problem-list\">" + ProblemFilter(report);
  html +=
      "<table class=\"problems\"><colgroup><col class=\"thumb\"><col class=\"file\"><col "
      "class=\"kind\"><col></colgroup><thead><tr><th scope=\"col\">pair</th><th scope=\"col\">"
      "file</th><th scope=\"col\">kind</th><th scope=\"col\">message</th></tr></thead><tbody>";
  const size_t rows = std::min(report.problems.size(), kProblemRowsListed);
  for (size_t i = 0; i < rows; ++i) {
    const Error& problem = report.problems[i];
    const std::string kind(ErrorKindName(problem.kind));
    std::string thumbnail;
    if (i < kProblemThumbnails) {
      const bool is_mask =
          problem.kind == ErrorKind::kOrphanMask || problem.kind == ErrorKind::kCorruptMask ||
          problem.kind == ErrorKind::kNonBinaryMask ||
          problem.kind == ErrorKind::kLabelOutOfRange || problem.kind == ErrorKind::kSuspiciousMask;
      thumbnail = Images(thumbnails->ForFile(problem.path, is_mask));
    }
    html += "<tr class=\"problem kind-" + kind + "\" data-kind=\"" + kind +
            "\"><td class=\"thumb\">" + thumbnail + "</td><td class=\"file\">" +
            HtmlText(problem.path) + "</td><td>" + kind + "</td><td>" + HtmlText(problem.detail) +
            "</td></tr>";
  }
  html += "</tbody></table></div>";
  if (rows < report.problems.size()) {
    html += "<p class=\"note\">... and " +
            Count(static_cast<int64_t>(report.problems.size() - rows)) +
            " more problems: --json lists all of them.</p>";
  }
  return html + "</section>";
}

std::string SamplePairs(PairThumbnails* thumbnails, const DecodeOptions& decode) {
  std::string html = "<section aria-labelledby=\"samples\"><h2 id=\"samples\">Sample pairs</h2>";
  const std::vector<source::SampleId> ids = thumbnails->SampleIds(kSamplePairs, kSampleSeed);
  if (ids.empty()) return html + "<p>No pair to show.</p></section>";
  html += "<p class=\"note\">" + std::to_string(ids.size()) + " of " +
          Count(static_cast<int64_t>(thumbnails->pair_count())) +
          " pairs, a seeded random choice (seed " + std::to_string(kSampleSeed) +
          "), as they are on disk (no augmentation).</p>";
  std::string figures;
  std::set<int> classes;
  bool ignore = false, out_of_range = false;
  for (source::SampleId id : ids) {
    const Thumbnail thumbnail = thumbnails->Pair(id);
    classes.insert(thumbnail.classes.begin(), thumbnail.classes.end());
    ignore |= thumbnail.ignore;
    out_of_range |= thumbnail.out_of_range;
    std::string caption = "#" + std::to_string(id) + " " + thumbnail.name;
    for (const ThumbnailPanel& panel : thumbnail.panels) caption += ", " + panel.caption;
    if (thumbnail.panels.empty()) caption += " (did not decode)";
    std::string names;
    for (int class_id : thumbnail.classes)
      names += (names.empty() ? "" : ", ") + ClassName(class_id, decode);
    if (!names.empty()) caption += "; classes " + names;
    figures += "<figure>" + Images(thumbnail) + "<figcaption>" + HtmlText(caption) +
               "</figcaption></figure>";
  }
  return html + Legend(decode, classes, ignore, out_of_range) + "<div class=\"grid\">" + figures +
         "</div></section>";
}

std::string ClassSection(const check::CheckReport& report) {
  std::string html = "<h3>Classes</h3>";
  BarChart pixels{"pixels per class (log scale)", {}, ChartScale::kLog, 0};
  BarChart masks{"masks containing each class (log scale)", {}, ChartScale::kLog, 0};
  std::string rows;
  const int num_classes = static_cast<int>(report.classes.size());
  for (const check::ClassCount& entry : report.classes) {
    std::string label = std::to_string(entry.id) + (entry.name.empty() ? "" : " " + entry.name);
    const std::string fill = Hex(output::LabelColour(entry.id, num_classes));
    pixels.bars.push_back({label, static_cast<double>(entry.pixels), fill});
    masks.bars.push_back({label, static_cast<double>(entry.masks), fill});
    rows += "<tr class=\"class-row\" data-class=\"" + std::to_string(entry.id) +
            "\"><th scope=\"row\">" + std::to_string(entry.id) + "</th><td>" +
            HtmlText(entry.name) + "</td><td class=\"n\">" + Count(entry.pixels) +
            "</td><td class=\"n\">" + Count(entry.masks) + "</td><td class=\"n\">" +
            Fixed(entry.fraction, 4) + "</td><td class=\"n\">" +
            Fixed(entry.inverse_frequency_weight, 4) + "</td><td class=\"n\">" +
            Fixed(entry.median_frequency_weight, 4) + "</td></tr>";
  }
  html += "<div class=\"cols\"><figure>" + BarChartSvg(pixels) +
          "<figcaption>Pixels per class, log scale</figcaption></figure><figure>" +
          BarChartSvg(masks) +
          "<figcaption>Masks containing each class, log scale</figcaption>"
          "</figure></div>";
  html +=
      "<table class=\"classes\"><thead><tr><th scope=\"col\">class</th><th scope=\"col\">name"
      "</th><th scope=\"col\">pixels</th><th scope=\"col\">masks</th><th scope=\"col\">fraction"
      "</th><th scope=\"col\">inverse-frequency weight</th><th scope=\"col\">median-frequency "
      "weight</th></tr></thead><tbody>" +
      rows + "</tbody></table><p class=\"note\">Ignore pixels: " + Count(report.ignore_pixels) +
      "</p>";
  return html;
}

std::string ValueTable(const std::string& caption, const std::vector<check::ValueCount>& counts) {
  std::string html = "<table><caption class=\"note\">" + caption +
                     "</caption><thead><tr><th scope=\"col\">value</th><th scope=\"col\">files</th>"
                     "</tr></thead><tbody>";
  for (const check::ValueCount& count : counts)
    html += "<tr><td>" + HtmlText(count.value) + "</td><td class=\"n\">" + Count(count.files) +
            "</td></tr>";
  if (counts.empty()) html += "<tr><td colspan=\"2\">none</td></tr>";
  return html + "</tbody></table>";
}

std::string SizeSection(const check::CheckReport& report) {
  std::vector<SizePoint> points;
  for (const check::ValueCount& size : report.image_sizes) {
    SizePoint point;
    if (std::sscanf(size.value.c_str(), "%dx%d", &point.width, &point.height) == 2) {
      point.files = size.files;
      points.push_back(point);
    }
  }
  const size_t distinct = points.size();
  std::sort(points.begin(), points.end(),
            [](const SizePoint& a, const SizePoint& b) { return a.files > b.files; });
  if (points.size() > kMaxScatterPoints) points.resize(kMaxScatterPoints);
  std::string html =
      "<h3>Image sizes</h3><div class=\"cols\"><figure>" +
      SizeScatterSvg("image sizes: width against height", points) +
      "<figcaption>Width against height, one circle per size, its area by the "
      "files of that size" +
      (distinct > points.size() ? "; the " + std::to_string(kMaxScatterPoints) +
                                      " most common of " + std::to_string(distinct) + " sizes"
                                : std::string()) +
      "</figcaption></figure>";
  return html + ValueTable("image sizes", report.image_sizes) +
         ValueTable("mask sizes", report.mask_sizes) + "</div>";
}

std::string StatisticsSection(const check::CheckReport& report) {
  std::string html = "<h3>Mask foreground fraction</h3>";
  if (report.foreground_masks == 0) {
    html += "<p>No mask decoded.</p>";
  } else {
    BarChart histogram{"masks by foreground fraction", {}, ChartScale::kLinear, 0};
    const int bins = check::CheckReport::kForegroundBins;
    for (int i = 0; i < bins; ++i) {
      histogram.bars.push_back({Fixed(static_cast<double>(i) / bins, 1) + " to " +
                                    Fixed(static_cast<double>(i + 1) / bins, 1),
                                static_cast<double>(report.foreground_histogram[i])});
    }
    html += "<figure>" + BarChartSvg(histogram) +
            "<figcaption>Masks by the fraction of their "
            "pixels that are foreground (labels: not class 0). Mean " +
            Fixed(report.foreground_mean, 4) + ", min " + Fixed(report.foreground_min, 4) +
            ", max " + Fixed(report.foreground_max, 4) + " over " + Count(report.foreground_masks) +
            " masks.</figcaption></figure>";
  }
  html += "<h3>Channel means</h3>";
  if (report.statistics_pixels == 0) return html + "<p>No image decoded.</p>";
  static const char* const kChannels[3] = {"R", "G", "B"};
  static const char* const kFills[3] = {"#d33c3c", "#3ca34a", "#3c64d3"};
  BarChart means{"channel means, 0 to 255", {}, ChartScale::kLinear, 255};
  for (int c = 0; c < 3; ++c)
    means.bars.push_back({kChannels[c], report.channel_mean[c], kFills[c]});
  const bool exact = report.statistics == check::ChannelStatistics::kExact;
  std::string caption =
      "Mean per channel over all " + Count(report.statistics_pixels) + " pixels of " +
      Count(report.statistics_images) + " images (" +
      (exact ? "exact" : "from the 8x8 block means") + "): R " + Fixed(report.channel_mean[0], 2) +
      ", G " + Fixed(report.channel_mean[1], 2) + ", B " + Fixed(report.channel_mean[2], 2);
  if (exact) {
    caption += "; std R " + Fixed(report.channel_std[0], 2) + ", G " +
               Fixed(report.channel_std[1], 2) + ", B " + Fixed(report.channel_std[2], 2);
  }
  return html + "<figure>" + BarChartSvg(means) + "<figcaption>" + caption +
         ".</figcaption></figure>";
}

std::string FilesSection(const check::CheckReport& report) {
  std::string html =
      "<section aria-labelledby=\"files\"><h2 id=\"files\">Files</h2><h3>"
      "Duplicates (" +
      Count(static_cast<int64_t>(report.duplicates.size())) +
      " groups of byte-identical files)</h3>";
  if (report.duplicates.empty())
    html += "<p>None.</p>";
  else
    html += "<ol class=\"duplicates\">";
  const size_t groups = std::min(report.duplicates.size(), kDuplicateGroupsListed);
  for (size_t i = 0; i < groups; ++i) {
    const std::vector<std::string>& group = report.duplicates[i];
    std::string line;
    for (const std::string& path : group) line += (line.empty() ? "" : " = ") + HtmlText(path);
    html += "<li>" + line + "</li>";
  }
  if (!report.duplicates.empty()) html += "</ol>";
  if (groups < report.duplicates.size()) {
    html += "<p class=\"note\">... and " +
            Count(static_cast<int64_t>(report.duplicates.size() - groups)) +
            " more groups: --json lists all of them.</p>";
  }
  html += "<h3>JPEG properties</h3><div class=\"cols\">" +
          ValueTable("process", report.jpeg_process) +
          ValueTable("entropy coding", report.jpeg_entropy_coding) +
          ValueTable("chroma subsampling", report.jpeg_subsampling) +
          ValueTable("colour space", report.jpeg_colorspace) +
          ValueTable("mask bit depths", report.mask_bit_depths) + "</div>";
  return html + "<p class=\"note\">Masks with a palette other than the most common one: " +
         Count(report.other_palette_masks) +
         ". Ignored files: " + Count(static_cast<int64_t>(report.ignored.size())) +
         " (the text and --json list them)."
         "</p></section>";
}

}  // namespace

std::string CheckReportHtml(const check::CheckReport& report, const DatasetSpec& spec,
                            const Dataset& listing, const HtmlReportContext& context) {
  std::vector<std::string> thumbnail_paths;
  for (size_t i = 0; i < report.problems.size() && i < kProblemThumbnails; ++i)
    thumbnail_paths.push_back(report.problems[i].path);
  PairThumbnails thumbnails(listing, context.decode, thumbnail_paths);
  std::string html =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>segfeed check: " +
      HtmlText(DescribeDatasetRule(spec)) + "</title><style>" + kCheckHtmlStyle +
      "</style></head><body>";
  html += Summary(report, spec, context);
  html += Problems(report, &thumbnails);
  html += SamplePairs(&thumbnails, context.decode);
  html += "<section aria-labelledby=\"charts\"><h2 id=\"charts\">Charts</h2>";
  if (!report.classes.empty()) html += ClassSection(report);
  html += SizeSection(report) + StatisticsSection(report) + "</section>";
  html += FilesSection(report);
  return html + "</body></html>\n";
}

}  // namespace segfeed::cli
