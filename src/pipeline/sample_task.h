#pragma once

#include <cstdint>

namespace segfeed::pipeline {

// One sample to load: where it sits in the epoch and where its bytes go.
struct SampleTask {
  int64_t batch = 0;     // batch index within the epoch
  int slot = 0;          // slot within the batch
  int buffer = 0;        // pool buffer that holds the batch
  int64_t position = 0;  // batch * batch_size + slot: index into the epoch order
};

}  // namespace segfeed::pipeline
