#pragma once

#include <string>

#include "check/dataset_checker.h"
#include "segfeed/dataset.h"

namespace segfeed::cli {

// Prints the report of `segfeed check` on standard output: every problem, one
// line each with names made printable, then the summary, and the verdict
// ("clean", "NOT CLEAN", or "NO PAIRS" with what was found and expected).
void PrintCheckReport(const check::CheckReport& report, const DatasetSpec& spec);

// The same report as the JSON document of --json.
std::string CheckReportJson(const check::CheckReport& report, const DatasetSpec& spec);

}  // namespace segfeed::cli
