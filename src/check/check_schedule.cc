#include "check/check_schedule.h"

#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>

#include <atomic>
#include <memory>
#include <utility>

#include "worker_arena.h"

namespace segfeed::check {

std::vector<FileJob> ListJobs(Dataset* dataset, const source::SampleSource& source,
                              CheckReport* report) {
  std::vector<FileJob> jobs;
  const size_t samples = dataset->sample_count();
  jobs.reserve(2 * samples + dataset->problems.size());
  for (size_t i = 0; i < samples; ++i) {
    const auto id = static_cast<source::SampleId>(i);
    jobs.push_back(
        {source.MemberName(id, source::Member::kImage), FileRole::kImage, static_cast<int64_t>(i)});
    jobs.push_back(
        {source.MemberName(id, source::Member::kMask), FileRole::kMask, static_cast<int64_t>(i)});
  }
  // A shard's unpaired member is part of a listed sample, checked above
  // (its missing half fails to read); a folder's is a file of its own.
  const bool files = !dataset->shard_source;
  for (Error& problem : dataset->problems) {
    if (files && problem.kind == ErrorKind::kMissingMask)
      jobs.push_back({problem.path, FileRole::kImage, -1});
    if (files && problem.kind == ErrorKind::kOrphanMask)
      jobs.push_back({problem.path, FileRole::kMask, -1});
    report->problems.push_back(std::move(problem));
  }
  return jobs;
}

std::vector<FileOutcome> CheckFiles(const std::vector<FileJob>& jobs, const CheckOptions& options,
                                    const io::PlannedSource& plan, int64_t budget_bytes,
                                    source::SampleSource* source, ClassSums* class_sums) {
  std::vector<FileOutcome> outcomes(jobs.size());
  if (jobs.empty()) return outcomes;
  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  WorkerArena arena(threads);
  // Free checkers. At most `threads` bodies run at once in the arena, so
  // the pool stays at that size; a new checker is made only if none is free.
  tbb::concurrent_queue<std::unique_ptr<FileChecker>> checkers;
  std::atomic<int64_t> done{0};
  const auto total = static_cast<int64_t>(jobs.size());
  arena.arena()->execute([&] {
    // Grain 1: one file is milliseconds of work, and files differ in size.
    tbb::parallel_for(tbb::blocked_range<size_t>(0, jobs.size(), 1),
                      [&](const tbb::blocked_range<size_t>& range) {
                        std::unique_ptr<FileChecker> checker;
                        if (!checkers.try_pop(checker))
                          checker =
                              std::make_unique<FileChecker>(options, plan, budget_bytes, source);
                        for (size_t i = range.begin(); i != range.end(); ++i) {
                          outcomes[i] = checker->Check(jobs[i]);
                          const int64_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
                          if (options.progress) options.progress(finished, total);
                        }
                        checkers.push(std::move(checker));
                      });
  });
  // Every checker is back in the queue once the loop has finished.
  for (std::unique_ptr<FileChecker> checker; checkers.try_pop(checker);)
    class_sums->Add(checker->class_sums());
  return outcomes;
}

}  // namespace segfeed::check
