#pragma once

#include <cstddef>
#include <string_view>

#include "segfeed/export.h"

namespace segfeed {

// Where batch buffers may come from. Pinned (page-locked) host memory lets a
// GPU copy run asynchronously and at full bus speed.
enum class PinnedMode {
  kAuto,   // cudaHostAlloc if built with CUDA and a GPU is present, else mlock, else plain
  kCuda,   // cudaHostAlloc or fail at construction
  kMlock,  // page-aligned memory locked with mlock, or fail at construction
  kOff,    // plain page-aligned memory
};

// Where the batch buffers actually came from; always reported, never silent.
enum class PoolKind {
  kCudaHost,  // cudaHostAlloc: pinned and registered with the CUDA driver
  kMlocked,   // page-aligned and locked in RAM with mlock
  kPageable,  // page-aligned, may be swapped; GPU copies go through a staging buffer
};

// "auto", "cuda", "mlock", "off", and the inverse (ConfigError for another).
SEGFEED_EXPORT std::string_view PinnedModeName(PinnedMode mode);
SEGFEED_EXPORT PinnedMode ParsePinnedMode(std::string_view text);
// "cuda_host", "mlocked", "pageable".
SEGFEED_EXPORT std::string_view PoolKindName(PoolKind kind);

struct LoaderOptions;
struct Dataset;

// The memory the input stage will use, known before it runs (docs/design.md,
// "Memory model"). A Loader with the same options allocates exactly the
// pool and scratch bytes for sources of the planned size, and never holds
// more than total_bytes whatever the files: a pair that would need more is
// that pair's too_large error. All arithmetic is 64-bit; planning allocates
// nothing.
struct MemoryPlan {
  // One sample in the batch tensors.
  size_t image_bytes_per_sample = 0;
  size_t mask_bytes_per_sample = 0;
  // One pool buffer: the image tensor, then the mask tensor (page aligned).
  size_t batch_bytes = 0;
  int pool_buffers = 0;
  size_t pool_bytes = 0;  // pool_buffers x batch_bytes, pinned when possible
  // Per decode thread, allocated at construction: the decoded photo at its
  // DCT scale, the decoded mask at full size, a PNG's inflated rows when
  // photos or masks are PNG (a filter byte and a stored row each; the
  // PNG's compressed data is joined into the decoded output), and the
  // output-size rasters of the augment stage, for a source of the planned
  // size.
  int threads = 0;
  size_t scratch_bytes_per_thread = 0;
  size_t scratch_bytes = 0;  // threads x scratch_bytes_per_thread
  // Per decode thread, the most decoding one pair may hold:
  // DecodeOptions::scratch_headroom x (decoded photo + mask, + a PNG's
  // inflated rows, + libjpeg's coefficients when the planned photo is
  // progressive) of the planned
  // source, + 64 KiB for the decoders' fixed needs. A larger pair is
  // too_large; after one nearer the budget than the plan, buffers shrink
  // back.
  size_t decode_budget_bytes_per_thread = 0;
  // threads x (decode budget + the augment stage's largest scratch).
  size_t scratch_ceiling_bytes = 0;
  // threads x 2 (image and mask) x DecodeOptions::max_file_bytes.
  size_t read_buffer_bytes = 0;
  // The most samples between start of decoding and hand-off:
  // prefetch_batches x batch_size (LoaderStats::in_flight_bound).
  int64_t in_flight_bound = 0;
  // Bytes of one batch on the GPU after upload (images + masks).
  size_t gpu_batch_bytes = 0;
  // The dataset listing and the loader's per-pair state (sample ids, an
  // epoch's order and the permutation it is made from, bad-pair flags):
  // about 25 bytes per pair plus the stems' bytes. 0 when planned without
  // a dataset (AddListingToPlan adds it).
  size_t listing_bytes = 0;
  // Shards in object storage: the bytes read ahead of decoding at most
  // (ObjectStorageOptions::read_ahead_bytes, plus the gaps of coalesced
  // reads); 0 for local datasets or when planned without a dataset.
  size_t read_ahead_bytes = 0;
  // pool_bytes + scratch_ceiling_bytes + read_buffer_bytes + listing_bytes
  // + read_ahead_bytes: the most the input stage holds, the libraries' own
  // memory aside.
  size_t total_bytes = 0;
};

// The field list of MemoryPlan: calls fn("name", value) once per field, in
// declaration order (all of them numbers). The JSON reports, the Python
// dicts and the stubs all take their names from here.
template <typename Fn>
void ForEachField(const MemoryPlan& p, Fn&& fn) {
  fn("image_bytes_per_sample", p.image_bytes_per_sample);
  fn("mask_bytes_per_sample", p.mask_bytes_per_sample);
  fn("batch_bytes", p.batch_bytes);
  fn("pool_buffers", p.pool_buffers);
  fn("pool_bytes", p.pool_bytes);
  fn("threads", p.threads);
  fn("scratch_bytes_per_thread", p.scratch_bytes_per_thread);
  fn("scratch_bytes", p.scratch_bytes);
  fn("decode_budget_bytes_per_thread", p.decode_budget_bytes_per_thread);
  fn("scratch_ceiling_bytes", p.scratch_ceiling_bytes);
  fn("read_buffer_bytes", p.read_buffer_bytes);
  fn("in_flight_bound", p.in_flight_bound);
  fn("gpu_batch_bytes", p.gpu_batch_bytes);
  fn("listing_bytes", p.listing_bytes);
  fn("read_ahead_bytes", p.read_ahead_bytes);
  fn("total_bytes", p.total_bytes);
}

// How the photos and masks are stored, which changes what decoding holds:
// a PNG photo is decoded at full size (PNG has no DCT scaling), and a PNG
// mask passes through a buffer of its samples (1 byte per pixel for palette
// and grey up to 8 bits, 2 for 16-bit grey, 3 for RGB) before it becomes
// mask values.
struct SourceFormats {
  bool png_images = false;
  int png_mask_bytes_per_pixel = 0;  // 0: GIF masks
  // libjpeg's whole-image DCT coefficients for the planned photo when it
  // is a JPEG of several scans (progressive): about 3 bytes per pixel for
  // 4:2:0, 6 for 4:4:4, whatever the DCT scale. 0 for a baseline photo.
  int64_t jpeg_coefficient_bytes = 0;
};

// Plans for `options` (validated; throws ConfigError) and photos of
// source_width x source_height pixels (each at most max_pixels), stored as
// `formats` says. threads = 0 resolves to the cores.
SEGFEED_EXPORT MemoryPlan PlanMemory(const LoaderOptions& options, int source_width,
                                     int source_height, const SourceFormats& formats = {});

// Adds the memory of `dataset`'s listing and of the loader's per-pair
// state to `plan` (listing_bytes and total_bytes).
SEGFEED_EXPORT void AddListingToPlan(const Dataset& dataset, MemoryPlan* plan);

// Throws ConfigError, giving the bytes, when `plan` cannot fit this machine:
// more than its physical memory, than the room the container's memory
// limit (the cgroup's, v1 or v2) leaves beside what the container already
// holds, or than the process's address-space or data-segment limit.
SEGFEED_EXPORT void CheckPlanFitsMachine(const MemoryPlan& plan);

}  // namespace segfeed
