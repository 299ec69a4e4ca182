#include "cli/model_memory.h"

#include <gtest/gtest.h>

namespace segfeed::cli {
namespace {

TEST(ModelMemoryTest, AdamIsSixteenBytesPerParameter) {
  const ModelMemory memory = EstimateModelMemory(8'000'000, Optimizer::kAdam);
  EXPECT_EQ(memory.parameters, 8'000'000);
  EXPECT_EQ(memory.parameter_bytes, 32'000'000);
  EXPECT_EQ(memory.gradient_bytes, 32'000'000);
  EXPECT_EQ(memory.optimizer_state_bytes, 64'000'000);
  EXPECT_EQ(memory.total_bytes, 128'000'000);
}

TEST(ModelMemoryTest, SgdWithMomentumIsTwelveBytesPerParameter) {
  const ModelMemory memory = EstimateModelMemory(1'000, Optimizer::kSgd);
  EXPECT_EQ(memory.optimizer_state_bytes, 4'000);
  EXPECT_EQ(memory.total_bytes, 12'000);
}

TEST(ModelMemoryTest, LargeModelsDoNotOverflow) {
  const ModelMemory memory = EstimateModelMemory(int64_t{70'000'000'000}, Optimizer::kAdam);
  EXPECT_EQ(memory.total_bytes, int64_t{1'120'000'000'000});
}

TEST(ModelMemoryTest, OptimizerNames) {
  EXPECT_EQ(OptimizerName(Optimizer::kSgd), "sgd");
  EXPECT_EQ(OptimizerName(Optimizer::kAdam), "adam");
}

}  // namespace
}  // namespace segfeed::cli
