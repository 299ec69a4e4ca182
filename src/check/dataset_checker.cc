#include "check/dataset_checker.h"

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "check/check_schedule.h"
#include "check/check_statistics.h"
#include "check/class_table.h"
#include "check/cross_file_checks.h"
#include "check/file_checker.h"
#include "io/dataset_source.h"
#include "io/planned_source.h"

// CheckDataset() in four steps, each in a file of its own: the files to
// check and checking them on threads (check_schedule), what one file is
// found to be (file_checker, the one user of PairReader), the statistics
// and the class table over all files (check_statistics, class_table), and
// the checks across files (cross_file_checks). This file assembles the
// report from them, in listing order.
namespace segfeed::check {
namespace {

void ValidateCheckOptions(const CheckOptions& options) {
  ValidateDecodeOptions(options.decode);
  if (options.threads < 0) {
    throw ConfigError("threads must be >= 0 (got " + std::to_string(options.threads) + ")");
  }
}

}  // namespace

CheckReport CheckDataset(const DatasetSpec& spec, const CheckOptions& options, Dataset* listing) {
  ValidateCheckOptions(options);
  CheckReport report;
  report.statistics = options.statistics;
  Dataset own_listing;
  Dataset& dataset = listing ? *listing : own_listing;
  try {
    dataset = ListDataset(spec, options.object_storage);
  } catch (const FileError& e) {
    report.problems.push_back(e.error());
    return report;
  }
  report.pairs = static_cast<int64_t>(dataset.sample_count());
  report.ignored = std::move(dataset.ignored);
  const std::shared_ptr<source::SampleSource> files = io::DatasetSource(dataset);
  const std::vector<FileJob> jobs = ListJobs(&dataset, *files, &report);
  // The buffers are planned for the dataset's typical photo, as the
  // Loader's are; without one (no pair's header parses) nothing is kept.
  io::PlannedSource plan;
  if (auto source = io::PlanSourceFromHeaders(*files, options.decode); source.ok())
    plan = source.value();
  const int64_t budget_bytes = FileChecker::DecodeBudget(options, plan);
  report.decode_budget_bytes_per_thread = budget_bytes == INT64_MAX ? 0 : budget_bytes;
  report.read_buffer_bytes_per_thread = 2 * options.decode.max_file_bytes;
  report.read_ahead_bytes = files->read_ahead_bytes();
  ClassSums class_sums;
  const std::vector<FileOutcome> outcomes =
      CheckFiles(jobs, options, plan, budget_bytes, files.get(), &class_sums);
  CheckStatistics stats;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (outcomes[i].error) report.problems.push_back(*outcomes[i].error);
    if (outcomes[i].warning) report.problems.push_back(*outcomes[i].warning);
    if (outcomes[i].palette) report.problems.push_back(*outcomes[i].palette);
    if (outcomes[i].uniform) report.problems.push_back(*outcomes[i].uniform);
    if (jobs[i].role == FileRole::kImage) {
      AddImage(outcomes[i], &stats, &report);
      if (auto mismatch = PairSizeMismatch(jobs, outcomes, i)) report.problems.push_back(*mismatch);
    } else {
      AddMask(outcomes[i], &stats, &report);
    }
  }
  FinishStatistics(stats, &report);
  if (options.decode.mask_mode == MaskMode::kLabels) {
    FinishClasses(class_sums, options.decode.num_classes, options.decode.class_names, &report);
  } else if (report.foreground_masks > 0 && stats.masks_with_foreground == 0) {
    report.problems.push_back(AllBackgroundMasks(
        (spec.mask_dir.empty() ? spec.root : spec.mask_dir).string(), report.foreground_masks));
  }
  FindOtherPalettes(jobs, outcomes, &report);
  report.duplicates = FindDuplicates(jobs, outcomes);
  std::sort(report.problems.begin(), report.problems.end(), [](const Error& a, const Error& b) {
    return std::tie(a.path, a.kind, a.detail) < std::tie(b.path, b.kind, b.detail);
  });
  return report;
}

int64_t CountProblems(const CheckReport& report, ErrorKind kind) {
  return std::count_if(report.problems.begin(), report.problems.end(),
                       [kind](const Error& e) { return e.kind == kind; });
}

}  // namespace segfeed::check
