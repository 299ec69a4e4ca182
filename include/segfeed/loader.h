#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "segfeed/batch.h"
#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/export.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"

namespace segfeed {

namespace pipeline {
class LoaderRuntime;
}  // namespace pipeline

// Seconds spent per stage, summed over all decode threads (so with 4 threads
// they can add up to 4 s per second of wall time), plus the consumer's wait.
// Decoding is one stage per role and format a dataset can hold (photos are
// JPEG or PNG, masks GIF or PNG), each named decode_<role>_<format>: a
// member's time goes to the format its first bytes say it is, so a PNG
// label map is never timed as a GIF. A JPEG photo decoded in the sample's
// window only (ROI: rows below it not decoded, rows above it and columns
// beside it not converted) is timed apart from the whole photos.
struct StageSeconds {
  double read = 0;               // reading files into memory
  double decode_photo_jpeg = 0;  // JPEG photos, at their DCT scale, whole
  // JPEG photos decoded in the sample's window only, at their DCT scale.
  double decode_photo_jpeg_roi = 0;
  double decode_photo_png = 0;  // PNG photos, at full size
  double decode_mask_png = 0;   // PNG masks and label maps
  double decode_mask_gif = 0;   // GIF masks
  double warp = 0;              // the fused affine warp of image and mask
  // Colour jitter; with jitter on, the image's conversion into the batch
  // slot is fused into the jitter pass and counted here.
  double jitter = 0;
  // The rest of the conversion into the batch slot: the mask, and the image
  // when colour jitter is off.
  double convert = 0;
  double consumer_wait = 0;  // time next() blocked waiting for a batch
};

// The field list of StageSeconds: calls fn("name", value) once per field, in
// declaration order. The JSON reports, the Python dicts and the stubs all
// take their names from here, and `segfeed bench`'s table its labels
// (decode_photo_jpeg: "JPEG decode (photos)"), so a field is added in one
// place.
template <typename Fn>
void ForEachField(const StageSeconds& s, Fn&& fn) {
  fn("read", s.read);
  fn("decode_photo_jpeg", s.decode_photo_jpeg);
  fn("decode_photo_jpeg_roi", s.decode_photo_jpeg_roi);
  fn("decode_photo_png", s.decode_photo_png);
  fn("decode_mask_png", s.decode_mask_png);
  fn("decode_mask_gif", s.decode_mask_gif);
  fn("warp", s.warp);
  fn("jitter", s.jitter);
  fn("convert", s.convert);
  fn("consumer_wait", s.consumer_wait);
}

// A snapshot of what the loader did and holds. Counters cover the loader's
// whole life, all epochs.
struct LoaderStats {
  PoolKind pool_kind = PoolKind::kPageable;
  // Why the pool is not of the requested kind; empty when it is.
  std::string pool_fallback_reason;
  size_t pool_bytes = 0;
  int pool_buffers = 0;  // one allocation each
  // Leases the consumer holds right now (each holds one pool buffer).
  int outstanding_leases = 0;
  // Decode and augment scratch held by all threads right now (the plan's
  // scratch_bytes, after a pair larger than planned too: buffers shrink
  // back), and the most each thread held at once, summed over the threads:
  // never more than the plan's scratch_ceiling_bytes.
  size_t scratch_bytes = 0;
  size_t peak_scratch_bytes = 0;
  // File read buffers held by all threads right now, and the most each
  // thread held, summed: never more than the plan's read_buffer_bytes.
  size_t read_buffer_bytes = 0;
  size_t peak_read_buffer_bytes = 0;
  int threads = 0;
  // Most samples that were being loaded or waiting for their batch at once,
  // and the bound the design guarantees (prefetch_batches x batch_size, the
  // plan's MemoryPlan::in_flight_bound).
  int peak_in_flight = 0;
  int in_flight_bound = 0;
  // Samples of the epochs' plans: loaded are those whose own pair loaded,
  // skipped those whose pair was bad (OnBadFile::kSkip), and replaced the
  // samples loaded from another, good pair in their place, which keep
  // batches full. loaded + skipped samples were planned; loaded + replaced
  // were delivered. A bad pair met again while drawing a replacement is not
  // counted again.
  int64_t samples_loaded = 0;
  int64_t samples_skipped = 0;
  int64_t samples_replaced = 0;
  int64_t batches_delivered = 0;
  int64_t input_bytes = 0;  // bytes of image and mask files read
  // Shards in object storage: HTTP requests sent (retries included), the
  // retries among them, and connections opened (the rest were reused).
  // 0 for local datasets.
  int64_t remote_requests = 0;
  int64_t remote_retries = 0;
  int64_t remote_connections = 0;
  // The local cache of object storage (cache_dir), 0 without one: members
  // read from it (hits) and looked up in vain (misses, the damaged among
  // them in cache_corrupt, fetched again), entries evicted to keep within
  // cache_limit, the bytes its folder holds (every process's, as last
  // seen), and writes (a full disk) or lock operations that failed; the
  // bytes came from the store then.
  int64_t cache_hits = 0;
  int64_t cache_misses = 0;
  int64_t cache_corrupt = 0;
  int64_t cache_evictions = 0;
  int64_t cache_bytes_held = 0;
  int64_t cache_failures = 0;
  // Each file skipped under OnBadFile::kSkip, once, in the order met.
  std::vector<Error> skipped_files;
  // The listing's unpaired files: images without a mask (missing_mask, never
  // loaded) and masks without an image (orphan_mask), sorted by stem.
  std::vector<Error> unpaired_files;
  StageSeconds stage_seconds;
};

// The field list of LoaderStats, as ForEachField(StageSeconds) above. Values
// are numbers, text (pool_kind as PoolKindName's std::string_view), the
// nested StageSeconds (walk it with its own ForEachField) and
// std::vector<Error>.
template <typename Fn>
void ForEachField(const LoaderStats& s, Fn&& fn) {
  fn("pool_kind", PoolKindName(s.pool_kind));
  fn("pool_fallback_reason", s.pool_fallback_reason);
  fn("pool_bytes", s.pool_bytes);
  fn("pool_buffers", s.pool_buffers);
  fn("outstanding_leases", s.outstanding_leases);
  fn("scratch_bytes", s.scratch_bytes);
  fn("peak_scratch_bytes", s.peak_scratch_bytes);
  fn("read_buffer_bytes", s.read_buffer_bytes);
  fn("peak_read_buffer_bytes", s.peak_read_buffer_bytes);
  fn("threads", s.threads);
  fn("peak_in_flight", s.peak_in_flight);
  fn("in_flight_bound", s.in_flight_bound);
  fn("samples_loaded", s.samples_loaded);
  fn("samples_skipped", s.samples_skipped);
  fn("samples_replaced", s.samples_replaced);
  fn("batches_delivered", s.batches_delivered);
  fn("input_bytes", s.input_bytes);
  fn("remote_requests", s.remote_requests);
  fn("remote_retries", s.remote_retries);
  fn("remote_connections", s.remote_connections);
  fn("cache_hits", s.cache_hits);
  fn("cache_misses", s.cache_misses);
  fn("cache_corrupt", s.cache_corrupt);
  fn("cache_evictions", s.cache_evictions);
  fn("cache_bytes_held", s.cache_bytes_held);
  fn("cache_failures", s.cache_failures);
  fn("skipped_files", s.skipped_files);
  fn("unpaired_files", s.unpaired_files);
  fn("stage_seconds", s.stage_seconds);
}

// Where a loader's stream is: an epoch and the first batch of it not yet
// handed out, and where that epoch's sharding began.
struct LoaderPosition {
  int64_t epoch = 0;
  int64_t next_batch = 0;
  // Samples of the epoch (in its order) that ranks of another world size
  // consumed before a Restore() re-sharded the rest among this loader's
  // ranks; its batches are then those of the rest. 0 otherwise.
  int64_t shard_start = 0;
  bool operator==(const LoaderPosition&) const = default;
};

// What a checkpoint keeps of a loader (Loader::State()) to continue its
// stream in another process (Loader::Restore()): the position, and what the
// stream is made of, so that a resume that would not give the batches the
// interrupted run would have had is refused. Plain data; Serialize() and
// Parse() turn it into a few lines of text and back.
struct SEGFEED_EXPORT LoaderState {
  // The version this segfeed writes. It resumes version 2 too (the same
  // digests, without the global position: a version 2 state has shard_start
  // 0 and the global position its next_batch implies). Version 1 was the
  // Python state_dict() of earlier releases, with digests computed in Python.
  static constexpr int kVersion = 3;
  static constexpr int kOldestResumable = 2;

