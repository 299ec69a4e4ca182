#include "cli/transfer_report.h"

#include <cstdio>

namespace segfeed::cli {
namespace {

double MiB(double bytes) { return bytes / (1024.0 * 1024.0); }

}  // namespace

std::string TransferReport(const LoaderStats& stats, double seconds, size_t read_ahead_bytes) {
  std::string report;
  char line[512];
  if (stats.remote_requests > 0) {
    std::snprintf(line, sizeof line,
                  "  object storage: %lld requests (%.1f/s over the run, %lld retries) on %lld "
                  "connections, read ahead at most %.1f MiB\n",
                  static_cast<long long>(stats.remote_requests),
                  seconds > 0 ? static_cast<double>(stats.remote_requests) / seconds : 0.0,
                  static_cast<long long>(stats.remote_retries),
                  static_cast<long long>(stats.remote_connections),
                  MiB(static_cast<double>(read_ahead_bytes)));
    report += line;
  }
  // A cache that was looked up (cache_dir given); members, not samples.
  if (stats.cache_hits + stats.cache_misses > 0) {
    std::snprintf(
        line, sizeof line,
        "  cache: %lld members read from it, %lld fetched (%lld found damaged in it), "
        "%lld evicted, %.1f MiB held, %lld failed writes\n",
        static_cast<long long>(stats.cache_hits), static_cast<long long>(stats.cache_misses),
        static_cast<long long>(stats.cache_corrupt), static_cast<long long>(stats.cache_evictions),
        MiB(static_cast<double>(stats.cache_bytes_held)),
        static_cast<long long>(stats.cache_failures));
    report += line;
  }
  return report;
}

}  // namespace segfeed::cli
