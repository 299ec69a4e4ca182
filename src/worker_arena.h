#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <optional>

namespace segfeed {

// The loader's threads: a oneTBB arena with `threads` slots, none reserved
// for the thread that created it (the consumer never works in it).
//
// oneTBB starts one worker fewer than there are cores, expecting the main
// thread to help; our consumer thread trains instead, so when the arena asks
// for more workers than that, the process-wide worker limit is raised (never
// lowered) for as long as this object lives.
class WorkerArena {
 public:
  explicit WorkerArena(int threads)
      : raise_worker_limit_(MaybeRaise(threads)), arena_(threads, /*reserved_for_masters=*/0) {}

  tbb::task_arena* arena() { return &arena_; }

 private:
  static std::optional<tbb::global_control> MaybeRaise(int threads) {
    const int default_limit = tbb::info::default_concurrency();
    if (threads + 1 <= default_limit) return std::nullopt;
    return std::optional<tbb::global_control>(std::in_place,
                                              tbb::global_control::max_allowed_parallelism,
                                              static_cast<size_t>(threads + 1));
  }

  std::optional<tbb::global_control> raise_worker_limit_;
  tbb::task_arena arena_;
};

}  // namespace segfeed
