#include <oneapi/tbb/info.h>

#include <cstdlib>
#include <memory>
#include <opencv2/core/utility.hpp>
#include <string>
#include <utility>
#include <vector>

#include "decode/jpeg_decoder.h"
#include "io/dataset_source.h"
#include "io/planned_source.h"
#include "pipeline/dataset_errors.h"
#include "pipeline/loader_runtime.h"
#include "segfeed/option_table.h"
#include "source/shards_source.h"

// A LoaderRuntime made: the options validated, the dataset listed and its
// unpaired files checked, the subset and shard chosen, the memory planned
// and the pool and sample loader made. Everything a Loader refuses at
// construction is refused here.

namespace segfeed::pipeline {
namespace {

int ResolveThreads(int threads) { return threads > 0 ? threads : tbb::info::default_concurrency(); }

int EnvironmentInt(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) {
    throw ConfigError(std::string("shard_from_environment is set but ") + name + " is not");
  }
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1'000'000) {
    throw ConfigError(std::string(name) + " must be a non-negative integer (got '" + text + "')");
  }
  return static_cast<int>(value);
}

// The first sample id of each shard, for the shard-block shuffle; a
// dataset of files has no shards to read a window of.
std::vector<uint32_t> ShardStarts(const Dataset& dataset) {
  const source::ShardCatalog* shards =
      dataset.shard_source ? dataset.shard_source->shard_catalog() : nullptr;
  if (!shards) {
    throw ConfigError(
        "shuffle='shards' needs a shard dataset (files have no shards to read a window of); "
        "shuffle='global' permutes all samples at once");
  }
  std::vector<uint32_t> starts;
  const std::vector<source::SampleRecord>& records = shards->records();
  for (size_t id = 0; id < records.size(); ++id) {
    if (id == 0 || records[id].shard != records[id - 1].shard)
      starts.push_back(static_cast<uint32_t>(id));
  }
  return starts;
}

}  // namespace

LoaderRuntime::LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options)
    : spec_(spec), options_(options), threads_(ResolveThreads(options.threads)), arena_(threads_) {
  ValidateLoaderOptions(options_);
  dataset_ = ListDataset(spec, options_.object_storage);
  // Listed: the source holds what the fetched index said.
  spec_.fetched_shard_index.reset();
  if (options_.on_bad_file == OnBadFile::kFail) {
    // A shard that could not be read (io_error) lost samples: named before
    // an empty dataset is, since the damage is why it is empty.
    std::vector<Error> lost, missing;
    for (const Error& problem : dataset_.problems) {
      // An orphan mask trains nothing either way; these lose a sample.
      if (problem.kind == ErrorKind::kIoError) lost.push_back(problem);
      if (problem.kind == ErrorKind::kMissingMask || problem.kind == ErrorKind::kMissingImage ||
          problem.kind == ErrorKind::kDuplicateKey || problem.kind == ErrorKind::kOutsideRoot)
        missing.push_back(problem);
    }
    if (!lost.empty()) throw UnpairedImagesError(lost, "shard problem");
    if (!missing.empty() && dataset_.sample_count() > 0) throw UnpairedImagesError(missing);
  }
  if (dataset_.sample_count() == 0) throw ConfigError(NoPairsMessage(spec, dataset_));
  unpaired_files_ = dataset_.problems;
  source_ = io::DatasetSource(dataset_);
  dataset_.ignored = {};  // counted in ignored_count; check names them

  const auto pair_count = static_cast<uint32_t>(dataset_.sample_count());
  if (options_.subset == Subset::kAll) {
    epoch_plan_spec_.sample_ids.resize(pair_count);
    for (uint32_t i = 0; i < pair_count; ++i) epoch_plan_spec_.sample_ids[i] = i;
  } else {
    SubsetSplit split = SplitSubset(pair_count, options_.validation_fraction, options_.seed);
    epoch_plan_spec_.sample_ids =
        options_.subset == Subset::kTrain ? std::move(split.train) : std::move(split.validation);
    if (epoch_plan_spec_.sample_ids.empty()) {
      throw ConfigError(
          "the " + std::string(options_.subset == Subset::kTrain ? "train" : "validation") +
          " subset is empty (validation_fraction " + std::to_string(options_.validation_fraction) +
          " of " + std::to_string(pair_count) + " pairs)");
    }
  }
  epoch_plan_spec_.seed = options_.seed;
  epoch_plan_spec_.shuffle = options_.shuffle;
  if (options_.shuffle == Shuffle::kShards) {
    epoch_plan_spec_.shard_starts = ShardStarts(dataset_);
    epoch_plan_spec_.shard_window =
        options_.shard_window > 0 ? options_.shard_window : LoaderOptions::kDefaultShardWindow;
  }
  epoch_plan_spec_.batch_size = options_.batch_size;
  epoch_plan_spec_.drop_last = options_.drop_last;
  epoch_plan_spec_.rank = options_.rank;
  epoch_plan_spec_.world_size = options_.world_size;
  if (options_.shard_from_environment) {
    epoch_plan_spec_.rank = EnvironmentInt("RANK");
    epoch_plan_spec_.world_size = EnvironmentInt("WORLD_SIZE");
    if (epoch_plan_spec_.world_size < 1 || epoch_plan_spec_.rank >= epoch_plan_spec_.world_size) {
      throw ConfigError(
          "RANK must be in [0, WORLD_SIZE) (got RANK=" + std::to_string(epoch_plan_spec_.rank) +
          ", WORLD_SIZE=" + std::to_string(epoch_plan_spec_.world_size) + ")");
    }
  }
  {
    const EpochPlan first = MakeEpochPlan(epoch_plan_spec_);
    batches_per_epoch_ = first.batch_count;
    samples_per_epoch_ = static_cast<int64_t>(first.order.size());
  }
  if (batches_per_epoch_ == 0) {
    const size_t shard_samples =
        (epoch_plan_spec_.sample_ids.size() + epoch_plan_spec_.world_size - 1) /
        epoch_plan_spec_.world_size;
    throw ConfigError("drop_last leaves no batch: an epoch of this shard has " +
                      std::to_string(shard_samples) + " samples, fewer than batch_size " +
                      std::to_string(options_.batch_size));
  }

  // The plan is for the dataset's typical photo; pairs up to the budget it
  // gives are decoded, larger ones are too_large.
  int source_width = options_.augment.output_width;
  int source_height = options_.augment.output_height;
  SourceFormats formats;
  if (auto source = io::PlanSourceFromHeaders(*source_, options_.decode); source.ok()) {
    source_width = source.value().width;
    source_height = source.value().height;
    formats = source.value().formats;
  }
  LoaderOptions resolved = options_;
  resolved.threads = threads_;
  memory_plan_ = PlanMemory(resolved, source_width, source_height, formats);
  AddListingToPlan(dataset_, &memory_plan_);
  CheckPlanFitsMachine(memory_plan_);

  // OpenCV's parallel loops run in their own arena and would escape ours.
  cv::setNumThreads(1);

  buffers_ = std::make_shared<memory::BatchBuffers>(
      options_.prefetch_batches, options_.batch_size, options_.output,
      options_.augment.output_width, options_.augment.output_height, options_.pinned);
  samples_ = std::make_unique<SampleLoader>(
      options_, source_.get(), epoch_plan_spec_.sample_ids, buffers_.get(), threads_, source_width,
      source_height, static_cast<int64_t>(memory_plan_.decode_budget_bytes_per_thread), formats);
}

}  // namespace segfeed::pipeline
