// The dataset listing: the bytes it holds per pair and its time, at 1k and
// 100k pairs (the memory-bounded issue measured ~0.8 KB per pair before the
// listing was stored compactly). Files are empty: listing reads names only.

#include <malloc.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "bench_main.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;

// One Carvana-layout folder of `pairs` empty pairs per size, made once per
// process and removed at exit.
class ListingFolders {
 public:
  ~ListingFolders() {
    std::error_code ignored;
    for (const auto& [pairs, root] : roots_) fs::remove_all(root, ignored);
  }
  const fs::path& Get(int pairs) {
    auto it = roots_.find(pairs);
    if (it != roots_.end()) return it->second;
    const fs::path root =
        fs::temp_directory_path() / ("segfeed-listing-bench-" + std::to_string(pairs));
    fs::remove_all(root);
    fs::create_directories(root / "train");
    fs::create_directories(root / "train_masks");
    for (int i = 0; i < pairs; ++i) {
      char stem[32];
      std::snprintf(stem, sizeof stem, "%08x_%02d", i * 2654435761u, i % 16);
      std::ofstream(root / "train" / (std::string(stem) + ".jpg"));
      std::ofstream(root / "train_masks" / (std::string(stem) + "_mask.gif"));
    }
    return roots_.emplace(pairs, root).first->second;
  }

 private:
  std::map<int, fs::path> roots_;
};

ListingFolders& Folders() {
  static ListingFolders folders;
  return folders;
}

void BM_ListDataset(benchmark::State& state) {
  const int pairs = static_cast<int>(state.range(0));
  const DatasetSpec spec = DatasetSpec::Carvana(Folders().Get(pairs));
  size_t held = 0, planned = 0;
  for (auto _ : state) {
    const size_t before = mallinfo2().uordblks;
    std::optional<Dataset> dataset = ListDataset(spec);
    held = mallinfo2().uordblks - before;
    MemoryPlan plan;
    AddListingToPlan(*dataset, &plan);
    planned = plan.listing_bytes;
    benchmark::DoNotOptimize(dataset);
  }
  state.SetItemsProcessed(state.iterations() * pairs);
  state.counters["held_bytes_per_pair"] = static_cast<double>(held) / pairs;
  state.counters["planned_bytes_per_pair"] = static_cast<double>(planned) / pairs;
}
BENCHMARK(BM_ListDataset)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace segfeed
SEGFEED_BENCHMARK_MAIN()
