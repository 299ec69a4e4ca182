#pragma once

#include <nanobind/nanobind.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "segfeed/loader.h"

namespace segfeed::python {

// segfeed._core.Loader, what the Python segfeed.Loader wraps: a
// segfeed::Loader made safe for Python.
//
// - The GIL is released while the loader is built, an epoch starts, next()
//   waits and the loader closes.
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
// It also keeps the stream position a checkpoint needs: the epoch and the
// first batch not yet handed out, and the epoch that iter() starts next.
class CoreLoader {
 public:
  CoreLoader(const DatasetSpec& spec, const LoaderOptions& options);
  ~CoreLoader();

  // Starts `epoch` at `first_batch`; with no epoch, the pending resume point
  // (set_resume) or else the epoch after the last one started, at batch 0.
  // Returns the epoch iterator's token, the epoch and the first batch.
  nanobind::tuple StartEpoch(std::optional<int64_t> epoch, std::optional<int64_t> first_batch);
  // The next Batch of the epoch started with `token`, or None at its end
  // (and after close()). Raises segfeed.Error when a later start superseded
  // that epoch.
  nanobind::object Next(int64_t token);
  void Close();

  // (epoch, next_batch): where a resumed loader continues, which is where
  // iter() goes next: within the epoch being iterated, or the next epoch
  // once that one ended or its iterator was dropped (Abandon).
  nanobind::tuple Position();
  // The epoch iterator `token` is gone; if its epoch is the current one and
  // unfinished, iter() and Position() move on to the next epoch.
  void Abandon(int64_t token);
  // Makes the next StartEpoch() without an epoch continue `epoch` at
  // `next_batch`. Epoch iterators started before stop working.
  void SetResume(int64_t epoch, int64_t next_batch);

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
  // Locks `mu_`; to be called with the GIL released. Raises the pending
  // Python exception (KeyboardInterrupt) if a signal handler raised one
  // while waiting.
  std::unique_lock<std::recursive_timed_mutex> Lock();

  const pid_t pid_;
  const LoaderOptions options_;
  std::unique_ptr<Loader> loader_;
  std::recursive_timed_mutex mu_;  // see the class comment
  std::atomic<bool> closing_{false};

  // Guarded by mu_.
  bool closed_ = false;
  std::string closed_reason_;  // why the loader closed itself (a bad file)
  int64_t token_ = 0;          // the current epoch iterator's
  bool epoch_active_ = false;  // an epoch started and not yet finished
  int64_t epoch_ = 0;
  int64_t next_batch_ = 0;
  int64_t next_epoch_ = 0;  // what iter() starts when nothing is pending
  std::optional<std::pair<int64_t, int64_t>> resume_;
};

// Registers _core.Loader and _core.EpochIterator on `module`.
void BindLoader(nanobind::module_& module);

}  // namespace segfeed::python
