#include "cli/sample_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "cli/report_json.h"
#include "digest.h"

namespace segfeed::cli {
namespace {

int64_t MonotonicNanos() {
  // steady_clock is CLOCK_MONOTONIC on Linux.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SampleLog::SampleLog(const std::filesystem::path& path)
    : path_(path), file_(std::fopen(path.c_str(), "w")) {
  if (file_ == nullptr) Fail("cannot open");
}

SampleLog::~SampleLog() {
  if (file_ != nullptr) std::fclose(file_);
}

template <typename... Args>
void SampleLog::Line(const char* format, Args... args) {
  if (std::fprintf(file_, format, args...) < 0 || std::fputc('\n', file_) == EOF) {
    Fail("cannot write");
  }
}

void SampleLog::EpochStart(int64_t epoch) {
  Line(R"({"event":"epoch_start","epoch":%lld,"t":%lld})", static_cast<long long>(epoch),
       static_cast<long long>(MonotonicNanos()));
}

void SampleLog::EpochEnd(int64_t epoch, int64_t samples) {
  Line(R"({"event":"epoch_end","epoch":%lld,"samples":%lld,"t":%lld})",
       static_cast<long long>(epoch), static_cast<long long>(samples),
       static_cast<long long>(MonotonicNanos()));
  Flush();
}

void SampleLog::Batch(const Lease& lease) {
  const long long t = MonotonicNanos();
  const TensorView& images = lease.images();
  const TensorView& masks = lease.masks();
  const auto ids = lease.sample_ids();
  for (int slot = 0; slot < lease.size(); ++slot) {
    Digest digest;
    digest.Update(static_cast<const char*>(images.data) + slot * images.strides_bytes[0],
                  static_cast<size_t>(images.strides_bytes[0]));
    digest.Update(static_cast<const char*>(masks.data) + slot * masks.strides_bytes[0],
                  static_cast<size_t>(masks.strides_bytes[0]));
    Line(R"({"event":"sample","epoch":%lld,"batch":%lld,"slot":%d,"id":%u,"digest":"%s","t":%lld})",
         static_cast<long long>(lease.epoch()), static_cast<long long>(lease.batch_index()), slot,
         ids[slot], digest.Hex().c_str(), t);
  }
  Flush();
}

void SampleLog::NewSkips(const std::vector<Error>& skipped) {
  for (; skipped_seen_ < skipped.size(); ++skipped_seen_) {
    Json line = Json::object();
    line["event"] = "skip";
    AddFields(&line, skipped[skipped_seen_]);
    line["t"] = MonotonicNanos();
    const std::string text = line.dump();
    Line("%s", text.c_str());
  }
}

void SampleLog::Flush() {
  if (std::fflush(file_) != 0) Fail("cannot write");
}

void SampleLog::Fail(const char* what) {
  throw FileError(
      Error{ErrorKind::kIoError, path_.string(), std::string(what) + ": " + std::strerror(errno)});
}

}  // namespace segfeed::cli
