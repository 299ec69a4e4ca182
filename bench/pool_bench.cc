// The batch-buffer pool: what a batch pays to get a buffer and give it back,
// and what building the pool costs at start-up. A batch acquires once and
// releases once, so these costs are per batch (16 samples at the default),
// not per sample.

#include <optional>
#include <string>

#include "bench_main.h"
#include "memory/buffer_pool.h"

namespace segfeed::bench {
namespace {

constexpr size_t kSmallBuffer = 4096;

// The consumer side: TryAcquire then Release on the free list.
void BM_PoolAcquireRelease(benchmark::State& state) {
  memory::BufferPool pool(2, kSmallBuffer, PinnedMode::kOff);
  for (auto _ : state) {
    const std::optional<int> index = pool.TryAcquire();
    benchmark::DoNotOptimize(index);
    pool.Release(*index);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PoolAcquireRelease);

// The running loader's path: a released buffer goes straight to the return
// listener (the flow graph's free-buffer queue), here a plain hand-back.
void BM_PoolReleaseToListener(benchmark::State& state) {
  memory::BufferPool pool(2, kSmallBuffer, PinnedMode::kOff);
  int returned = -1;
  pool.SetReturnListener([&returned](int index) { returned = index; });
  int index = returned;  // the listener got a free buffer at once
  for (auto _ : state) {
    pool.Release(index);
    index = returned;
    benchmark::DoNotOptimize(index);
  }
  pool.ClearReturnListener();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PoolReleaseToListener);

// Acquire and release from 1 and 2 threads at once on one pool: the cost of
// the pool's lock when workers and consumer meet.
void BM_PoolContended(benchmark::State& state) {
  static memory::BufferPool pool(4, kSmallBuffer, PinnedMode::kOff);  // shared by the threads
  for (auto _ : state) {
    const std::optional<int> index = pool.TryAcquire();
    if (index) pool.Release(*index);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PoolContended)->Threads(1)->Threads(2)->UseRealTime();

// Building the default pool (2 buffers of a 16 x 512 x 512 float32 batch
// with masks, 64 MiB each): allocation, every page touched, and mlock where
// permitted. Paid once per Loader.
void BM_PoolConstruction(benchmark::State& state) {
  const auto mode = static_cast<PinnedMode>(state.range(0));
  constexpr size_t kBatchBytes = size_t{16} * 512 * 512 * (3 + 1) * sizeof(float);
  std::string kind;
  for (auto _ : state) {
    memory::BufferPool pool(2, kBatchBytes, mode);
    benchmark::DoNotOptimize(pool.data(0));
    kind = std::string(PoolKindName(pool.kind()));
  }
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(kBatchBytes));
  state.SetLabel(kind);
}
BENCHMARK(BM_PoolConstruction)
    ->ArgName("mode")
    ->Arg(static_cast<int>(PinnedMode::kOff))
    ->Arg(static_cast<int>(PinnedMode::kAuto))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace segfeed::bench

SEGFEED_BENCHMARK_MAIN()
