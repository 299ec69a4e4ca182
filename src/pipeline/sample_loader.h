#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "augment/sample_augmenter.h"
#include "decode/mask_values.h"
#include "io/pair_reader.h"
#include "memory/batch_buffers.h"
#include "mutex.h"
#include "pipeline/sample_task.h"
#include "result.h"
#include "segfeed/dataset.h"
#include "segfeed/loader.h"
#include "segfeed/options.h"
#include "source/sample_source.h"
#include "thread_annotations.h"

namespace segfeed::pipeline {

// What the decode stage's mask values mean, for the augment stage.
inline augment::MaskEncoding MaskEncodingOf(const DecodeOptions& decode) {
  return augment::MaskEncoding{decode.mask_mode == MaskMode::kLabels, decode::kIgnoreLabel,
                               decode.ignore_index};
}

// What fills one batch slot: reads and decodes a pair, augments it straight
// into the slot, and under OnBadFile::kSkip picks the replacement for a bad
// pair. It knows nothing of the flow graph (BatchGraph calls Load() from its
// load_sample node), so it can be tested and timed on its own.
//
// Thread-safety: Load() runs concurrently for different slots, each call
// with a worker index no other running call has; StartEpoch() only while no
// Load() runs; AddStats() from any thread.
class SampleLoader {
 public:
  // `source` (where the pairs' bytes come from), `sample_ids` (the pairs an
  // epoch may draw replacements from) and `buffers` must outlive the
  // loader. Each of `workers` workers gets a
  // reader and an augmenter whose scratch is reserved for sources up to
  // source_width x source_height stored as `formats`, within
  // `decode_budget_bytes`.
  SampleLoader(const LoaderOptions& options, source::SampleSource* source,
               const std::vector<uint32_t>& sample_ids, memory::BatchBuffers* buffers, int workers,
               int source_width, int source_height, int64_t decode_budget_bytes,
               const SourceFormats& formats = {});

  // The epoch's number and order (position -> pair id); `order` must stay
  // valid until the next call. The order is announced to the source
  // (SampleSource::Prefetch()), which may start reading ahead.
  void StartEpoch(int64_t epoch, const std::vector<uint32_t>* order);

  // Fills the task's slot with its planned pair or, under kSkip, the first
  // good replacement. The pairs a slot tries are a fixed sequence (its
  // planned pair, then replacements drawn by seed, epoch and position), and
  // whether a pair is good depends on its files only, so the first good pair
  // in the sequence, and with it the stream, is the same whatever the thread
  // timing.
  Status Load(const SampleTask& task, int worker);

  // Adds the samples loaded, skipped and replaced, the bytes read, the
  // per-stage times, the workers' scratch and the skipped files.
  void AddStats(LoaderStats* stats) const EXCLUDES(skipped_mu_);

  // The pairs found bad so far, by id, with the kind of their error, in id
  // order: what a checkpoint keeps so that a resumed loader, too, never
  // reads them again (a file that was bad for a while stays out, as in the
  // long run).
  std::vector<std::pair<uint32_t, ErrorKind>> KnownBad() const EXCLUDES(skipped_mu_);
  // Takes pair `id` as bad, as if it had failed with `error`.
  void MarkKnownBad(uint32_t id, const Error& error) EXCLUDES(skipped_mu_);

 private:
  // One decode thread's tools and scratch; only the worker holding its
  // index touches it.
  struct Worker {
    explicit Worker(const LoaderOptions& options)
        : reader(options.decode),
          augmenter(options.augment, options.output, pipeline::MaskEncodingOf(options.decode),
                    options.decode.decode_colour) {}

    // Copies what the buffers hold into the counters below; the worker
    // calls it after each pair.
    void PublishMemory() {
      scratch_bytes = reader.scratch_bytes() + augmenter.scratch_bytes();
      read_buffer_bytes = reader.read_buffer_bytes();
      peak_scratch_bytes = reader.peak_scratch_bytes() + augmenter.scratch_bytes();
      peak_read_buffer_bytes = reader.peak_read_buffer_bytes();
    }

    io::PairReader reader;
    augment::SampleAugmenter augmenter;
    // For stats, which may be asked while the worker loads: the buffers
    // themselves are the worker's alone.
    std::atomic<size_t> scratch_bytes{0};
    std::atomic<size_t> read_buffer_bytes{0};
    std::atomic<size_t> peak_scratch_bytes{0};
    std::atomic<size_t> peak_read_buffer_bytes{0};
  };

  // The next pair a slot tries: its planned pair, then replacements.
  uint32_t DrawPair(const SampleTask& task, int draw) const;
  // Reads, decodes and augments pair `id` into the task's slot.
  Status LoadPair(uint32_t id, uint64_t params_key, const SampleTask& task, Worker& worker);
  // Adds one read's times to the read stage and to the decode stage of each
  // member's role and format.
  void AddReadTimings(const io::PairReader::Timings& read);
  // Remembers pair `id` as bad and lists its file once.
  void RecordBadPair(uint32_t id, const Error& error) EXCLUDES(skipped_mu_);
  // The error that stops a slot after `draws` draws, the last of pair `id`.
  Error GiveUpError(uint32_t id, int draws) const EXCLUDES(skipped_mu_);

  const LoaderOptions options_;
  source::SampleSource* source_;
  const std::vector<uint32_t>& sample_ids_;
  memory::BatchBuffers* buffers_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // Set by StartEpoch() while no Load() runs.
  int64_t epoch_ = 0;
  const std::vector<uint32_t>* order_ = nullptr;

  std::atomic<int64_t> samples_loaded_{0};
  std::atomic<int64_t> samples_skipped_{0};
  std::atomic<int64_t> samples_replaced_{0};
  std::atomic<int64_t> input_bytes_{0};
  std::atomic<int64_t> read_ns_{0}, photo_jpeg_decode_ns_{0}, photo_jpeg_window_decode_ns_{0},
      photo_png_decode_ns_{0}, mask_png_decode_ns_{0}, mask_gif_decode_ns_{0}, warp_ns_{0},
      jitter_ns_{0}, convert_ns_{0};
  // Pairs that failed once, by id: a replacement draw skips them without
  // reading (they would fail the same way, so the stream does not change).
  std::unique_ptr<std::atomic<bool>[]> known_bad_;
  std::atomic<int64_t> known_bad_count_{0};
  mutable Mutex skipped_mu_;
  std::vector<Error> skipped_files_ GUARDED_BY(skipped_mu_);
  std::set<std::string> skipped_paths_ GUARDED_BY(skipped_mu_);
  std::unordered_map<uint32_t, Error> bad_pairs_ GUARDED_BY(skipped_mu_);
};

}  // namespace segfeed::pipeline
