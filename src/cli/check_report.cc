// segfeed check's report: the text it prints and the JSON of --json, both
// from one CheckReport.
#include "cli/check_report.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/loader_flags.h"
#include "cli/report_json.h"
#include "output/printable.h"
#include "output/utf8.h"

namespace segfeed::cli {
namespace {

double MiB(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// How many ignored files the text report names; the JSON has all of them.
constexpr size_t kIgnoredListed = 10;

std::string Join(const std::vector<check::ValueCount>& counts) {
  std::string text;
  for (const check::ValueCount& count : counts) {
    if (!text.empty()) text += ", ";
    text += count.value + " (" + std::to_string(count.files) + ")";
  }
  return text.empty() ? "none" : text;
}

// What a check without a single image/mask pair found, and the names the
// pairing expects: the report of an empty dataset, of one in another
// format, or of --images and --masks given the wrong way round.
struct NoPairsExplanation {
  std::string found;  // "found 0 images (.jpg/.jpeg) in d/train and ...; 5 files ignored (.png 5)"
  std::string
      expected;  // "expected d/train/<stem>.jpg with its mask d/train_masks/<stem>_mask.gif"
};

std::string Lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool HasExtensionIn(const std::filesystem::path& path, const std::vector<std::string>& extensions) {
  const std::string extension = Lowercase(path.extension().string());
  return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& candidate) {
    return Lowercase(candidate) == extension;
  });
}

NoPairsExplanation ExplainNoPairs(const check::CheckReport& report, const DatasetSpec& spec) {
  if (!spec.shards.empty() || !spec.shard_index.empty()) {
    // Shards have no folders to describe: what went wrong is in the problems.
    return {"no sample listed from the shards" +
                std::string(report.problems.empty() ? "" : " (the problems above say why)"),
            "expected members <key>.jpg (or .jpeg, .png, .gif) with <key>.mask.png (or "
            ".mask.gif, .seg.png, .seg.gif), as segfeed pack writes them (docs/shards.md)"};
  }
  auto joined = [](const std::vector<std::string>& extensions) {
    std::string text;
    for (const std::string& extension : extensions) text += (text.empty() ? "" : "/") + extension;
    return text;
  };
  // Ignored files by extension (or "hidden", "folder"), and whether each
  // folder holds what belongs in the other.
  std::map<std::string, int64_t> ignored_by_kind;
  int64_t masks_among_images = 0, images_among_masks = 0;
  for (const IgnoredFile& file : report.ignored) {
    const bool named_by_listing = file.reason == "hidden" || file.reason == "folder";
    const std::string extension = Lowercase(file.path.extension().string());
    ++ignored_by_kind[named_by_listing    ? file.reason
                      : extension.empty() ? "no extension"
                                          : extension];
    if (file.path.parent_path() == spec.image_dir &&
        HasExtensionIn(file.path, spec.mask_extensions)) {
      ++masks_among_images;
    }
    if (file.path.parent_path() == spec.mask_dir &&
        HasExtensionIn(file.path, spec.image_extensions)) {
      ++images_among_masks;
    }
  }
  NoPairsExplanation explanation;
  explanation.found = "found " + std::to_string(report.images_checked) + " images (" +
                      joined(spec.image_extensions) + ") in " + spec.image_dir.string() + " and " +
                      std::to_string(report.masks_checked) + " masks (" +
                      joined(spec.mask_extensions) + ") in " + spec.mask_dir.string() + "; " +
                      std::to_string(report.ignored.size()) + " files ignored";
  std::string kinds;
  for (const auto& [kind, files] : ignored_by_kind) {
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(files);
  }
  if (!kinds.empty()) explanation.found += " (" + kinds + ")";
  if (masks_among_images > 0 && images_among_masks > 0)
    explanation.found += "; the two folders look swapped";
  const std::string first_image_extension =
      spec.image_extensions.empty() ? "" : spec.image_extensions.front();
  const std::string first_mask_extension =
      spec.mask_extensions.empty() ? "" : spec.mask_extensions.front();
  explanation.expected =
      "expected " +
      (spec.image_dir / ("<stem>" + spec.image_suffix + first_image_extension)).string() +
      " with its mask " +
      (spec.mask_dir / ("<stem>" + spec.mask_suffix + first_mask_extension)).string();
  return explanation;
}

// The class table of a labels-mode check, one line per class id.
void PrintClasses(const check::CheckReport& report) {
  int64_t labelled = 0;
  for (const check::ClassCount& entry : report.classes) labelled += entry.pixels;
  std::printf("  classes          %zu: %lld labelled pixels, %lld ignore pixels\n",
              report.classes.size(), static_cast<long long>(labelled),
              static_cast<long long>(report.ignore_pixels));
  // Named classes get a column of their names, as wide as the longest.
  int name_width = 0;
  for (const check::ClassCount& entry : report.classes)
    name_width = std::max(name_width, static_cast<int>(output::PrintableText(entry.name).size()));
  std::printf("    %5s %-*s%s%12s %7s %9s %10s %11s\n", "class", name_width,
              name_width > 0 ? "name" : "", name_width > 0 ? " " : "", "pixels", "masks",
              "fraction", "inv-freq", "median-freq");
  for (const check::ClassCount& entry : report.classes) {
    std::printf("    %5d %-*s%s%12lld %7lld %9.4f %10.4f %11.4f%s\n", entry.id, name_width,
                output::PrintableText(entry.name).c_str(), name_width > 0 ? " " : "",
                static_cast<long long>(entry.pixels), static_cast<long long>(entry.masks),
                entry.fraction, entry.inverse_frequency_weight, entry.median_frequency_weight,
                entry.pixels == 0 ? "  absent" : "");
  }
}

// The per-thread bound, which does not depend on --threads: the report
// stays the same for any thread count.
void PrintMemoryBound(const check::CheckReport& report) {
  const double read_mib = MiB(report.read_buffer_bytes_per_thread);
  if (report.decode_budget_bytes_per_thread > 0) {
    std::printf(
        "  memory           at most %.1f MiB per thread: decode budget %.1f MiB (headroom x the "
        "median photo's needs; a file whose header needs more is too_large) + read buffers "
        "%.1f MiB (2 x max_file_bytes)\n",
        MiB(report.decode_budget_bytes_per_thread) + read_mib,
        MiB(report.decode_budget_bytes_per_thread), read_mib);
  } else {
    std::printf(
        "  memory           no decode budget (no sampled photo's header parsed): max_pixels "
        "bounds each file; read buffers %.1f MiB per thread (2 x max_file_bytes)\n",
        read_mib);
  }
  if (report.read_ahead_bytes > 0) {
    std::printf("  read ahead       %.1f MiB at most, shared by the threads (object storage)\n",
                MiB(report.read_ahead_bytes));
  }
}

// The listing's counts: the rule, pairs, unpaired files, problems by kind.
void PrintCounts(const check::CheckReport& report, const DatasetSpec& spec) {
  std::printf("  dataset          %s\n", output::PrintableText(DescribeDatasetRule(spec)).c_str());
  std::printf("  pairs            %lld (%lld images and %lld masks checked)\n",
              static_cast<long long>(report.pairs), static_cast<long long>(report.images_checked),
              static_cast<long long>(report.masks_checked));
  std::printf(
      "  pairing          %lld pairs, %lld unpaired images, %lld orphan masks, %zu "
      "ignored files\n",
      static_cast<long long>(report.pairs),
      static_cast<long long>(check::CountProblems(report, ErrorKind::kMissingMask) +
                             CountProblems(report, ErrorKind::kMissingImage)),
      static_cast<long long>(CountProblems(report, ErrorKind::kOrphanMask)), report.ignored.size());
  std::string by_kind;
  for (ErrorKind kind : check::kAllErrorKinds) {
    if (const int64_t n = CountProblems(report, kind)) {
      by_kind += (by_kind.empty() ? "" : ", ") + std::string(ErrorKindName(kind)) + " " +
                 std::to_string(n);
    }
  }
  std::printf("  problems         %zu%s\n", report.problems.size(),
              by_kind.empty() ? "" : (" (" + by_kind + ")").c_str());
}

// The photos' channel mean (and std with --stats exact), and what they are over.
void PrintChannelStatistics(const check::CheckReport& report) {
  if (report.statistics_pixels == 0) {
    std::printf("  channel mean/std none (no image decoded)\n");
    return;
  }
  const auto& m = report.channel_mean;
  const auto& s = report.channel_std;
  std::printf("  channel mean     R %.4f  G %.4f  B %.4f  (0-255: %.2f %.2f %.2f)\n", m[0] / 255,
              m[1] / 255, m[2] / 255, m[0], m[1], m[2]);
  if (report.statistics == check::ChannelStatistics::kExact) {
    std::printf("  channel std      R %.4f  G %.4f  B %.4f  (0-255: %.2f %.2f %.2f)\n", s[0] / 255,
                s[1] / 255, s[2] / 255, s[0], s[1], s[2]);
    std::printf("                   over all %lld pixels of %lld decoded images, full resolution\n",
                static_cast<long long>(report.statistics_pixels),
                static_cast<long long>(report.statistics_images));
  } else {
    std::printf("  channel std      not computed (--stats exact: over every pixel)\n");
    std::printf(
        "                   mean of the 8x8 block means over all %lld pixels of %lld decoded "
        "images\n",
        static_cast<long long>(report.statistics_pixels),
        static_cast<long long>(report.statistics_images));
  }
}

// The masks' foreground fractions and bit depths.
void PrintMaskStatistics(const check::CheckReport& report) {
  if (report.foreground_masks > 0) {
    std::printf(
        "  mask foreground  mean %.4f, min %.4f, max %.4f (fraction of pixels, %lld masks)\n",
        report.foreground_mean, report.foreground_min, report.foreground_max,
        static_cast<long long>(report.foreground_masks));
  } else {
    std::printf("  mask foreground  none (no mask decoded)\n");
  }
  std::printf("  mask bit depths  %s\n", Join(report.mask_bit_depths).c_str());
}

void PrintOtherPalettes(const check::CheckReport& report) {
  std::printf("  other palettes   %lld mask%s with a palette other than the most common one\n",
              static_cast<long long>(report.other_palette_masks),
              report.other_palette_masks == 1 ? "" : "s");
  for (const std::string& path : report.other_palette_paths)
    std::printf("    %s\n", output::PrintableText(path).c_str());
  if (report.other_palette_masks > static_cast<int64_t>(report.other_palette_paths.size())) {
    std::printf("    ... and %lld more\n",
                static_cast<long long>(report.other_palette_masks -
                                       static_cast<int64_t>(report.other_palette_paths.size())));
  }
}

// The groups of byte-identical files, and the first kIgnoredListed ignored ones.
void PrintDuplicatesAndIgnored(const check::CheckReport& report) {
  std::printf("  duplicates       %zu group%s of byte-identical files\n", report.duplicates.size(),
              report.duplicates.size() == 1 ? "" : "s");
  for (const std::vector<std::string>& group : report.duplicates) {
    std::string line;
    for (const std::string& path : group)
      line += (line.empty() ? "" : " = ") + output::PrintableText(path);
    std::printf("    %s\n", line.c_str());
  }
  std::printf("  ignored files    %zu\n", report.ignored.size());
  for (size_t i = 0; i < report.ignored.size() && i < kIgnoredListed; ++i) {
    std::printf("    %s (%s)\n", output::PrintableText(report.ignored[i].path.string()).c_str(),
                output::PrintableText(report.ignored[i].reason).c_str());
  }
  if (report.ignored.size() > kIgnoredListed) {
    std::printf("    ... and %zu more (all of them in --json)\n",
                report.ignored.size() - kIgnoredListed);
  }
}

}  // namespace

