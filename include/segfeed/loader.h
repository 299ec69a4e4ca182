#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "segfeed/batch.h"
#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"

namespace segfeed {

namespace internal {
class LoaderRuntime;
}  // namespace internal

// Seconds spent per stage, summed over all decode threads (so with 4 threads
// they can add up to 4 s per second of wall time), plus the consumer's wait.
struct StageSeconds {
  double read = 0;          // reading files into memory
  double decode_image = 0;  // JPEG header and decoding at its DCT scale
  double decode_mask = 0;   // GIF decoding
  double warp = 0;          // the fused affine warp of image and mask
  // Colour jitter; with jitter on, the image's conversion into the batch
  // slot is fused into the jitter pass and counted here.
  double jitter = 0;
  // The rest of the conversion into the batch slot: the mask, and the image
  // when colour jitter is off.
  double convert = 0;
  double consumer_wait = 0;  // time next() blocked waiting for a batch
};

// A snapshot of what the loader did and holds. Counters cover the loader's
// whole life, all epochs.
struct LoaderStats {
  PoolKind pool_kind = PoolKind::kPageable;
  // Why the pool is not of the requested kind; empty when it is.
  std::string pool_fallback_reason;
  size_t pool_bytes = 0;
  int pool_buffers = 0;
  int pool_allocations = 0;  // separate allocations made by the pool
  // Decode and augment scratch held by all threads right now.
  size_t scratch_bytes = 0;
  // File read buffers held by all threads (as large as the largest file read).
  size_t read_buffer_bytes = 0;
  int threads = 0;
  // Most samples that were being loaded or waiting for their batch at once,
  // and the bound the design guarantees (prefetch_batches x batch_size).
  int max_in_flight = 0;
  int in_flight_bound = 0;
  int64_t samples_loaded = 0;
  int64_t batches_delivered = 0;
  int64_t input_bytes = 0;  // bytes of image and mask files read
  int64_t samples_skipped = 0;
  // Each file skipped under OnBadFile::kSkip, once, in the order met.
  std::vector<Error> skipped_files;
  StageSeconds stage_seconds;
};

// Streams augmented image/mask batches from a dataset, in a fixed pool of
// pinned buffers, reproducibly. See DESIGN.md.
//
//   segfeed::Loader loader(segfeed::DatasetSpec::Carvana("data"), options);
//   for (int64_t epoch = 0; epoch < epochs; ++epoch) {
//     loader.StartEpoch(epoch);
//     while (std::optional<segfeed::Lease> batch = loader.Next()) {
//       train_step(batch->images(), batch->masks());
//     }  // ~Lease gives the buffer back
//   }
//
// The same seed gives byte-identical batches whatever the thread count and
// prefetch depth. Memory: the pool (allocated once, here) plus per-thread
// scratch; nothing grows with the dataset.
//
// Threading: the loader runs its own oneTBB arena of `threads` workers.
// OpenCV is switched to one thread per call (cv::setNumThreads(1), process
// wide) because OpenCV's own parallel loops would otherwise escape that
// arena and oversubscribe the cores. Loader methods are called from one
// consumer thread; leases may be released on any thread.
class Loader {
 public:
  // Lists the dataset and allocates the pool. Throws ConfigError for invalid
  // options, an empty dataset or an impossible pinned mode, and FileError
  // when a dataset folder cannot be listed.
  Loader(const DatasetSpec& dataset, const LoaderOptions& options);
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;
  // Stops loading and waits for the loader's threads (promptly, even mid-
  // epoch with every buffer full). Outstanding leases stay valid.
  ~Loader();

  // Starts (or restarts) streaming `epoch` from batch `first_batch`: the
  // batches are exactly batches first_batch, first_batch + 1, ... of the
  // uninterrupted epoch, so a trainer restored from a checkpoint continues
  // where it stopped. Abandons the rest of any previous epoch.
  void StartEpoch(int64_t epoch, int64_t first_batch = 0);

  // The next batch of the epoch, in order; nothing at the end of the epoch.
  // Blocks while the batch is being loaded. With OnBadFile::kFail, throws
  // FileError for the first bad file met, after the batches before it were
  // delivered, and closes the loader.
  std::optional<Lease> Next();

  // Stops loading; later Next() calls return nothing. Idempotent.
  void Close();

  // Batches and samples one epoch of this loader's subset and shard has.
  int64_t batches_per_epoch() const;
  int64_t samples_per_epoch() const;
  // The pairs that sample ids index, and the listing's problems.
  const Dataset& dataset() const;
  // The memory plan for the first pair's image size.
  const MemoryPlan& plan() const;
  LoaderStats stats() const;

 private:
  std::unique_ptr<internal::LoaderRuntime> runtime_;
};

}  // namespace segfeed
