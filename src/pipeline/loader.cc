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
#include <unordered_map>
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
#include "pipeline/planned_source.h"
#include "pipeline/ready_queue.h"
#include "pipeline/worker_arena.h"
#include "stage_clock.h"

namespace segfeed {
namespace internal {
namespace {

// Replacement samples for skipped files are drawn from this stream.
constexpr uint64_t kReplacementSalt = 0x2E91ACE;
// A slot gives up after this many draws without a good pair. Pairs already
// known to be bad cost no reading, so this trips only on a dataset almost
// all bad (with 90% bad pairs a slot fails once in 10^11), where training
// would be meaningless and retrying forever would hang.
constexpr int kMaxDrawsPerSlot = 256;
// Unpaired images named in the error that stops a kFail loader.
constexpr size_t kUnpairedListed = 5;


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

std::string Plural(size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// What a Loader with OnBadFile::kFail says about images without a mask:
// the first one as the error, the next few and the count in its detail.
FileError UnpairedImagesError(const std::vector<Error>& missing) {
  Error error = missing.front();
  if (missing.size() > 1) {
    error.detail += "; " + Plural(missing.size() - 1, "more image") + " without a mask:";
    for (size_t i = 1; i < missing.size() && i <= kUnpairedListed; ++i) error.detail += " " + missing[i].path;
    if (missing.size() > kUnpairedListed + 1) error.detail += " ...";
  }
  error.detail += " (on_bad_file = skip trains without them)";
  return FileError(std::move(error));
}

// Why a listing has no complete pair, with what was found and the layout
// that was expected.
std::string NoPairsMessage(const DatasetSpec& spec, const Dataset& dataset) {
  size_t images = 0, masks = 0;
  for (const Error& problem : dataset.problems) {
    (problem.kind == ErrorKind::kMissingMask ? images : masks) += 1;
  }
  auto extensions = [](const std::vector<std::string>& list) {
    std::string joined;
    for (const std::string& extension : list) joined += (joined.empty() ? "" : "/") + extension;
    return joined;
  };
  return "dataset has no image with a mask: found " + Plural(images, "image") + " (" +
         extensions(spec.image_extensions) + ") in " + spec.image_dir.string() + ", " + Plural(masks, "mask") +
         " (" + extensions(spec.mask_extensions) + ") in " + spec.mask_dir.string() + " and " +
         Plural(dataset.ignored.size(), "other file") + "; an image <stem>" + spec.image_extensions.front() +
         " pairs with the mask <stem>" + spec.mask_suffix + spec.mask_extensions.front();
}

// One decode thread's tools and scratch; only the worker holding its index
// touches it.
struct Worker {
  explicit Worker(const LoaderOptions& options) : reader(options.decode), augmenter(options.augment, options.output) {}

  // Copies what the buffers hold into the counters below; the worker calls
  // it after each pair.
  void PublishMemory() {
    scratch_bytes = reader.scratch_bytes() + augmenter.scratch_bytes();
    read_buffer_bytes = reader.read_buffer_bytes();
    peak_scratch_bytes = reader.peak_scratch_bytes() + augmenter.scratch_bytes();
    peak_read_buffer_bytes = reader.peak_read_buffer_bytes();
  }

  PairReader reader;
  SampleAugmenter augmenter;
  // For stats(), which may run while the worker loads: the buffers
  // themselves are the worker's alone.
  std::atomic<size_t> scratch_bytes{0};
  std::atomic<size_t> read_buffer_bytes{0};
  std::atomic<size_t> peak_scratch_bytes{0};
  std::atomic<size_t> peak_read_buffer_bytes{0};
};

}  // namespace

class LoaderRuntime {
 public:
  LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options);
  ~LoaderRuntime() { Close(); }