void PrintCheckReport(const check::CheckReport& report, const DatasetSpec& spec) {
  std::printf("problems: %zu\n", report.problems.size());
  // Names are escaped: one problem is one line, and nothing reaches the terminal raw.
  for (const Error& problem : report.problems)
    std::printf("  %s\n", output::PrintableText(problem.Message()).c_str());

  std::printf("summary:\n");
  PrintCounts(report, spec);
  std::printf("  image sizes      %s\n", Join(report.image_sizes).c_str());
  std::printf("  mask sizes       %s\n", Join(report.mask_sizes).c_str());
  std::printf("  JPEG process     %s\n", Join(report.jpeg_process).c_str());
  std::printf("  JPEG coding      %s\n", Join(report.jpeg_entropy_coding).c_str());
  std::printf("  JPEG subsampling %s\n", Join(report.jpeg_subsampling).c_str());
  std::printf("  JPEG colour      %s\n", Join(report.jpeg_colorspace).c_str());
  PrintChannelStatistics(report);
  PrintMaskStatistics(report);
  PrintMemoryBound(report);
  PrintOtherPalettes(report);
  if (!report.classes.empty()) PrintClasses(report);
  PrintDuplicatesAndIgnored(report);
  if (report.pairs == 0) {
    const NoPairsExplanation why = ExplainNoPairs(report, spec);
    std::printf("NO PAIRS: %s\n  %s\n", output::PrintableText(why.found).c_str(),
                output::PrintableText(why.expected).c_str());
    return;
  }
  std::printf("%s: %zu problem%s in %lld pairs\n", report.problems.empty() ? "clean" : "NOT CLEAN",
              report.problems.size(), report.problems.size() == 1 ? "" : "s",
              static_cast<long long>(report.pairs));
}

