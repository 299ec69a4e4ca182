// A minimal trainer loop around segfeed::Loader: a few epochs over a
// Carvana-style dataset, a simulated training step per batch, and a report
// of how often the step had to wait for data.
//
//   segfeed_trainer_loop DATA_DIR [epochs=2] [step_ms=20] [threads=0]
//
// If the loader keeps up, the trainer never waits after the first batch of
// an epoch; if it waits often, give the loader more threads or a cheaper
// output (uint8, smaller size).
#include <segfeed/loader.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Stands in for forward + backward + optimizer step on the GPU: the host
// thread is busy (or blocked on the device) for `step_ms`.
void SimulatedTrainingStep(const segfeed::Lease& batch, int step_ms) {
  // Touch the batch as an upload would.
  volatile const unsigned char first = *static_cast<const unsigned char*>(batch.images().data);
  (void)first;
  std::this_thread::sleep_for(std::chrono::milliseconds(step_ms));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [epochs=2] [step_ms=20] [threads=0]\n", argv[0]);
    return 2;
  }
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 2;
  const int step_ms = argc > 3 ? std::atoi(argv[3]) : 20;

  segfeed::LoaderOptions options;
  options.batch_size = 8;
  options.prefetch_batches = 3;
  options.threads = argc > 4 ? std::atoi(argv[4]) : 0;
  options.augment.output_width = options.augment.output_height = 256;
  options.on_bad_file = segfeed::OnBadFile::kSkip;

  try {
    segfeed::Loader loader(segfeed::DatasetSpec::Carvana(argv[1]), options);
    const segfeed::MemoryPlan& plan = loader.plan();
    std::printf("loader: %zu pairs, %lld batches per epoch, pool %.1f MiB, scratch %.1f MiB\n",
                loader.dataset().pairs.size(), static_cast<long long>(loader.batches_per_epoch()),
                plan.pool_bytes / 1048576.0, plan.scratch_bytes / 1048576.0);
    for (int epoch = 0; epoch < epochs; ++epoch) {
      loader.StartEpoch(epoch);
      int steps = 0, waited = 0;
      double waited_ms = 0;
      for (;;) {
        const Clock::time_point asked = Clock::now();
        std::optional<segfeed::Lease> batch = loader.Next();
        const double wait_ms = MillisecondsSince(asked);
        if (!batch) break;
        // The first batch of an epoch is always a wait: nothing was loading.
        if (steps > 0 && wait_ms > 1.0) {
          ++waited;
          waited_ms += wait_ms;
        }
        SimulatedTrainingStep(*batch, step_ms);
        ++steps;
      }  // each Lease returns its buffer to the pool here
      std::printf("epoch %d: %d steps, waited for data at %d of them (%.0f ms in total)\n", epoch,
                  steps, waited, waited_ms);
    }
    const segfeed::LoaderStats stats = loader.stats();
    std::printf("loaded %lld pairs, skipped %lld, replaced %lld, pool %s, max in flight %d of %d\n",
                static_cast<long long>(stats.samples_loaded),
                static_cast<long long>(stats.samples_skipped),
                static_cast<long long>(stats.samples_replaced),
                std::string(segfeed::PoolKindName(stats.pool_kind)).c_str(), stats.peak_in_flight,
                stats.in_flight_bound);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trainer: %s\n", e.what());
    return 1;
  }
  return 0;
}
