#include "segfeed/loader.h"

#include <oneapi/tbb/info.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <opencv2/core/utility.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "augment/sample_augmenter.h"
#include "counter_rng.h"
#include "io/jpeg_decoder.h"
#include "io/pair_reader.h"
#include "memory/batch_buffers.h"
#include "pipeline/batch_graph.h"
#include "pipeline/epoch_plan.h"
#include "pipeline/ready_queue.h"
#include "pipeline/worker_arena.h"

namespace segfeed {
namespace internal {
namespace {

// Replacement samples for skipped files are drawn from this stream.
constexpr uint64_t kReplacementSalt = 0x2E91ACE;
// A slot gives up after this many bad files in a row: a dataset that bad is
// a configuration problem, and retrying forever would hang.
constexpr int kMaxAttemptsPerSlot = 16;

using Clock = std::chrono::steady_clock;

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

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

// One decode thread's tools and scratch; only the worker holding its index
// touches it.
struct Worker {
  explicit Worker(const LoaderOptions& options) : reader(options.decode), augmenter(options.augment, options.output) {}
  PairReader reader;
  SampleAugmenter augmenter;
};

}  // namespace

class LoaderRuntime {
 public:
  LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options);
  ~LoaderRuntime() { Close(); }

  void StartEpoch(int64_t epoch, int64_t first_batch);
  // The buffer of the next batch, nothing at the end; throws FileError.
  std::optional<int> NextBuffer();
  void Close();
  LoaderStats Stats() const;

  const std::shared_ptr<BatchBuffers>& buffers() const { return buffers_; }
  const Dataset& dataset() const { return dataset_; }
  const MemoryPlan& plan() const { return plan_; }
  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  int64_t samples_per_epoch() const { return samples_per_epoch_; }

 private:
  Status LoadSample(const SampleTask& task, int worker);
  void Publish(FilledBatch filled);
  void RecordSkip(const Error& error);
  void StopGraph();

  LoaderOptions options_;
  int threads_;
  Dataset dataset_;
  EpochPlanSpec plan_spec_;  // sample ids, shard and batching; epoch set per epoch
  int64_t batches_per_epoch_ = 0;
  int64_t samples_per_epoch_ = 0;
  MemoryPlan plan_;
  std::shared_ptr<BatchBuffers> buffers_;
  std::vector<std::unique_ptr<Worker>> workers_;
  WorkerArena arena_;
  ReadyQueue ready_;

  // Consumer-thread state. The graph only reads epoch_ and epoch_plan_, and
  // only while it runs; they change only while no graph runs.
  int64_t epoch_ = 0;
  EpochPlan epoch_plan_;
  int64_t next_batch_ = 0;
  bool epoch_started_ = false;
  bool closed_ = false;
  int max_in_flight_ = 0;

  // Counters written by the graph's threads.
  std::atomic<int64_t> samples_loaded_{0};
  std::atomic<int64_t> batches_delivered_{0};
  std::atomic<int64_t> input_bytes_{0};
  std::atomic<int64_t> samples_skipped_{0};
  std::atomic<int64_t> read_ns_{0}, image_decode_ns_{0}, mask_decode_ns_{0}, warp_ns_{0}, jitter_ns_{0},
      convert_ns_{0}, wait_ns_{0};
  mutable std::mutex skipped_mu_;
  std::vector<Error> skipped_files_;               // guarded by skipped_mu_
  std::set<std::string> skipped_paths_;            // guarded by skipped_mu_

