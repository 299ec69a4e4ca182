#include "cli/model_memory.h"

namespace segfeed::cli {

std::string_view OptimizerName(Optimizer optimizer) {
  return optimizer == Optimizer::kSgd ? "sgd" : "adam";
}

ModelMemory EstimateModelMemory(int64_t parameters, Optimizer optimizer) {
  constexpr int64_t kFloat32Bytes = 4;
  ModelMemory memory;
  memory.parameters = parameters;
  memory.parameter_bytes = kFloat32Bytes * parameters;
  memory.gradient_bytes = kFloat32Bytes * parameters;
  // Momentum keeps one value per parameter; Adam keeps two moments.
  const int64_t state_values_per_parameter = optimizer == Optimizer::kSgd ? 1 : 2;
  memory.optimizer_state_bytes = kFloat32Bytes * state_values_per_parameter * parameters;
  memory.total_bytes =
      memory.parameter_bytes + memory.gradient_bytes + memory.optimizer_state_bytes;
  return memory;
}

}  // namespace segfeed::cli
