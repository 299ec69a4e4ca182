#pragma once

#include <chrono>
#include <cstdint>

namespace segfeed {

// The clock the stage timers read (LoaderStats::stage_seconds): monotonic,
// so a clock adjustment never makes a stage look negative.
using StageClock = std::chrono::steady_clock;

inline int64_t NanosBetween(StageClock::time_point start, StageClock::time_point end) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

inline int64_t NanosSince(StageClock::time_point start) {
  return NanosBetween(start, StageClock::now());
}

}  // namespace segfeed
