#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "memory/buffer_pool.h"
#include "segfeed/augment.h"
#include "segfeed/batch.h"

namespace segfeed::memory {

// What travels with a batch buffer besides its pixels. Written by the
// pipeline while it owns the buffer, read by the lease holder after: the
// owner of the buffer index owns its metadata too, so no lock is needed.
struct BatchMeta {
  int64_t epoch = 0;
  int64_t batch_index = 0;
  int size = 0;
  TensorView images;
  TensorView masks;
  std::vector<uint32_t> sample_ids;   // batch_size entries, allocated once
  std::vector<AugmentParams> params;  // batch_size entries, allocated once
};

// The pool plus the layout of a batch inside each buffer. Shared by the
// loader and its leases (shared_ptr), so a lease that outlives the loader
// still points at valid memory and can still give its buffer back.
struct BatchBuffers {
  BatchBuffers(int buffer_count, int batch_size, const OutputOptions& output, int width, int height,
               PinnedMode pinned);

  // Where sample `slot` of buffer `buffer` goes.
  std::byte* ImageSlot(int buffer, int slot) const;
  std::byte* MaskSlot(int buffer, int slot) const;

  int batch_size;
  Layout layout;
  size_t image_bytes_per_sample;
  size_t mask_bytes_per_sample;
  size_t mask_offset;  // start of the mask tensor in a buffer, page aligned
  size_t batch_bytes;  // mask_offset + masks
  BufferPool pool;
  std::vector<BatchMeta> meta;  // one per buffer
  // Leases alive now; each holds one of the pool's buffers.
  std::atomic<int> outstanding_leases{0};

  // The byte layout of one buffer for these options (also what the memory
  // plan reports).
  static size_t MaskOffset(int batch_size, size_t image_bytes_per_sample);
};

}  // namespace segfeed::memory
