#include "loader.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batch.h"
#include "exceptions.h"
#include "fields.h"
#include "forked_child.h"
#include "fs_text.h"
#include "gil.h"
#include "options.h"
#include "segfeed/option_table.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace segfeed::python {
namespace {

// How long next() waits for the C++ loader before checking for signals (and
// for close() from another thread). Ctrl-C is honoured within about this.
constexpr std::chrono::milliseconds kWaitSlice{50};

std::filesystem::path PathFromBytes(const nb::bytes& bytes) {
  return std::filesystem::path(std::string(bytes.c_str(), bytes.size()));
}

// The Python side of an epoch: iterates the epoch `token` started. When the
// last reference goes before the epoch ended (a `break`, a dropped
// generator), the epoch is abandoned: a checkpoint taken after that points
// where iter(loader) goes next, the following epoch.
struct EpochIterator {
  nb::object loader;  // the _core.Loader; null once moved from
  int64_t token = 0;
  int64_t epoch = 0;
  int64_t first_batch = 0;
  int64_t batches = 0;  // this iterator's total: batches_per_epoch - first_batch

  EpochIterator() = default;
  EpochIterator(EpochIterator&&) = default;
  EpochIterator& operator=(EpochIterator&&) = delete;
  EpochIterator(const EpochIterator&) = delete;
  ~EpochIterator() {
    if (!loader.is_valid()) return;
    try {
      nb::cast<CoreLoader&>(loader).Abandon(token);
    } catch (...) {
      // A signal while waiting for the lock, a forked child: nothing to undo.
    }
  }
};

}  // namespace

CoreLoader::CoreLoader(const DatasetSpec& spec, const LoaderOptions& options)
    : pid_(getpid()), options_(options) {
  NoteLoaderCreated();  // before the threads exist: a fork from now on needs it
  ReleasedGil nogil;
  loader_ = std::make_unique<Loader>(spec, options);
}

CoreLoader::~CoreLoader() {
  if (getpid() != pid_) {
    // A forked child: the loader's threads and locks are the parent's.
    static_cast<void>(loader_.release());
    return;
  }
  if (!loader_) return;
  // Destruction waits for the loader's threads; other Python threads may run
  // meanwhile, except while the interpreter shuts down.
  if (InterpreterFinalizing()) {
    loader_.reset();
    return;
  }
  ReleasedGil nogil;
  loader_.reset();
}

void CoreLoader::CheckProcess() const {
  const pid_t pid = getpid();
  if (pid == pid_) return;
  throw BindingError(
      "segfeed.Loader used in a forked child process (pid " + std::to_string(pid) +
      "; it was created in pid " + std::to_string(pid_) +
      "): its threads stayed in the parent. segfeed decodes on its own threads, so use it "
      "from the main process: torch.utils.data.DataLoader(..., num_workers=0), or create "
      "the Loader in the child");
}

