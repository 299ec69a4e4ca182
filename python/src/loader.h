#pragma once

#include <nanobind/nanobind.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "loader_mutex.h"
#include "segfeed/loader.h"

namespace segfeed::python {

// segfeed._core.Loader, what the Python segfeed.Loader wraps: a
// segfeed::Loader made safe for Python.
//
// - The GIL is released while the loader is built, an epoch starts, next()
//   waits, a state is made and the loader closes.
// - next() waits in short slices (Loader::Next with a timeout) and checks
//   for signals between them, so Ctrl-C raises KeyboardInterrupt promptly.
// - Calls from several Python threads are serialized by `mu_`, which is only
//   ever waited for with the GIL released (and the GIL may be taken while
//   holding it, never the other way round).
// - A loader used in a forked child raises at once: its threads stayed in
//   the parent. A child never touches the C++ loader, not even to destroy it.
// - close() from another thread (or the interpreter's exit hook) stops a
//   next() that is waiting within one slice.
//
// The stream position and the checkpoint state are the C++ loader's
// (Loader::position(), State(), Restore()); this class adds only what
// Python's iterators need: a token per epoch iterator, so that an iterator
// of an abandoned epoch raises instead of streaming another epoch's batches.
class CoreLoader {
 public:
  CoreLoader(const DatasetSpec& spec, const LoaderOptions& options);
  ~CoreLoader();

  // Starts `epoch` at `first_batch`; with no epoch, Loader::StartNextEpoch():
  // the position a restore set, or else the epoch after the last one
  // started, at batch 0. Returns the epoch iterator's token, the epoch and
  // the first batch.
  nanobind::tuple StartEpoch(std::optional<int64_t> epoch, std::optional<int64_t> first_batch);
  // The next Batch of the epoch started with `token`, or None at its end
  // (and after close()). Raises segfeed.Error when a later start superseded
  // that epoch.
  nanobind::object Next(int64_t token);
  void Close();

  // Loader::position() as (epoch, next_batch, shard_start): where iter() goes next.
  nanobind::tuple Position();
  // The epoch iterator `token` is gone; if it is the current one, its epoch
  // is paused where it is (Loader::PauseEpoch) when an exception took the
  // iterator away, and else abandoned (Loader::AbandonEpoch): iter() and
  // Position() then move on to the next epoch unless it had ended.
  void Leave(int64_t token, bool by_exception);
  // Loader::State() as the dict segfeed.Loader.state_dict() returns.
  nanobind::dict State();
  // Loader::Restore() from such a dict (ConfigError naming a missing or
  // mistyped key). Epoch iterators started before stop working.
  void Restore(nanobind::handle state);

  // The options it was made with (OptionsToDict), and the digest of those
  // that change the stream's bytes (StreamOptionsDigest).
  nanobind::dict Options() const;
  std::string StreamDigest() const;

  int64_t batches_per_epoch();
  int64_t samples_per_epoch();
  nanobind::dict Plan();
  nanobind::dict Stats();
  nanobind::list Pairs();
  nanobind::list Problems();
  bool closed();

 private:
  void CheckProcess() const;
  // What the loader fixed at construction (the listing, the plan, the epoch
  // sizes): it never changes, so it is read without `mu_`, also while
  // another thread waits in next().
  const Loader& fixed() const NO_THREAD_SAFETY_ANALYSIS { return *loader_; }

  const pid_t pid_;
  const LoaderOptions options_;
  LoaderMutex mu_;  // see the class comment
  // Set in the constructor, reset in the destructor; every call that changes
  // or reads the stream holds mu_.
  std::unique_ptr<Loader> loader_ PT_GUARDED_BY(mu_);
  std::atomic<bool> closing_{false};

  bool closed_ GUARDED_BY(mu_) = false;
  // Why the loader closed itself (a bad file).
  std::string closed_reason_ GUARDED_BY(mu_);
  // The current epoch iterator's token.
  int64_t token_ GUARDED_BY(mu_) = 0;
};

// Registers _core.Loader and _core.EpochIterator on `module`.
void BindLoader(nanobind::module_& module);

}  // namespace segfeed::python
