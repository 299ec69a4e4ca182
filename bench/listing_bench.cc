// The dataset listing: the bytes it holds per pair and its time, at 1k and
// 100k pairs (the memory-bounded issue measured ~0.8 KB per pair before the
// listing was stored compactly), for the three rules: Carvana's two flat
// folders, a Cityscapes-like nested tree (the recursive rule, with the
// files beside each label map that it ignores) and a VOC-like list of keys.
// Files are empty: listing reads names only.

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

enum class Rule { kCarvana, kTree, kKeys };

// One folder of `pairs` empty pairs per rule and size, made once per process
// and removed at exit.
class ListingFolders {
 public:
  ~ListingFolders() {
    std::error_code ignored;
    for (const auto& [key, root] : roots_) fs::remove_all(root, ignored);
  }
  const fs::path& Get(Rule rule, int pairs) {
    auto it = roots_.find({rule, pairs});
    if (it != roots_.end()) return it->second;
    const fs::path root = fs::temp_directory_path() /
                          ("segfeed-listing-bench-" + std::to_string(static_cast<int>(rule)) + "-" +
                           std::to_string(pairs));
    fs::remove_all(root);
    switch (rule) {
      case Rule::kCarvana:
        WriteCarvana(root, pairs);
        break;
      case Rule::kTree:
        WriteTree(root, pairs);
        break;
      case Rule::kKeys:
        WriteKeys(root, pairs);
        break;
    }
    return roots_.emplace(std::pair{rule, pairs}, root).first->second;
  }

 private:
  static void WriteCarvana(const fs::path& root, int pairs) {
    fs::create_directories(root / "train");
    fs::create_directories(root / "train_masks");
    for (int i = 0; i < pairs; ++i) {
      char stem[32];
      std::snprintf(stem, sizeof stem, "%08x_%02d", i * 2654435761u, i % 16);
      std::ofstream(root / "train" / (std::string(stem) + ".jpg"));
      std::ofstream(root / "train_masks" / (std::string(stem) + "_mask.gif"));
    }
  }
  // Cityscapes' names: 500 frames a city, a label map and a colour map
  // (ignored by the rule) beside each photo.
  static void WriteTree(const fs::path& root, int pairs) {
    for (int i = 0; i < pairs; ++i) {
      const std::string city = "city" + std::to_string(i / 500);
      char key[64];
      std::snprintf(key, sizeof key, "%s_%06d_%06d", city.c_str(), i % 500, 19);
      const fs::path images = root / "leftImg8bit" / "train" / city;
      const fs::path masks = root / "gtFine" / "train" / city;
      if (i % 500 == 0) {
        fs::create_directories(images);
        fs::create_directories(masks);
      }
      std::ofstream(images / (std::string(key) + "_leftImg8bit.png"));
      std::ofstream(masks / (std::string(key) + "_gtFine_labelIds.png"));
      std::ofstream(masks / (std::string(key) + "_gtFine_color.png"));
    }
  }
  // VOC's names, every fourth photo unlisted as in VOC's JPEGImages.
  static void WriteKeys(const fs::path& root, int pairs) {
    fs::create_directories(root / "JPEGImages");
    fs::create_directories(root / "SegmentationClass");
    fs::create_directories(root / "ImageSets" / "Segmentation");
    std::ofstream list(root / "ImageSets" / "Segmentation" / "train.txt");
    for (int i = 0; i < pairs + pairs / 4; ++i) {
      char key[32];
      std::snprintf(key, sizeof key, "%04d_%06d", 2007 + i % 6, i);
      std::ofstream(root / "JPEGImages" / (std::string(key) + ".jpg"));
      if (i % 5 == 4) continue;
      std::ofstream(root / "SegmentationClass" / (std::string(key) + ".png"));
      list << key << "\n";
    }
  }

  std::map<std::pair<Rule, int>, fs::path> roots_;
};

ListingFolders& Folders() {
  static ListingFolders folders;
  return folders;
}

DatasetSpec SpecFor(Rule rule, const fs::path& root) {
  switch (rule) {
    case Rule::kCarvana:
      return DatasetSpec::Carvana(root);
    case Rule::kTree:
      return DatasetSpec::Cityscapes(root, "train");
    case Rule::kKeys:
      return DatasetSpec::Voc(root, "train");
  }
  return {};
}

void ListRule(benchmark::State& state, Rule rule) {
  const int pairs = static_cast<int>(state.range(0));
  const DatasetSpec spec = SpecFor(rule, Folders().Get(rule, pairs));
  size_t held = 0, planned = 0, listed = 0, pair_list = 0;
  for (auto _ : state) {
    const size_t before = mallinfo2().uordblks;
    std::optional<Dataset> dataset = ListDataset(spec);
    held = mallinfo2().uordblks - before;
    listed = dataset->pairs.size();
    pair_list = dataset->pairs.memory_bytes();
    // What a Loader keeps: the names of ignored files go (their count stays).
    dataset->ignored = {};
    MemoryPlan plan;
    AddListingToPlan(*dataset, &plan);
    planned = plan.listing_bytes;
    benchmark::DoNotOptimize(dataset);
  }
  if (listed != static_cast<size_t>(pairs)) {
    state.SkipWithError(("listed " + std::to_string(listed) + " pairs").c_str());
    return;
  }
  state.SetItemsProcessed(state.iterations() * pairs);
  state.counters["held_bytes_per_pair"] = static_cast<double>(held) / pairs;
  state.counters["pair_list_bytes_per_pair"] = static_cast<double>(pair_list) / pairs;
  state.counters["planned_bytes_per_pair"] = static_cast<double>(planned) / pairs;
}

void BM_ListDataset(benchmark::State& state) { ListRule(state, Rule::kCarvana); }
void BM_ListNestedTree(benchmark::State& state) { ListRule(state, Rule::kTree); }
void BM_ListKeyList(benchmark::State& state) { ListRule(state, Rule::kKeys); }
BENCHMARK(BM_ListDataset)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListNestedTree)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListKeyList)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace segfeed
SEGFEED_BENCHMARK_MAIN()