  int version = kVersion;
  int64_t epoch = 0;
  int64_t next_batch = 0;
  uint64_t seed = 0;
  // The shard, as the loader resolved it (from RANK and WORLD_SIZE with
  // shard_from_environment). A state resumes any rank: ranks checkpoint in
  // step (after the same number of batches each, as DDP trains), so every
  // rank's state holds the same global position.
  int rank = 0;
  int world_size = 1;
  // LoaderPosition::shard_start: where the sharding of the epoch began.
  int64_t shard_start = 0;
  // How many samples of the epoch all world_size ranks together consumed:
  // shard_start + next_batch x batch_size x world_size, at most the epoch's
  // samples. A loader of another world size resumes from here: it shards
  // the rest of the epoch among its own ranks, so that over the old ranks
  // and the new every sample of the epoch is delivered once (plus the
  // padding that makes the rest a multiple of the new world size).
  int64_t global_position = 0;
  // The pairs (ids into the listing) the loader had found bad, with the
  // kind of their error: a resumed loader does not read them either, so a
  // file that was bad for a while (a partial write, an I/O error) stays out
  // of the resumed stream as it stayed out of the interrupted one. Empty
  // unless OnBadFile::kSkip met a bad file.
  std::vector<std::pair<uint32_t, ErrorKind>> known_bad;
  // Loader::batches_per_epoch() of the loader that made the state; a resume
  // checks that it is what the options, the listing and world_size give.
  int64_t batches_per_epoch = 0;
  // The options that change the batches' bytes (OptionSpec::in_stream), name
  // and canonical text, as StreamOptionsText() lists them: what a refused
  // resume names as changed.
  std::vector<std::pair<std::string, std::string>> options;
  // StreamOptionsDigest() of the loader's options.
  std::string options_digest;
  // A digest of the listing: each pair's stem, file names and file sizes, in
  // order (16 hex digits). Another pair, name or size gives another digest.
  std::string listing_digest;

