#pragma once

#include <cstddef>
#include <string>

#include "check/dataset_checker.h"
#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::cli {

// What the HTML report says about its making.
struct HtmlReportContext {
  std::string command;  // the command line that made it (raw bytes)
  std::string version;  // segfeed's
  // The check's decode options: the mask mode and classes the thumbnails
  // are drawn with.
  DecodeOptions decode;
};

// The report's bounds, whatever the dataset's size: thumbnails of the
// first kProblemThumbnails problems (their pairs, where they decode), the
// first kProblemRowsListed problems as rows and kDuplicateGroupsListed
// groups of duplicates (--json has all), and kSamplePairs sample pairs,
// chosen with kSampleSeed (SampleIds()). Each thumbnail is at most
// kThumbnailSide pixels a side.
inline constexpr size_t kProblemThumbnails = 200;
inline constexpr size_t kProblemRowsListed = 10000;
inline constexpr size_t kDuplicateGroupsListed = 500;
inline constexpr size_t kSamplePairs = 48;
inline constexpr uint64_t kSampleSeed = 0;

// The report of `segfeed check --report FILE`: one self-contained HTML
// document (inline CSS and SVG, thumbnails as data URIs, no script and no
// external reference) from the same CheckReport as the text and the JSON,
// so their counts agree: the summary (rule, pairs, unpaired, orphans,
// ignored, problems by kind, the command and the version), the problems
// with their thumbnails and a filter by kind (radio buttons and CSS), the
// sample pairs, the charts (classes, image sizes, foreground fractions,
// channel means), the duplicates and the JPEG properties. Every name is
// escaped (HtmlText()). Thumbnails decode their files again, on the
// calling thread.
// `listing` is the check's (CheckDataset()'s `listing`), whose pairs the
// thumbnails read.
std::string CheckReportHtml(const check::CheckReport& report, const DatasetSpec& spec,
                            const Dataset& listing, const HtmlReportContext& context);

}  // namespace segfeed::cli
