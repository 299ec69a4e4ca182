#include <sys/resource.h>
#include <unistd.h>

#include <oneapi/tbb/info.h>

#include <string>

#include "augment/sample_augmenter.h"
#include "decode/jpeg_decoder.h"
#include "decode/pair_decoder.h"
#include "memory/batch_buffers.h"
#include "memory/cgroup_limit.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"
#include "source/shards_source.h"

namespace segfeed {
namespace {

// a x b, or ConfigError naming `what` when the product does not fit in
// 64 bits: no plan is that large, and a wrapped one would look small.
size_t Times(size_t a, size_t b, const char* what) {
  size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw ConfigError(
        "the size of " + std::string(what) +
        " does not fit in 64 bits: the configuration asks for more memory than exists");
  }
  return product;
}

size_t Plus(size_t a, size_t b, const char* what) {
  size_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw ConfigError(
        "the size of " + std::string(what) +
        " does not fit in 64 bits: the configuration asks for more memory than exists");
  }
  return sum;
}

std::string MiBText(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

MemoryPlan PlanMemory(const LoaderOptions& options, int source_width, int source_height,
                      const SourceFormats& formats) {
  ValidateLoaderOptions(options);
  if (source_width < 1 || source_height < 1) {
    throw ConfigError("source size must be at least 1x1 (got " + std::to_string(source_width) +
                      "x" + std::to_string(source_height) + ")");
  }
  const int64_t source_pixels = int64_t{source_width} * source_height;
  if (source_pixels > options.decode.max_pixels) {
    throw ConfigError(
        "source size " + std::to_string(source_width) + "x" + std::to_string(source_height) +
        " = " + std::to_string(source_pixels) +
        " pixels is more than max_pixels = " + std::to_string(options.decode.max_pixels));
  }
  const size_t output_width = static_cast<size_t>(options.augment.output_width);
  const size_t output_height = static_cast<size_t>(options.augment.output_height);
  const size_t batch = static_cast<size_t>(options.batch_size);
  MemoryPlan plan;
  const size_t out_pixels = Times(output_width, output_height, "the output size");
  plan.image_bytes_per_sample =
      Times(Times(out_pixels, 3, "an image"), ElementBytes(options.output.image_dtype), "an image");
  plan.mask_bytes_per_sample = Times(out_pixels, ElementBytes(options.output.mask_dtype), "a mask");
  Times(batch, plan.image_bytes_per_sample, "a batch");  // MaskOffset() multiplies them
  plan.batch_bytes =
      Plus(memory::BatchBuffers::MaskOffset(options.batch_size, plan.image_bytes_per_sample),
           Times(batch, plan.mask_bytes_per_sample, "a batch"), "a batch");
  plan.pool_buffers = options.prefetch_batches;
  plan.pool_bytes = Times(plan.batch_bytes, static_cast<size_t>(plan.pool_buffers), "the pool");

  plan.threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  const size_t threads = static_cast<size_t>(plan.threads);
  const decode::JpegDecoder decoder(options.decode);
  // The finest scale a sample of these options can ask for: a zoomed-in
  // window decodes finer than the output size alone would need.
  const auto [target_width, target_height] =
      FinestDecodeTarget(options.augment, source_width, source_height);
  const decode::DctScale scale =
      formats.png_images
          ? decode::DctScale{}
          : decoder.ChooseScale(source_width, source_height, target_width, target_height);
  const size_t decode_bytes =
      decode::PairDecoder::PlannedScratchBytes(scale, source_width, source_height, formats);
  plan.scratch_bytes_per_thread =
      decode_bytes + augment::SampleAugmenter::PlannedScratchBytes(
                         options.augment, scale.Apply(source_width), scale.Apply(source_height),
                         options.decode.decode_colour);
  plan.scratch_bytes = Times(plan.scratch_bytes_per_thread, threads, "the scratch");
  plan.decode_budget_bytes_per_thread = decode::PairDecoder::DecodeBudgetBytes(
      scale, source_width, source_height, formats, options.decode.scratch_headroom);
  plan.scratch_ceiling_bytes = Times(
      Plus(plan.decode_budget_bytes_per_thread,
           augment::SampleAugmenter::MaxScratchBytes(options.augment, options.decode.decode_colour),
           "the scratch"),
      threads, "the scratch");
  plan.read_buffer_bytes =
      Times(Times(static_cast<size_t>(options.decode.max_file_bytes), 2, "the read buffers"),
            threads, "the read buffers");
  plan.in_flight_bound = int64_t{options.prefetch_batches} * options.batch_size;
  plan.gpu_batch_bytes =
      Times(batch, Plus(plan.image_bytes_per_sample, plan.mask_bytes_per_sample, "a batch"),
            "a GPU batch");
  plan.total_bytes = Plus(Plus(plan.pool_bytes, plan.scratch_ceiling_bytes, "the plan"),
                          plan.read_buffer_bytes, "the plan");
  return plan;
}

void AddListingToPlan(const Dataset& dataset, MemoryPlan* plan) {
  // Per pair the loader keeps its sample id (uint32), the epoch's order
  // (uint32) and the permutation it is made from while planning an epoch
  // (uint32), and one bad-pair flag.
  constexpr size_t kLoaderBytesPerPair = 3 * sizeof(uint32_t) + 1;
  size_t bytes = dataset.pairs.memory_bytes() + dataset.sample_count() * kLoaderBytesPerPair;
  // A shard dataset's catalog: a 40-byte record a sample and its front-coded keys.
  const source::ShardCatalog* shards =
      dataset.shard_source ? dataset.shard_source->shard_catalog() : nullptr;
  if (shards) bytes += shards->held_bytes();
  for (const Error& problem : dataset.problems) {
    bytes += sizeof(Error) + problem.path.capacity() + problem.detail.capacity();
  }
  for (const IgnoredFile& file : dataset.ignored) {
    bytes += sizeof(IgnoredFile) + file.path.native().capacity() + file.reason.capacity();
  }
  plan->listing_bytes = bytes;
  plan->total_bytes = Plus(plan->total_bytes, bytes, "the plan");
  if (dataset.shard_source) {
    plan->read_ahead_bytes = static_cast<size_t>(dataset.shard_source->read_ahead_bytes());
    plan->total_bytes = Plus(plan->total_bytes, plan->read_ahead_bytes, "the plan");
  }
}

void CheckPlanFitsMachine(const MemoryPlan& plan) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    const size_t physical = static_cast<size_t>(pages) * static_cast<size_t>(page_size);
    if (plan.total_bytes > physical) {
      throw ConfigError(
          "the memory plan needs " + std::to_string(plan.total_bytes) + " bytes (" +
          MiBText(plan.total_bytes) + "; pool " + std::to_string(plan.pool_bytes) +
          "), more than the " + std::to_string(physical) + " bytes (" + MiBText(physical) +
          ") of physical memory: lower batch_size, prefetch_batches, the output size or threads");
    }
  }
  // A container's limit is the ceiling the OOM killer enforces, lower than
  // the machine's memory: a plan above what it leaves would be killed
  // mid-epoch without a word, so it is refused here, before the pool.
  memory::CheckPlanFitsCgroup(plan, memory::ReadCgroupMemoryLimit());
  for (const auto& [resource, name] : {std::pair{RLIMIT_AS, "address-space limit (ulimit -v)"},
                                       std::pair{RLIMIT_DATA, "data-segment limit (ulimit -d)"}}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        plan.total_bytes > limit.rlim_cur) {
      throw ConfigError("the memory plan needs " + std::to_string(plan.total_bytes) + " bytes (" +
                        MiBText(plan.total_bytes) + "), more than the process's " + name + " of " +
                        std::to_string(limit.rlim_cur) + " bytes");
    }
  }
}

}  // namespace segfeed