  // A few lines of text ("segfeed-loader-state 3", then one "key value" line
  // per field) that Parse() reads back into an equal state.
  std::string Serialize() const;
  // Reads Serialize()'s text. Throws ConfigError naming what is wrong: not a
  // loader state, another version, a missing, repeated, unknown or malformed
  // field, an integer outside its field's range (saying the range).
  static LoaderState Parse(std::string_view text);

  // One field's value as a reader of another form of the state found it
  // (Python's state_dict), for Read().
  struct FieldValue {
    enum class Type {
      kText,     // text without types: Parse()'s lines
      kInteger,  // an integer, `text` its decimal digits (any size)
      kString,   // a string, `text` itself
      kOther,    // anything else, `text` how that form shows it
    };
    std::string text;
    Type type = Type::kText;
  };
  // A state's fields by key ("version" included, known_bad as Serialize()
  // writes it, "3=corrupt_image,17=io_error"), and its stream options.
  struct Fields {
    std::map<std::string, FieldValue, std::less<>> values;
    std::vector<std::pair<std::string, std::string>> options;
    // Values the reader could not turn into text, by key, with why ("must
    // be a list of [pair id, error kind] (got 3)"): refused once the
    // version is known to be one this segfeed reads.
    std::map<std::string, std::string, std::less<>> unreadable;
  };
  // The one check of a state's fields, for Parse() and every other form:
  // each field present (or absent, known_bad) as its version has it, of its
  // type, within its range; rank below world_size; known_bad's pairs once
  // each. Throws ConfigError "<source>: <field> ..." naming the field and,
  // for an integer, its range.
  static LoaderState Read(const Fields& fields, std::string_view source);

  bool operator==(const LoaderState&) const = default;
};

// Streams augmented image/mask batches from a dataset, in a fixed pool of
// pinned buffers, reproducibly. See docs/design.md.
//
//   segfeed::Loader loader(segfeed::DatasetSpec::Carvana("data"), options);
//   for (int64_t epoch = 0; epoch < epochs; ++epoch) {
//     loader.StartEpoch(epoch);
//     while (std::optional<segfeed::Lease> batch = loader.Next()) {
//       train_step(batch->images(), batch->masks());
//     }  // ~Lease gives the buffer back
//   }
//
// Resuming from a checkpoint that stored loader.State().Serialize():
//
//   loader.Restore(segfeed::LoaderState::Parse(saved));
//   while (loader.position().epoch < epochs) {
//     loader.StartNextEpoch();  // the restored epoch, from its next batch
//     while (std::optional<segfeed::Lease> batch = loader.Next()) { ... }
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
class SEGFEED_EXPORT Loader {
 public:
  // Lists the dataset and allocates the pool. Throws ConfigError for invalid
  // options, a dataset without a complete pair, an epoch without a batch
  // (drop_last with fewer samples than batch_size) or an impossible pinned
  // mode, and FileError when a dataset folder cannot be listed or, with
  // OnBadFile::kFail, when images have no mask (naming the first few and
  // how many). Masks without an image never stop the loader; stats() lists
  // them.
  Loader(const DatasetSpec& dataset, const LoaderOptions& options);
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;
  // Stops loading and waits for the loader's threads (promptly, even mid-
  // epoch with every buffer full). Outstanding leases stay valid.
  ~Loader();

