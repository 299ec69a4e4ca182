#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/loader.h"

namespace segfeed::cli {

// bench --sample-digests: one JSON object per line, written and flushed as
// the run goes (not at the end, as --json is), so that a run that dies
// leaves the evidence of every batch it delivered. Each line has "t", the
// CLOCK_MONOTONIC time in nanoseconds, the clock a soak test's other
// processes (Python's time.monotonic_ns()) timestamp their events with.
// A file that cannot be opened or written is a FileError naming it.
class SampleLog {
 public:
  explicit SampleLog(const std::filesystem::path& path);
  SampleLog(const SampleLog&) = delete;
  SampleLog& operator=(const SampleLog&) = delete;
  ~SampleLog();

  void EpochStart(int64_t epoch);
  void EpochEnd(int64_t epoch, int64_t samples);
  // Each sample of the batch: its slot's image and mask bytes, digested
  // together (the digest of one sample is the same in any batch and slot).
  void Batch(const Lease& lease);
  // The files skipped since the last call (stats().skipped_files only grows).
  void NewSkips(const std::vector<Error>& skipped);

 private:
  template <typename... Args>
  void Line(const char* format, Args... args);
  void Flush();
  [[noreturn]] void Fail(const char* what);

  std::filesystem::path path_;
  std::FILE* file_;
  size_t skipped_seen_ = 0;
};

}  // namespace segfeed::cli
