#include <string>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed {
namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

}  // namespace

void ValidateLoaderOptions(const LoaderOptions& options) {
  Require(options.batch_size >= 1,
          "batch_size must be >= 1 (got " + std::to_string(options.batch_size) + ")");
  Require(options.prefetch_batches >= 1,
          "prefetch_batches must be >= 1 (got " + std::to_string(options.prefetch_batches) + ")");
  Require(options.threads >= 0 && options.threads <= 1024,
          "threads must be in [0, 1024], 0 meaning one per core (got " +
              std::to_string(options.threads) + ")");
  Require(options.validation_fraction >= 0.0 && options.validation_fraction <= 1.0,
          "validation_fraction must be in [0, 1] (got " +
              std::to_string(options.validation_fraction) + ")");
  Require(options.world_size >= 1,
          "world_size must be >= 1 (got " + std::to_string(options.world_size) + ")");
  Require(options.rank >= 0 && options.rank < options.world_size,
          "rank must be in [0, world_size) (got rank " + std::to_string(options.rank) +
              ", world_size " + std::to_string(options.world_size) + ")");
  ValidateAugmentOptions(options.augment);
  ValidateOutputOptions(options.output);
  ValidateDecodeOptions(options.decode);
}

}  // namespace segfeed