  void StartEpoch(int64_t epoch, int64_t first_batch);
  // The buffer of the next batch, nothing at the end; throws FileError,
  // PoolExhausted and, past `timeout`, NextTimeout.
  std::optional<int> NextBuffer(std::optional<std::chrono::milliseconds> timeout);
  void Close();
  LoaderStats Stats() const;

  const std::shared_ptr<BatchBuffers>& buffers() const { return buffers_; }
  const Dataset& dataset() const { return dataset_; }
  const MemoryPlan& plan() const { return plan_; }
  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  int64_t samples_per_epoch() const { return samples_per_epoch_; }

 private:
  Status LoadSample(const SampleTask& task, int worker);
  // Reads, decodes and augments pair `id` into the task's slot.
  Status LoadPair(uint32_t id, uint64_t params_key, const SampleTask& task, Worker& worker);
  // The next pair a slot tries: its planned pair, then replacements.
  uint32_t DrawPair(const SampleTask& task, int draw) const;
  void Publish(FilledBatch filled);
  // Remembers pair `id` as bad and lists its file once.
  void RecordBadPair(uint32_t id, const Error& error);
  // The error that stops a slot after `draws` draws, the last of pair `id`.
  Error GiveUpError(uint32_t id, int draws) const;
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
  std::atomic<int64_t> samples_skipped_{0};
  std::atomic<int64_t> samples_replaced_{0};
  std::atomic<int64_t> batches_delivered_{0};
  std::atomic<int64_t> input_bytes_{0};
  // Pairs that failed once, by id: a replacement draw skips them without
  // reading (they would fail the same way, so the stream does not change).
  std::unique_ptr<std::atomic<bool>[]> known_bad_;
  std::atomic<int64_t> known_bad_count_{0};
  std::atomic<int64_t> read_ns_{0}, image_decode_ns_{0}, mask_decode_ns_{0}, warp_ns_{0}, jitter_ns_{0},
      convert_ns_{0}, wait_ns_{0};
  mutable std::mutex skipped_mu_;
  std::vector<Error> skipped_files_;               // guarded by skipped_mu_
  std::set<std::string> skipped_paths_;            // guarded by skipped_mu_
  std::unordered_map<uint32_t, Error> bad_pairs_;  // guarded by skipped_mu_
  std::vector<Error> unpaired_files_;