namespace {

Json CountsJson(const std::vector<check::ValueCount>& counts) {
  Json object = Json::object();
  for (const check::ValueCount& count : counts) object[JsonText(count.value)] = count.files;
  return object;
}

// NaN (null in the JSON) when no image decoded, and the std without
// --stats exact: no number rather than a wrong one.
Json ChannelStatsJson(const check::CheckReport& report) {
  const bool exact = report.statistics == check::ChannelStatistics::kExact;
  auto channels = [&](const std::array<double, 3>& values, double scale, bool known) {
    Json array = Json::array();
    for (double v : values)
      array.push_back(known && report.statistics_pixels > 0 ? v * scale : NAN);
    return array;
  };
  return {{"method", exact ? "exact" : "block"},
          {"over", exact ? "all pixels, full resolution, of every image that "
                           "decoded"
                         : "the 8x8 block means (DCT scale 1/8), each "
                           "weighted by its pixels, of every image that "
                           "decoded; no std"},
          {"channels", "RGB"},
          {"images", report.statistics_images},
          {"pixels", report.statistics_pixels},
          {"mean", channels(report.channel_mean, 1.0 / 255, true)},
          {"std", channels(report.channel_std, 1.0 / 255, exact)},
          {"mean_0_255", channels(report.channel_mean, 1.0, true)},
          {"std_0_255", channels(report.channel_std, 1.0, exact)}};
}

// The groups of duplicates, each path written by `write`.
Json DuplicatesJson(const check::CheckReport& report, std::string (*write)(std::string_view)) {
  Json groups = Json::array();
  for (const std::vector<std::string>& group : report.duplicates) {
    Json paths = Json::array();
    for (const std::string& path : group) paths.push_back(write(path));
    groups.push_back(std::move(paths));
  }
  return groups;
}

Json ClassesJson(const check::CheckReport& report) {
  Json classes = Json::array();
  for (const check::ClassCount& entry : report.classes) {
    classes.push_back({{"id", entry.id},
                       {"name", JsonText(entry.name)},
                       {"pixels", entry.pixels},
                       {"masks", entry.masks},
                       {"fraction", entry.fraction},
                       {"inverse_frequency_weight", entry.inverse_frequency_weight},
                       {"median_frequency_weight", entry.median_frequency_weight}});
  }
  return classes;
}

Json IgnoredJson(const check::CheckReport& report) {
  Json ignored = Json::array();
  for (const IgnoredFile& file : report.ignored) {
    Json entry = Json::object();
    SetText(&entry, "path", file.path.string());
    SetText(&entry, "reason", file.reason);
    ignored.push_back(std::move(entry));
  }
  return ignored;
}

}  // namespace

