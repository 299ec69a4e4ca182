#include "source/scratch_growth.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace segfeed::source {
namespace {

std::atomic<ScratchGrowthObserverForTesting*> observer{nullptr};

}  // namespace

void BeforeScratchGrowth(size_t bytes) {
  if (ScratchGrowthObserverForTesting* seen = observer.load(std::memory_order_acquire))
    seen->BeforeGrowth(bytes);
}

ScratchGrowthObserverForTesting::ScratchGrowthObserverForTesting() {
  ScratchGrowthObserverForTesting* expected = nullptr;
  if (!observer.compare_exchange_strong(expected, this, std::memory_order_acq_rel)) {
    std::fputs("ScratchGrowthObserverForTesting: an observer is already installed\n", stderr);
    std::abort();
  }
}

ScratchGrowthObserverForTesting::~ScratchGrowthObserverForTesting() {
  observer.store(nullptr, std::memory_order_release);
}

}  // namespace segfeed::source