  // Starts (or restarts) streaming `epoch` from batch `first_batch`: the
  // batches are exactly batches first_batch, first_batch + 1, ... of the
  // uninterrupted epoch, so a trainer restored from a checkpoint continues
  // where it stopped. Abandons the rest of any previous epoch. Throws
  // ConfigError for a negative epoch or a first_batch outside
  // [0, batches_per_epoch()].
  void StartEpoch(int64_t epoch, int64_t first_batch = 0);
  // Starts the next epoch, as a Python `iter(loader)` does: the position a
  // Restore() since the last start set, or else the epoch after the last
  // one started (0 at first) from batch 0. Returns what it started.
  LoaderPosition StartNextEpoch();
  // Gives up the rest of the epoch being streamed: loading stops, Next()
  // returns nothing until an epoch starts, and position() moves on to the
  // next epoch. Nothing happens once the epoch was delivered to its end.
  void AbandonEpoch();
  // Stops the epoch being streamed where it is: loading stops, Next()
  // returns nothing until an epoch starts, and position() stays at the first
  // batch not handed out, where StartNextEpoch() continues it (as a restored
  // State() would). For a consumer stopped by an error rather than by choice
  // (a Python exception leaving the loop). Nothing happens once the epoch
  // was delivered to its end.
  void PauseEpoch();
  // Takes back, unused, the batch Next() handed out last: the consumer was
  // interrupted before it could take it (a signal that won the race with the
  // batch). position() points at that batch again and the next Next() hands
  // it out again, from the same buffer. Throws std::logic_error for any
  // other lease (which is then released as usual).
  void GiveBack(Lease lease);

  // The next batch of the epoch, in order; nothing at the end of the epoch.
  // Blocks while the batch is being loaded. With OnBadFile::kFail, throws
  // FileError for the first bad file met, after the batches before it were
  // delivered, and closes the loader. Throws PoolExhausted, without waiting,
  // when no batch is ready and the consumer holds every pool buffer (the
  // loader stays usable: release a lease and call again).
  std::optional<Lease> Next();
  // The same, waiting at most `timeout` for the batch: throws NextTimeout
  // when it is not ready by then, and the next call returns that same
  // batch. For a runtime that must stay responsive (a Python binding checks
  // for Ctrl-C between short waits).
  std::optional<Lease> Next(std::chrono::milliseconds timeout);

  // Stops loading; later Next() calls return nothing. Idempotent.
  void Close();

  // Where a resumed loader continues: within the epoch being streamed, the
  // first batch Next() has not handed out; once that epoch was delivered to
  // its end or abandoned, the next epoch at batch 0; after Restore(), the
  // restored position. {0, 0} before anything started. A batch that failed
  // (FileError) was not handed out.
  LoaderPosition position() const;
  // The state of the stream at position(), for a checkpoint. The first call
  // reads the size of every file of the listing (for the listing digest);
  // later calls reuse that.
  LoaderState State() const;
  // Continues from `state`: stops the epoch being streamed (its Next()
  // returns nothing), and the next StartNextEpoch() starts the state's epoch
  // from its next batch. A state of the same world size continues its epoch
  // byte for byte; one of another world size continues from its
  // global_position, the rest of the epoch re-sharded among this loader's
  // ranks (batches_in_epoch() then counts fewer batches). Throws
  // ConfigError, changing nothing, when the state is of another version,
  // was made with other stream options (naming them) or of another listing
  // (other files, names or sizes), when a field is outside its range (as
  // Read() checks them), or when the state contradicts itself, as only an
  // edit makes it: a seed or option lines other than its options_digest
  // stands for, a position outside this loader's epochs, a batches_per_epoch
  // other than its world_size gives, resumed on another world size a
  // global_position other than its next_batch gives (at the same world size
  // next_batch alone places it), known_bad pairs under OnBadFile::kFail
  // (which skips none). Resuming would not give the batches the
  // interrupted run would have had. Options that do not change the stream
  // (threads, prefetch_batches, pinned) may differ.
  void Restore(const LoaderState& state);

  // Batches and samples one epoch of this loader's subset and shard has.
  int64_t batches_per_epoch() const;
  // Batches of the epoch last started, from its batch 0: batches_per_epoch(),
  // or fewer for an epoch whose rest a Restore() re-sharded (begun at
  // another world size). batches_per_epoch() before the first start.
  int64_t batches_in_epoch() const;
  int64_t samples_per_epoch() const;
  // The samples that sample ids index (pairs, or a shard dataset's:
  // sample_count(), SampleKey(), SampleNames()), and the listing's problems.
  const Dataset& dataset() const;
  // The classes' names, class i at index i (options.decode.class_names: a
  // preset's own, or the user's class_names); empty when unnamed.
  const std::vector<std::string>& class_names() const;
  // The memory plan for the first pair's image size.
  const MemoryPlan& plan() const;
  LoaderStats stats() const;

 private:
  std::unique_ptr<pipeline::LoaderRuntime> runtime_;
};

}  // namespace segfeed
