#pragma once

#include <cstdint>
#include <vector>

#include "check/class_table.h"
#include "check/dataset_checker.h"
#include "check/file_checker.h"
#include "io/planned_source.h"

namespace segfeed::check {

// The files to check, in listing order: each pair's image then its mask,
// then the unpaired files. Every file is decoded, unpaired ones too: a
// missing mask does not make the image's own corruption less worth knowing.
// The listing's problems move to the report.
// Files are named as `source` names them (a path, "shard.tar:key.png").
std::vector<FileJob> ListJobs(Dataset* dataset, const source::SampleSource& source,
                              CheckReport* report);

// Checks every job on options.threads threads (0: one per core), each with
// a FileChecker of its own reading under `budget_bytes`; outcomes[i]
// belongs to jobs[i], whatever the thread count and timing. Calls
// options.progress after each file. The checkers' class sums are added to
// `class_sums`.
std::vector<FileOutcome> CheckFiles(const std::vector<FileJob>& jobs, const CheckOptions& options,
                                    const io::PlannedSource& plan, int64_t budget_bytes,
                                    source::SampleSource* source, ClassSums* class_sums);

}  // namespace segfeed::check