  // Last: destroyed (stopped) before everything it uses.
  std::unique_ptr<BatchGraph> graph_;
};

LoaderRuntime::LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options)
    : options_(options), threads_(ResolveThreads(options.threads)), arena_(threads_) {
  ValidateLoaderOptions(options_);
  dataset_ = ListDataset(spec);
  if (dataset_.pairs.empty()) {
    throw ConfigError("dataset has no image with a mask in " + spec.image_dir.string() + " and " +
                      spec.mask_dir.string());
  }

  const auto pair_count = static_cast<uint32_t>(dataset_.pairs.size());
  if (options_.subset == Subset::kAll) {
    plan_spec_.sample_ids.resize(pair_count);
    for (uint32_t i = 0; i < pair_count; ++i) plan_spec_.sample_ids[i] = i;
  } else {
    SubsetSplit split = SplitSubset(pair_count, options_.validation_fraction, options_.seed);
    plan_spec_.sample_ids = options_.subset == Subset::kTrain ? std::move(split.train) : std::move(split.validation);
    if (plan_spec_.sample_ids.empty()) {
      throw ConfigError("the " + std::string(options_.subset == Subset::kTrain ? "train" : "validation") +
                        " subset is empty (validation_fraction " + std::to_string(options_.validation_fraction) +
                        " of " + std::to_string(pair_count) + " pairs)");
    }
  }
  plan_spec_.seed = options_.seed;
  plan_spec_.shuffle = options_.shuffle;
  plan_spec_.batch_size = options_.batch_size;
  plan_spec_.drop_last = options_.drop_last;
  plan_spec_.rank = options_.rank;
  plan_spec_.world_size = options_.world_size;
  if (options_.shard_from_environment) {
    plan_spec_.rank = EnvironmentInt("RANK");
    plan_spec_.world_size = EnvironmentInt("WORLD_SIZE");
    if (plan_spec_.world_size < 1 || plan_spec_.rank >= plan_spec_.world_size) {
      throw ConfigError("RANK must be in [0, WORLD_SIZE) (got RANK=" + std::to_string(plan_spec_.rank) +
                        ", WORLD_SIZE=" + std::to_string(plan_spec_.world_size) + ")");
    }
  }
  {
    const EpochPlan first = MakeEpochPlan(plan_spec_);
    batches_per_epoch_ = first.batch_count;
    samples_per_epoch_ = static_cast<int64_t>(first.order.size());
  }

  // The plan is for the first pair's size; the checker finds pairs that differ.
  int source_width = options_.augment.output_width;
  int source_height = options_.augment.output_height;
  if (auto header = ReadJpegHeaderFile(dataset_.pairs.front().image_path, options_.decode); header.ok()) {
    source_width = header.value().width;
    source_height = header.value().height;
  }
  LoaderOptions resolved = options_;
  resolved.threads = threads_;
  plan_ = PlanMemory(resolved, source_width, source_height);

  // OpenCV's parallel loops run in their own arena and would escape ours.
  cv::setNumThreads(1);

  buffers_ = std::make_shared<BatchBuffers>(options_.prefetch_batches, options_.batch_size, options_.output,
                                            options_.augment.output_width, options_.augment.output_height,
                                            options_.pinned);
  workers_.reserve(threads_);
  for (int i = 0; i < threads_; ++i) {
    workers_.push_back(std::make_unique<Worker>(options_));
    workers_.back()->reader.Reserve(source_width, source_height, options_.augment.output_width,
                                    options_.augment.output_height);
  }
}

void LoaderRuntime::StopGraph() {
  if (graph_) {
    graph_->Stop();
    max_in_flight_ = std::max(max_in_flight_, graph_->max_in_flight());
    graph_.reset();
  }
  // Batches loaded but never handed out go back to the pool.
  for (FilledBatch& filled : ready_.Drain()) buffers_->pool.Release(filled.buffer);
}

void LoaderRuntime::StartEpoch(int64_t epoch, int64_t first_batch) {
  if (closed_) throw std::logic_error("Loader::StartEpoch() on a closed loader");
  if (epoch < 0) throw ConfigError("epoch must be >= 0 (got " + std::to_string(epoch) + ")");
  if (first_batch < 0 || first_batch > batches_per_epoch_) {
    throw ConfigError("first_batch must be in [0, " + std::to_string(batches_per_epoch_) + "] (got " +
                      std::to_string(first_batch) + ")");
  }
  StopGraph();
  ready_.Reopen();
  epoch_ = epoch;
  plan_spec_.epoch = epoch;
  epoch_plan_ = MakeEpochPlan(plan_spec_);
  next_batch_ = first_batch;
  epoch_started_ = true;
  if (first_batch == epoch_plan_.batch_count) return;

  BatchGraph::Shape shape;
  shape.first_batch = first_batch;
  shape.batch_count = epoch_plan_.batch_count;
  shape.batch_samples = [this](int64_t batch) { return epoch_plan_.BatchSamples(batch); };
  shape.batch_size = options_.batch_size;
  shape.workers = threads_;
  BatchGraph::Callbacks callbacks;
  callbacks.load_sample = [this](const SampleTask& task, int worker) { return LoadSample(task, worker); };
  callbacks.publish = [this](FilledBatch filled) { Publish(std::move(filled)); };
  graph_ = std::make_unique<BatchGraph>(arena_.arena(), &buffers_->pool, std::move(shape), std::move(callbacks));
}

