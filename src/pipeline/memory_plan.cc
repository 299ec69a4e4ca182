#include <oneapi/tbb/info.h>

#include "augment/sample_augmenter.h"
#include "io/jpeg_decoder.h"
#include "io/pair_reader.h"
#include "memory/batch_buffers.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"

namespace segfeed {

MemoryPlan PlanMemory(const LoaderOptions& options, int source_width, int source_height) {
  ValidateLoaderOptions(options);
  if (source_width < 1 || source_height < 1) {
    throw ConfigError("source size must be at least 1x1 (got " + std::to_string(source_width) + "x" +
                      std::to_string(source_height) + ")");
  }
  const int out_w = options.augment.output_width;
  const int out_h = options.augment.output_height;
  MemoryPlan plan;
  plan.image_bytes_per_sample =
      static_cast<size_t>(out_w) * out_h * 3 * ImageDtypeBytes(options.output.image_dtype);
  plan.mask_bytes_per_sample = static_cast<size_t>(out_w) * out_h * MaskDtypeBytes(options.output.mask_dtype);
  plan.batch_bytes = internal::BatchBuffers::MaskOffset(options.batch_size, plan.image_bytes_per_sample) +
                     static_cast<size_t>(options.batch_size) * plan.mask_bytes_per_sample;
  plan.pool_buffers = options.prefetch_batches;
  plan.pool_bytes = plan.batch_bytes * static_cast<size_t>(plan.pool_buffers);

  plan.threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  const internal::JpegDecoder decoder(options.decode);
  const internal::DctScale scale = decoder.ChooseScale(source_width, source_height, out_w, out_h);
  plan.scratch_bytes_per_thread =
      internal::PairReader::PlannedScratchBytes(options.decode, source_width, source_height, out_w, out_h) +
      internal::SampleAugmenter::PlannedScratchBytes(options.augment, scale.Apply(source_width),
                                                     scale.Apply(source_height));
  plan.scratch_bytes = plan.scratch_bytes_per_thread * static_cast<size_t>(plan.threads);
  plan.max_samples_in_flight = options.prefetch_batches * options.batch_size;
  plan.gpu_batch_bytes =
      static_cast<size_t>(options.batch_size) * (plan.image_bytes_per_sample + plan.mask_bytes_per_sample);
  plan.total_bytes = plan.pool_bytes + plan.scratch_bytes;
  return plan;
}

}  // namespace segfeed