std::string CheckReportJson(const check::CheckReport& report, const DatasetSpec& spec) {
  Json json = Json::object();
  json["pairs"] = report.pairs;
  if (report.pairs == 0) {
    const NoPairsExplanation why = ExplainNoPairs(report, spec);
    SetText(&json, "error", "no image/mask pairs: " + why.found + "; " + why.expected);
  }
  json["problems"] = ErrorsJson(report.problems);
  Json& summary = json["summary"] = Json::object();
  SetText(&summary, "dataset", DescribeDatasetRule(spec));
  summary["pairs"] = report.pairs;
  summary["unpaired_images"] = check::CountProblems(report, ErrorKind::kMissingMask) +
                               CountProblems(report, ErrorKind::kMissingImage);
  summary["orphan_masks"] = CountProblems(report, ErrorKind::kOrphanMask);
  summary["ignored_files"] = report.ignored.size();
  summary["images_checked"] = report.images_checked;
  summary["masks_checked"] = report.masks_checked;
  summary["problem_count"] = report.problems.size();
  Json& by_kind = summary["problems_by_kind"] = Json::object();
  for (ErrorKind kind : check::kAllErrorKinds)
    by_kind[std::string(ErrorKindName(kind))] = CountProblems(report, kind);
  summary["image_sizes"] = CountsJson(report.image_sizes);
  summary["mask_sizes"] = CountsJson(report.mask_sizes);
  summary["jpeg"] = {{"process", CountsJson(report.jpeg_process)},
                     {"entropy_coding", CountsJson(report.jpeg_entropy_coding)},
                     {"subsampling", CountsJson(report.jpeg_subsampling)},
                     {"colorspace", CountsJson(report.jpeg_colorspace)}};
  summary["channel_stats"] = ChannelStatsJson(report);
  const bool any_mask = report.foreground_masks > 0;
  summary["mask_foreground_fraction"] = {{"masks", report.foreground_masks},
                                         {"mean", any_mask ? report.foreground_mean : NAN},
                                         {"min", any_mask ? report.foreground_min : NAN},
                                         {"max", any_mask ? report.foreground_max : NAN}};
  summary["mask_bit_depths"] = CountsJson(report.mask_bit_depths);
  // 0: no decode budget (no sampled photo's header parsed).
  summary["memory_per_thread"] = {{"decode_budget_bytes", report.decode_budget_bytes_per_thread},
                                  {"read_buffer_bytes", report.read_buffer_bytes_per_thread}};
  // Shared by the threads; 0 for local data.
  summary["read_ahead_bytes"] = report.read_ahead_bytes;
  Json other_palette_paths = Json::array();
  for (const std::string& path : report.other_palette_paths)
    other_palette_paths.push_back(JsonText(path));
  summary["other_palettes"] = {{"masks", report.other_palette_masks},
                               {"paths", std::move(other_palette_paths)}};
  summary["classes"] = ClassesJson(report);
  summary["ignore_pixels"] = report.ignore_pixels;
  summary["duplicates"] = DuplicatesJson(report, &JsonText);
  // Array items have no key for SetText to put the exact bytes beside, so
  // a name that is not UTF-8 brings the whole list again, as hex.
  const bool any_not_utf8 =
      std::any_of(report.duplicates.begin(), report.duplicates.end(), [](const auto& group) {
        return !std::all_of(group.begin(), group.end(), output::IsValidUtf8);
      });
  if (any_not_utf8) summary["duplicates_bytes_hex"] = DuplicatesJson(report, &BytesHex);
  summary["ignored"] = IgnoredJson(report);
  return DumpJson(json);
}

}  // namespace segfeed::cli