  // Last: destroyed (stopped) before everything it uses.
  std::unique_ptr<BatchGraph> graph_;
};

LoaderRuntime::LoaderRuntime(const DatasetSpec& spec, const LoaderOptions& options)
    : options_(options), threads_(ResolveThreads(options.threads)), arena_(threads_) {
  ValidateLoaderOptions(options_);
  dataset_ = ListDataset(spec);
  if (dataset_.pairs.empty()) throw ConfigError(NoPairsMessage(spec, dataset_));
  unpaired_files_ = dataset_.problems;
  if (options_.on_bad_file == OnBadFile::kFail) {
    std::vector<Error> missing;
    for (const Error& problem : dataset_.problems) {
      if (problem.kind == ErrorKind::kMissingMask) missing.push_back(problem);
    }
    if (!missing.empty()) throw UnpairedImagesError(missing);
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
  if (batches_per_epoch_ == 0) {
    const size_t shard_samples = (plan_spec_.sample_ids.size() + plan_spec_.world_size - 1) / plan_spec_.world_size;
    throw ConfigError("drop_last leaves no batch: an epoch of this shard has " + std::to_string(shard_samples) +
                      " samples, fewer than batch_size " + std::to_string(options_.batch_size));
  }
  known_bad_ = std::make_unique<std::atomic<bool>[]>(dataset_.pairs.size());

  // The plan is for the dataset's typical photo; pairs up to the budget it
  // gives are decoded, larger ones are too_large.
  int source_width = options_.augment.output_width;
  int source_height = options_.augment.output_height;
  if (auto source = PlanSourceFromHeaders(dataset_.pairs, options_.decode); source.ok()) {
    source_width = source.value().width;
    source_height = source.value().height;
  }
  LoaderOptions resolved = options_;
  resolved.threads = threads_;
  plan_ = PlanMemory(resolved, source_width, source_height);
  AddListingToPlan(dataset_, &plan_);
  CheckPlanFitsMachine(plan_);

  // OpenCV's parallel loops run in their own arena and would escape ours.
  cv::setNumThreads(1);

  buffers_ = std::make_shared<BatchBuffers>(options_.prefetch_batches, options_.batch_size, options_.output,
                                            options_.augment.output_width, options_.augment.output_height,
                                            options_.pinned);
  workers_.reserve(threads_);
  for (int i = 0; i < threads_; ++i) {
    workers_.push_back(std::make_unique<Worker>(options_));
    workers_.back()->reader.Reserve(source_width, source_height, options_.augment.output_width,
                                    options_.augment.output_height,
                                    static_cast<int64_t>(plan_.decode_budget_bytes_per_thread));
    workers_.back()->PublishMemory();
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

uint32_t LoaderRuntime::DrawPair(const SampleTask& task, int draw) const {
  if (draw == 0) return epoch_plan_.order[task.position];
  const CounterRng replacements(options_.seed ^ kReplacementSalt, static_cast<uint64_t>(epoch_),
                                static_cast<uint64_t>(task.position));
  return plan_spec_.sample_ids[replacements.At(draw) % plan_spec_.sample_ids.size()];
}

// The pairs a slot tries are a fixed sequence (its planned pair, then
// replacements drawn by seed, epoch and position), and whether a pair is
// good depends on its files only, so the first good pair in the sequence,
// and with it the stream, is the same whatever the thread timing.
Status LoaderRuntime::LoadSample(const SampleTask& task, int worker_index) {
  Worker& worker = *workers_[worker_index];
  for (int draw = 0;; ++draw) {
    const uint32_t id = DrawPair(task, draw);
    if (known_bad_[id].load()) {
      // Read once is enough: a bad file (a huge progressive JPEG that takes
      // seconds to refuse, say) costs nothing in later draws and epochs.
      if (draw == 0) ++samples_skipped_;
    } else {
      // A replacement gets parameters of its own, not a copy of those its
      // pair has elsewhere in the epoch.
      const uint64_t params_key = draw == 0 ? id : id | (static_cast<uint64_t>(draw) << 32);
      Status status = LoadPair(id, params_key, task, worker);
      worker.PublishMemory();
      if (status.ok()) {
        ++(draw == 0 ? samples_loaded_ : samples_replaced_);
        return {};
      }
      if (options_.on_bad_file == OnBadFile::kFail) return status;
      if (draw == 0) ++samples_skipped_;
      RecordBadPair(id, status.error());
    }
    if (known_bad_count_.load() == static_cast<int64_t>(dataset_.pairs.size()) || draw + 1 == kMaxDrawsPerSlot) {
      return GiveUpError(id, draw + 1);
    }
  }
}

Status LoaderRuntime::LoadPair(uint32_t id, uint64_t params_key, const SampleTask& task, Worker& worker) {
  const int out_w = options_.augment.output_width;
  const int out_h = options_.augment.output_height;
  Status status = worker.reader.Read(dataset_.pairs[id], out_w, out_h);
  const PairReader::Timings& read = worker.reader.last_timings();
  read_ns_ += read.read_ns;
  image_decode_ns_ += read.image_decode_ns;
  mask_decode_ns_ += read.mask_decode_ns;
  input_bytes_ += static_cast<int64_t>(worker.reader.last_bytes_read());
  if (!status.ok()) return status;

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
  BatchMeta& meta = buffers_->meta[task.buffer];
  meta.sample_ids[task.slot] = id;
  meta.params[task.slot] = params;
  return {};
}

void LoaderRuntime::RecordBadPair(uint32_t id, const Error& error) {
  std::lock_guard lock(skipped_mu_);
  bad_pairs_.emplace(id, error);
  if (skipped_paths_.insert(error.path).second) skipped_files_.push_back(error);
  // Last: a slot that sees the flag finds the error above.
  if (!known_bad_[id].exchange(true)) ++known_bad_count_;
}

Error LoaderRuntime::GiveUpError(uint32_t id, int draws) const {
  Error error;
  {
    std::lock_guard lock(skipped_mu_);
    error = bad_pairs_.at(id);
  }
  error.detail += "; stopping: " + std::to_string(draws) + " draws found no good pair to fill a batch slot, and " +
                  std::to_string(known_bad_count_.load()) + " of " + std::to_string(dataset_.pairs.size()) +
                  " pairs are bad so far: run `segfeed check` on the dataset";
  return error;
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

std::optional<int> LoaderRuntime::NextBuffer(std::optional<std::chrono::milliseconds> timeout) {
  if (closed_) return std::nullopt;
  if (!epoch_started_) throw std::logic_error("Loader::Next() before StartEpoch()");
  if (next_batch_ >= epoch_plan_.batch_count) return std::nullopt;
  const StageClock::time_point start = StageClock::now();
  const int buffer_count = buffers_->pool.buffer_count();
  ReadyQueue::Popped popped =
      ready_.Pop(timeout ? ReadyQueue::Wait::kUntilDeadline : ReadyQueue::Wait::kForever,
                 timeout ? start + *timeout : start,
                 [&] { return buffers_->outstanding_leases.load() >= buffer_count; });
  wait_ns_ += NanosSince(start);
  if (popped.blocked) {
    throw PoolExhausted("Loader::Next(): the consumer holds all " + std::to_string(buffer_count) +
                        " pool buffers (" + std::to_string(buffers_->outstanding_leases.load()) +
                        " leases alive, prefetch_batches = " + std::to_string(options_.prefetch_batches) +
                        "), so no batch can be loaded; release a lease before calling Next() again "
                        "(`batch = loader.Next()` keeps the old one alive during the call), or raise "
                        "prefetch_batches");
  }
  if (popped.timed_out) {
    throw NextTimeout("Loader::Next(): batch " + std::to_string(next_batch_) + " of epoch " +
                      std::to_string(epoch_) + " was not ready within " + std::to_string(timeout->count()) +
                      " ms; call Next() again to keep waiting");
  }
  std::optional<FilledBatch>& filled = popped.batch;
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
  stats.outstanding_leases = buffers_->outstanding_leases.load();
  for (const auto& worker : workers_) {
    stats.scratch_bytes += worker->scratch_bytes.load();
    stats.read_buffer_bytes += worker->read_buffer_bytes.load();
    stats.peak_scratch_bytes += worker->peak_scratch_bytes.load();
    stats.peak_read_buffer_bytes += worker->peak_read_buffer_bytes.load();
  }
  stats.threads = threads_;
  stats.max_in_flight = std::max(max_in_flight_, graph_ ? graph_->max_in_flight() : 0);
  stats.in_flight_bound = options_.prefetch_batches * options_.batch_size;
  stats.samples_loaded = samples_loaded_.load();
  stats.samples_skipped = samples_skipped_.load();
  stats.samples_replaced = samples_replaced_.load();
  stats.batches_delivered = batches_delivered_.load();
  stats.input_bytes = input_bytes_.load();
  {
    std::lock_guard lock(skipped_mu_);
    stats.skipped_files = skipped_files_;
  }
  stats.unpaired_files = unpaired_files_;
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
  std::optional<int> buffer = runtime_->NextBuffer(std::nullopt);
  if (!buffer) return std::nullopt;
  return Lease(runtime_->buffers(), *buffer);
}

std::optional<Lease> Loader::Next(std::chrono::milliseconds timeout) {
  std::optional<int> buffer = runtime_->NextBuffer(timeout);
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