Status LoaderRuntime::LoadSample(const SampleTask& task, int worker_index) {
  Worker& worker = *workers_[worker_index];
  BatchMeta& meta = buffers_->meta[task.buffer];
  const uint32_t planned = epoch_plan_.order[task.position];
  const CounterRng replacements(options_.seed ^ kReplacementSalt, static_cast<uint64_t>(epoch_),
                                static_cast<uint64_t>(task.position));
  const int out_w = options_.augment.output_width;
  const int out_h = options_.augment.output_height;
  for (int attempt = 0;; ++attempt) {
    const uint32_t id = attempt == 0 ? planned
                                     : plan_spec_.sample_ids[replacements.At(attempt) % plan_spec_.sample_ids.size()];
    Status status = worker.reader.Read(dataset_.pairs[id], out_w, out_h);
    const PairReader::Timings& read = worker.reader.last_timings();
    read_ns_ += read.read_ns;
    image_decode_ns_ += read.image_decode_ns;
    mask_decode_ns_ += read.mask_decode_ns;
    input_bytes_ += static_cast<int64_t>(worker.reader.last_bytes_read());
    if (status.ok()) {
      // A replacement gets parameters of its own, not a copy of those its
      // pair has elsewhere in the epoch.
      const uint64_t params_key = attempt == 0 ? id : id | (static_cast<uint64_t>(attempt) << 32);
      const AugmentParams params = DrawAugmentParams(options_.augment, options_.seed, static_cast<uint64_t>(epoch_), params_key);
      const RgbImage& image = worker.reader.image();
      const MaskImage& mask = worker.reader.mask();
      WarpSource source;
      source.image = {image.pixels.data(), image.width, image.height, 3, ptrdiff_t{image.width} * 3};
      source.mask = {mask.pixels.data(), mask.width, mask.height, 1, ptrdiff_t{mask.width}};
      const DctScale scale = worker.reader.image_scale();
      source.image_scale = static_cast<double>(scale.num) / scale.denom;
      const OutputConverter& converter = worker.augmenter.converter();
      worker.augmenter.Run(params, source, converter.DenseImage(buffers_->ImageSlot(task.buffer, task.slot), out_w, out_h),
                           converter.DenseMask(buffers_->MaskSlot(task.buffer, task.slot), out_w));
      const SampleAugmenter::Timings& augment = worker.augmenter.last_timings();
      warp_ns_ += augment.warp_ns;
      jitter_ns_ += augment.jitter_ns;
      convert_ns_ += augment.convert_ns;
      meta.sample_ids[task.slot] = id;
      meta.params[task.slot] = params;
      ++samples_loaded_;
      return {};
    }
    if (options_.on_bad_file == OnBadFile::kFail) return status;
    RecordSkip(status.error());
    if (attempt + 1 == kMaxAttemptsPerSlot) {
      Error error = status.error();
      error.detail += " (and " + std::to_string(kMaxAttemptsPerSlot - 1) +
                      " replacements in a row failed too: the dataset is mostly unreadable)";
      return error;
    }
  }
}

void LoaderRuntime::RecordSkip(const Error& error) {
  ++samples_skipped_;
  std::lock_guard lock(skipped_mu_);
  if (skipped_paths_.insert(error.path).second) skipped_files_.push_back(error);
}

