#pragma once

#include <cstdint>
#include <string_view>

namespace segfeed::cli {

// The optimizer whose state `segfeed plan --optimizer` counts.
enum class Optimizer {
  kSgd,   // SGD with momentum: one float32 buffer per parameter
  kAdam,  // Adam/AdamW: two float32 buffers per parameter (first and second moments)
};

// "sgd", "adam".
std::string_view OptimizerName(Optimizer optimizer);

// The simple training-memory estimate training guides use, for float32
// training of a model with N parameters:
//   parameters 4N + gradients 4N + optimizer state (sgd with momentum 4N,
//   adam 8N) = 12N (sgd) or 16N (adam) bytes.
// Activations are not included: they depend on the architecture, the batch
// size and the input size, and usually dominate for segmentation networks.
struct ModelMemory {
  int64_t parameters = 0;
  int64_t parameter_bytes = 0;
  int64_t gradient_bytes = 0;
  int64_t optimizer_state_bytes = 0;
  int64_t total_bytes = 0;
};

// `parameters` must be >= 0.
ModelMemory EstimateModelMemory(int64_t parameters, Optimizer optimizer);

}  // namespace segfeed::cli