std::unique_lock<std::recursive_timed_mutex> CoreLoader::Lock() {
  std::unique_lock lock(mu_, std::defer_lock);
  while (!lock.try_lock_for(kWaitSlice)) {
    HeldGil gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
  return lock;
}

nb::tuple CoreLoader::StartEpoch(std::optional<int64_t> epoch, std::optional<int64_t> first_batch) {
  CheckProcess();
  // Refused with the GIL held: a closed loader never lets a thread wait for
  // the GIL again (see ReleasedGil).
  if (closing_.load()) throw BindingError("the loader is closed");
  int64_t token = 0, start_epoch = 0, start_batch = 0;
  {
    ReleasedGil nogil;
    auto lock = Lock();
    if (closed_ || closing_.load()) {
      throw BindingError(closed_reason_.empty()
                             ? "the loader is closed"
                             : "the loader is closed: it stopped at " + closed_reason_);
    }
    if (epoch) {
      start_epoch = *epoch;
      start_batch = first_batch.value_or(0);
    } else if (resume_) {
      std::tie(start_epoch, start_batch) = *resume_;
    } else {
      start_epoch = next_epoch_;
    }
    loader_->StartEpoch(start_epoch, start_batch);  // ConfigError for a bad epoch or first_batch
    resume_.reset();
    epoch_ = start_epoch;
    next_batch_ = start_batch;
    epoch_active_ = true;
    next_epoch_ = start_epoch + 1;
    token = ++token_;
  }
  return nb::make_tuple(token, start_epoch, start_batch);
}

nb::object CoreLoader::Next(int64_t token) {
  CheckProcess();
  if (closing_.load()) return nb::none();  // with the GIL held, as above
  std::optional<Lease> lease;
  {
    ReleasedGil nogil;
    auto lock = Lock();
    if (token != token_) {
      throw BindingError(
          "this epoch iterator was superseded: a later epoch(), iter(loader) or "
          "load_state_dict() on the same loader abandoned its epoch");
    }
    bool ended = closed_ || !epoch_active_;
    while (!ended && !closing_.load()) {
      try {
        lease = loader_->Next(kWaitSlice);
        ended = !lease;
        break;
      } catch (const NextTimeout&) {
        // Not ready yet: the same batch comes on the next call.
      } catch (const FileError& e) {
        // The C++ loader closed itself; say why when asked to go on.
        closed_ = true;
        closed_reason_ = e.what();
        throw;
      }
      {
        HeldGil gil;
        if (PyErr_CheckSignals() != 0) throw nb::python_error();
      }
      // A signal handler may have closed the loader or started another epoch.
      if (token != token_) throw BindingError("this epoch iterator was superseded while it waited");
      ended = closed_;
    }
    if (lease) {
      next_batch_ = lease->batch_index() + 1;
    } else if (ended && !closed_ && !closing_.load()) {
      epoch_active_ = false;  // the epoch is complete
    }
  }
  if (!lease) return nb::none();
  return nb::cast(Batch(std::move(*lease)), nb::rv_policy::move);
}

void CoreLoader::Close() {
  if (getpid() != pid_) return;  // a child has nothing of the loader to close
  // Stops a next() waiting in another thread; a second close() returns at once.
  if (closing_.exchange(true)) return;
  ReleasedGil nogil;
  auto lock = Lock();
  if (!closed_) {
    loader_->Close();
    closed_ = true;
  }
}

nb::tuple CoreLoader::Position() {
  CheckProcess();
  int64_t epoch = 0, batch = 0;
  {
    ReleasedGil nogil;
    auto lock = Lock();
    if (resume_) {
      std::tie(epoch, batch) = *resume_;
    } else if (epoch_active_ && next_batch_ < loader_->batches_per_epoch()) {
      epoch = epoch_;
      batch = next_batch_;
    } else {
      epoch = next_epoch_;
    }
  }
  return nb::make_tuple(epoch, batch);
}

void CoreLoader::Abandon(int64_t token) {
  if (getpid() != pid_ || InterpreterFinalizing() || closing_.load()) return;
  ReleasedGil nogil;
  auto lock = Lock();
  if (token == token_) epoch_active_ = false;
}

void CoreLoader::SetResume(int64_t epoch, int64_t next_batch) {
  CheckProcess();
  ReleasedGil nogil;
  auto lock = Lock();
  if (epoch < 0) throw ConfigError("epoch must be >= 0 (got " + std::to_string(epoch) + ")");
  const int64_t batches = loader_->batches_per_epoch();
  if (next_batch < 0 || next_batch > batches) {
    throw ConfigError("next_batch must be in [0, " + std::to_string(batches) + "] (got " +
                      std::to_string(next_batch) + ")");
  }
  resume_ = {epoch, next_batch};
  epoch_active_ = false;
  ++token_;  // iterators of the abandoned epoch stop
}

int64_t CoreLoader::batches_per_epoch() {
  CheckProcess();
  return loader_->batches_per_epoch();  // fixed at construction
}

int64_t CoreLoader::samples_per_epoch() {
  CheckProcess();
  return loader_->samples_per_epoch();
}

bool CoreLoader::closed() {
  CheckProcess();
  if (closing_.load()) return true;
  ReleasedGil nogil;
  auto lock = Lock();
  return closed_;
}

nb::dict CoreLoader::Plan() {
  CheckProcess();
  return FieldsDict(loader_->plan());  // fixed at construction
}

nb::dict CoreLoader::Stats() {
  CheckProcess();
  LoaderStats s;
  {
    ReleasedGil nogil;
    auto lock = Lock();
    s = loader_->stats();
  }
  return FieldsDict(s);
}

nb::list CoreLoader::Pairs() {
  CheckProcess();
  nb::list out;
  for (const SamplePair& pair : loader_->dataset().pairs) {  // fixed at construction
    out.append(nb::make_tuple(FsText(pair.stem), FsText(pair.image_path.string()),
                              FsText(pair.mask_path.string())));
  }
  return out;
}

nb::dict CoreLoader::Options() const { return OptionsToDict(options_); }

std::string CoreLoader::StreamDigest() const { return StreamOptionsDigest(options_); }

nb::list CoreLoader::Problems() {
  CheckProcess();
  return ErrorList(loader_->dataset().problems);
}

void BindLoader(nb::module_& m) {
  nb::class_<CoreLoader>(m, "Loader", nb::is_weak_referenceable(),
                         "The C++ loader behind segfeed.Loader; use segfeed.Loader.")
      .def(
          "__init__",
          [](CoreLoader* self, const nb::bytes& image_dir, const nb::bytes& mask_dir,
             const std::string& mask_suffix, const nb::dict& options) {
            DatasetSpec spec;
            spec.image_dir = PathFromBytes(image_dir);
            spec.mask_dir = PathFromBytes(mask_dir);
            spec.mask_suffix = mask_suffix;
            const LoaderOptions loader_options = LoaderOptionsFromDict(options);
            new (self) CoreLoader(spec, loader_options);
          },
          "image_dir"_a, "mask_dir"_a, "mask_suffix"_a, "options"_a)
      .def(
          "start_epoch",
          [](nb::handle self, std::optional<int64_t> epoch, std::optional<int64_t> first_batch) {
            CoreLoader& loader = nb::cast<CoreLoader&>(self);
            nb::tuple started = loader.StartEpoch(epoch, first_batch);
            EpochIterator it;
            it.loader = nb::borrow(self);
            it.token = nb::cast<int64_t>(started[0]);
            it.epoch = nb::cast<int64_t>(started[1]);
            it.first_batch = nb::cast<int64_t>(started[2]);
            it.batches = loader.batches_per_epoch() - it.first_batch;
            return it;
          },
          "epoch"_a.none(), "first_batch"_a.none())
      .def("close", &CoreLoader::Close)
      .def("position", &CoreLoader::Position)
      .def("set_resume", &CoreLoader::SetResume, "epoch"_a, "next_batch"_a)
      .def_prop_ro("batches_per_epoch", &CoreLoader::batches_per_epoch)
      .def_prop_ro("samples_per_epoch", &CoreLoader::samples_per_epoch)
      .def_prop_ro("closed", &CoreLoader::closed)
      .def("plan", &CoreLoader::Plan)
      .def("stats", &CoreLoader::Stats)
      .def("pairs", &CoreLoader::Pairs)
      .def("problems", &CoreLoader::Problems)
      .def("options", &CoreLoader::Options)
      .def("stream_options_digest", &CoreLoader::StreamDigest);

  m.def(
      "_let_threads_leave",
      [](int timeout_ms) { LetThreadsLeave(std::chrono::milliseconds(timeout_ms)); },
      "timeout_ms"_a,
      "For the exit hook: waits until threads returning from segfeed calls hold the GIL again.");

  m.def(
      "carvana_folders",
      [](const nb::bytes& root) {
        const DatasetSpec spec = DatasetSpec::Carvana(PathFromBytes(root));
        const std::string images = spec.image_dir.string(), masks = spec.mask_dir.string();
        return nb::make_tuple(nb::bytes(images.data(), images.size()),
                              nb::bytes(masks.data(), masks.size()));
      },
      "root"_a, "The image and mask folders of a dataset root in Carvana's layout.");

  nb::class_<EpochIterator>(m, "EpochIterator",
                            "The batches of one epoch, in order: for batch in loader.epoch(e): ...")
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__",
           [](EpochIterator& it) {
             nb::object batch = nb::cast<CoreLoader&>(it.loader).Next(it.token);
             if (batch.is_none()) throw nb::stop_iteration();
             return batch;
           })
      .def(
          "__len__", [](const EpochIterator& it) { return it.batches; },
          "Batches this iterator yields: batches_per_epoch - first_batch.")
      .def_ro("epoch", &EpochIterator::epoch, "The epoch being streamed.")
      .def_ro("first_batch", &EpochIterator::first_batch, "The batch it started at.")
      .def("__repr__", [](const EpochIterator& it) {
        return "<segfeed epoch " + std::to_string(it.epoch) + ": " + std::to_string(it.batches) +
               " batches from batch " + std::to_string(it.first_batch) + ">";
      });
}

}  // namespace segfeed::python