void LoaderRuntime::Publish(FilledBatch filled) {
  BatchMeta& meta = buffers_->meta[filled.buffer];
  meta.epoch = epoch_;
  meta.batch_index = filled.batch;
  meta.size = filled.samples;
  meta.images.shape[0] = filled.samples;
  meta.masks.shape[0] = filled.samples;
  if (filled.samples < options_.batch_size) {
    // Unused slots of a short batch are zeroed, so the buffer's bytes are a
    // function of the seed alone.
    const size_t unused = static_cast<size_t>(options_.batch_size - filled.samples);
    std::memset(buffers_->ImageSlot(filled.buffer, filled.samples), 0, unused * buffers_->image_bytes_per_sample);
    std::memset(buffers_->MaskSlot(filled.buffer, filled.samples), 0, unused * buffers_->mask_bytes_per_sample);
  }
  ready_.Push(std::move(filled));
}

std::optional<int> LoaderRuntime::NextBuffer() {
  if (closed_) return std::nullopt;
  if (!epoch_started_) throw std::logic_error("Loader::Next() before StartEpoch()");
  if (next_batch_ >= epoch_plan_.batch_count) return std::nullopt;
  const Clock::time_point start = Clock::now();
  std::optional<FilledBatch> filled = ready_.Pop();
  wait_ns_ += NanosSince(start);
  if (!filled) return std::nullopt;
  ++next_batch_;
  if (filled->error) {
    buffers_->pool.Release(filled->buffer);
    Error error = std::move(*filled->error);
    Close();
    throw FileError(std::move(error));
  }
  ++batches_delivered_;
  return filled->buffer;
}

void LoaderRuntime::Close() {
  if (closed_) return;
  closed_ = true;
  StopGraph();
  ready_.Close();
}

LoaderStats LoaderRuntime::Stats() const {
  LoaderStats stats;
  const BufferPool& pool = buffers_->pool;
  stats.pool_kind = pool.kind();
  stats.pool_fallback_reason = pool.fallback_reason();
  stats.pool_bytes = pool.total_bytes();
  stats.pool_buffers = pool.buffer_count();
  stats.pool_allocations = pool.allocation_count();
  for (const auto& worker : workers_) {
    stats.scratch_bytes += worker->reader.scratch_bytes() + worker->augmenter.scratch_bytes();
    stats.read_buffer_bytes += worker->reader.read_buffer_bytes();
  }
  stats.threads = threads_;
  stats.max_in_flight = std::max(max_in_flight_, graph_ ? graph_->max_in_flight() : 0);
  stats.in_flight_bound = options_.prefetch_batches * options_.batch_size;
  stats.samples_loaded = samples_loaded_.load();
  stats.batches_delivered = batches_delivered_.load();
  stats.input_bytes = input_bytes_.load();
  stats.samples_skipped = samples_skipped_.load();
  {
    std::lock_guard lock(skipped_mu_);
    stats.skipped_files = skipped_files_;
  }
  stats.stage_seconds.read = read_ns_.load() * 1e-9;
  stats.stage_seconds.decode_image = image_decode_ns_.load() * 1e-9;
  stats.stage_seconds.decode_mask = mask_decode_ns_.load() * 1e-9;
  stats.stage_seconds.warp = warp_ns_.load() * 1e-9;
  stats.stage_seconds.jitter = jitter_ns_.load() * 1e-9;
  stats.stage_seconds.convert = convert_ns_.load() * 1e-9;
  stats.stage_seconds.consumer_wait = wait_ns_.load() * 1e-9;
  return stats;
}

}  // namespace internal

Loader::Loader(const DatasetSpec& dataset, const LoaderOptions& options)
    : runtime_(std::make_unique<internal::LoaderRuntime>(dataset, options)) {}

Loader::~Loader() = default;

void Loader::StartEpoch(int64_t epoch, int64_t first_batch) { runtime_->StartEpoch(epoch, first_batch); }

std::optional<Lease> Loader::Next() {
  std::optional<int> buffer = runtime_->NextBuffer();
  if (!buffer) return std::nullopt;
  return Lease(runtime_->buffers(), *buffer);
}

void Loader::Close() { runtime_->Close(); }
int64_t Loader::batches_per_epoch() const { return runtime_->batches_per_epoch(); }
int64_t Loader::samples_per_epoch() const { return runtime_->samples_per_epoch(); }
const Dataset& Loader::dataset() const { return runtime_->dataset(); }
const MemoryPlan& Loader::plan() const { return runtime_->plan(); }
LoaderStats Loader::stats() const { return runtime_->Stats(); }

}  // namespace segfeed
