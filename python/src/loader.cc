#include "loader.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
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

// The DatasetSpec of segfeed.Loader's dataset keywords: `values` maps each
// keyword given to its text as bytes (paths as os.fsencode() makes them).
DatasetSpec DatasetSpecFromDict(const nb::bytes& data, const nb::dict& values) {
  std::vector<std::pair<std::string, std::string>> given;
  for (const auto& [key, value] : values) {
    const nb::bytes text = nb::cast<nb::bytes>(value);
    given.emplace_back(nb::cast<std::string>(key), std::string(text.c_str(), text.size()));
  }
  const std::filesystem::path path = PathFromBytes(data);
  // A shard dataset's spec reads its index, perhaps from object storage:
  // other Python threads (a server in the same process among them) run
  // meanwhile.
  ReleasedGil nogil;
  return DatasetFromValues(path, given);
}

// Python's bool or NumPy's (no subclass of it): a flag, not an integer,
// whatever __index__ says.
bool IsBool(nb::handle value) {
  const std::string_view type = Py_TYPE(value.ptr())->tp_name;
  return PyBool_Check(value.ptr()) || type == "numpy.bool_" || type == "numpy.bool";
}

// A state_dict value as LoaderState::Read() reads it: an int (or anything
// with __index__, a numpy integer) as its digits, a str as itself.
LoaderState::FieldValue FieldValueOf(nb::handle value) {
  using Type = LoaderState::FieldValue::Type;
  if (nb::isinstance<nb::str>(value)) return {nb::cast<std::string>(value), Type::kString};
  if (!IsBool(value) && PyIndex_Check(value.ptr())) {
    const nb::object integer = nb::steal(PyNumber_Index(value.ptr()));
    if (integer.is_valid()) return {nb::str(integer).c_str(), Type::kInteger};
    PyErr_Clear();  // an __index__ that refuses (numpy's bool): not an integer
  }
  return {nb::repr(value).c_str(), Type::kOther};
}

// state_dict()['known_bad'], [[pair id, error kind name], ...], as
// Serialize() writes it ("3=corrupt_image,17=io_error"), for Read() to
// check; nothing when it is not such a list.
std::optional<LoaderState::FieldValue> KnownBadText(nb::handle value) {
  using Type = LoaderState::FieldValue::Type;
  if (!nb::isinstance<nb::list>(value) && !nb::isinstance<nb::tuple>(value)) return std::nullopt;
  std::string text;
  for (nb::handle item : value) {
    if ((!nb::isinstance<nb::list>(item) && !nb::isinstance<nb::tuple>(item)) ||
        nb::len(item) != 2) {
      return std::nullopt;
    }
    const LoaderState::FieldValue id = FieldValueOf(item[0]);
    std::string kind;
    if (id.type != Type::kInteger || !nb::try_cast<std::string>(item[1], kind) ||
        !ErrorKindFromName(kind)) {
      return std::nullopt;
    }
    text += (text.empty() ? "" : ",") + id.text + "=" + kind;
  }
  return LoaderState::FieldValue{text, Type::kText};
}

// What segfeed.Loader.state_dict() returns: LoaderState's fields by name,
// the stream options as {name: canonical text}.
nb::dict StateDict(const LoaderState& state) {
  nb::dict d;
  d["version"] = state.version;
  d["seed"] = state.seed;
  d["epoch"] = state.epoch;
  d["next_batch"] = state.next_batch;
  d["rank"] = state.rank;
  d["world_size"] = state.world_size;
  d["shard_start"] = state.shard_start;
  d["global_position"] = state.global_position;
  nb::list known_bad;
  for (const auto& [id, kind] : state.known_bad) {
    nb::list item;  // lists, as JSON gives them back
    item.append(id);
    item.append(std::string(ErrorKindName(kind)));
    known_bad.append(item);
  }
  d["known_bad"] = known_bad;
  d["batches_per_epoch"] = state.batches_per_epoch;
  nb::dict options;
  for (const auto& [name, text] : state.options) options[name.c_str()] = text;
  d["options"] = options;
  d["options_digest"] = state.options_digest;
  d["listing_digest"] = state.listing_digest;
  return d;
}

// StateDict() read back, by the check LoaderState::Parse() uses too:
// ConfigError "state_dict: <key> ..." for a key missing, unknown, of another
// type or outside its range.
LoaderState StateFromDict(nb::handle object) {
  if (!nb::isinstance<nb::dict>(object)) {
    throw ConfigError(std::string("not a segfeed.Loader state_dict: a dict was expected (got ") +
                      nb::repr(object).c_str() + ")");
  }
  LoaderState::Fields fields;
  for (const auto& [key, value] : nb::borrow<nb::dict>(object)) {
    std::string name;
    if (!nb::try_cast<std::string>(key, name)) {
      throw ConfigError(std::string("state_dict: keys must be str (got ") + nb::repr(key).c_str() +
                        ")");
    }
    const std::string got = std::string(" (got ") + nb::repr(value).c_str() + ")";
    if (name == "options") {
      bool readable = nb::isinstance<nb::dict>(value);
      for (const auto& [option, text] : readable ? nb::borrow<nb::dict>(value) : nb::dict()) {
        std::string option_text, value_text;
        readable = readable && nb::try_cast<std::string>(option, option_text) &&
                   nb::try_cast<std::string>(text, value_text);
        fields.options.emplace_back(std::move(option_text), std::move(value_text));
      }
      if (!readable) fields.unreadable[name] = "must be a dict of option names to strings" + got;
    } else if (name == "known_bad") {
      // Serialize() leaves out an empty list; so does a version 2 state.
      std::optional<LoaderState::FieldValue> text = KnownBadText(value);
      if (!text) {
        fields.unreadable[name] = "must be a list of [pair id, error kind]" + got;
      } else if (!text->text.empty()) {
        fields.values[name] = std::move(*text);
      }
    } else {
      fields.values[name] = FieldValueOf(value);
    }
  }
  return LoaderState::Read(fields, "state_dict");
}

// The Python side of an epoch: iterates the epoch `token` started. When the
// last reference goes before the epoch ended (a `break`, a dropped
// generator), the epoch is abandoned: a checkpoint taken after that points
// where iter(loader) goes next, the following epoch. When an exception takes
// it away, the epoch pauses instead (see ~EpochIterator).
struct EpochIterator {
  nb::object loader;  // the _core.Loader; null once moved from
  int64_t token = 0;
  int64_t epoch = 0;
  int64_t first_batch = 0;
  // This iterator's total: the epoch's batches (batches_per_epoch, or fewer
  // for an epoch re-sharded by a resume on another world size) - first_batch.
  int64_t batches = 0;

  EpochIterator() = default;
  EpochIterator(EpochIterator&&) = default;
  EpochIterator& operator=(EpochIterator&&) = delete;
  EpochIterator(const EpochIterator&) = delete;
  ~EpochIterator() {
    if (!loader.is_valid()) return;
    // An exception that leaves the loop (its body raised, or next() did:
    // Ctrl-C, SIGTERM turned into sys.exit) drops the iterator while it
    // propagates: the epoch pauses where it is, so that a checkpoint written
    // in except: or finally: continues it. Without one (a break) the epoch
    // is abandoned and iter() goes on to the next.
    const bool by_exception = PyErr_Occurred() != nullptr;
    try {
      nb::cast<CoreLoader&>(loader).Leave(token, by_exception);
    } catch (...) {
      // A signal while waiting for the lock, a forked child: nothing to undo.
    }
  }
};

}  // namespace

CoreLoader::CoreLoader(const DatasetSpec& spec, const LoaderOptions& options)
    : pid_(getpid()), options_(options) {
  if (ForkedAfterLoaderThreads()) {
    throw BindingError(
        "segfeed.Loader made in a forked child (pid " + std::to_string(pid_) +
        ") of a process whose loaders had started their threads: oneTBB's worker threads "
        "stayed in the parent, and a loader here would wait for them forever. Make loaders in "
        "processes started with the spawn or forkserver method "
        "(multiprocessing.get_context('spawn'), DataLoader(..., multiprocessing_context='spawn')) "
        "or before the parent's first epoch; or use one loader in the main process: "
        "torch.utils.data.DataLoader(..., num_workers=0)");
  }
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
      "a Loader in a child started with the spawn method "
      "(DataLoader(..., multiprocessing_context='spawn'))");
}

nb::tuple CoreLoader::StartEpoch(std::optional<int64_t> epoch, std::optional<int64_t> first_batch) {
  CheckProcess();
  // Refused with the GIL held: a closed loader never lets a thread wait for
  // the GIL again (see ReleasedGil).
  if (closing_.load()) throw BindingError("the loader is closed");
  int64_t token = 0;
  int64_t batches = 0;
  LoaderPosition start;
  {
    ReleasedGil nogil;
    LoaderLock lock(&mu_, kWaitSlice);
    if (closed_ || closing_.load()) {
      throw BindingError(closed_reason_.empty()
                             ? "the loader is closed"
                             : "the loader is closed: it stopped at " + closed_reason_);
    }
    NoteLoaderThreadsStarted();
    if (epoch) {
      start = {*epoch, first_batch.value_or(0)};
      loader_->StartEpoch(start.epoch, start.next_batch);  // ConfigError for a bad epoch or batch
    } else {
      start = loader_->StartNextEpoch();
    }
    token = ++token_;
    batches = loader_->batches_in_epoch();
  }
  return nb::make_tuple(token, start.epoch, start.next_batch, batches);
}

nb::object CoreLoader::Next(int64_t token) {
  CheckProcess();
  if (closing_.load()) return nb::none();  // with the GIL held, as above
  std::optional<Lease> lease;
  {
    ReleasedGil nogil;
    LoaderLock lock(&mu_, kWaitSlice);
    if (token != token_) {
      throw BindingError(
          "this epoch iterator was superseded: a later epoch(), iter(loader) or "
          "load_state_dict() on the same loader abandoned its epoch");
    }
    bool ended = closed_;
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
      // A signal that came while this call took the batch would raise in
      // the caller as soon as the batch is returned, and the batch would be
      // lost with it: run the handler now, and give the batch back when it
      // raises (the next next() returns it).
      HeldGil gil;
      if (PyErr_CheckSignals() != 0) {
        if (token == token_ && !closed_ && !closing_.load()) loader_->GiveBack(std::move(*lease));
        throw nb::python_error();
      }
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
  LoaderLock lock(&mu_, kWaitSlice);
  if (!closed_) {
    loader_->Close();
    closed_ = true;
  }
}

nb::tuple CoreLoader::Position() {
  CheckProcess();
  LoaderPosition position;
  {
    ReleasedGil nogil;
    LoaderLock lock(&mu_, kWaitSlice);
    position = loader_->position();
  }
  return nb::make_tuple(position.epoch, position.next_batch, position.shard_start);
}

void CoreLoader::Leave(int64_t token, bool by_exception) {
  if (getpid() != pid_ || InterpreterFinalizing() || closing_.load()) return;
  ReleasedGil nogil;
  LoaderLock lock(&mu_, kWaitSlice);
  if (token != token_) return;
  if (by_exception) {
    loader_->PauseEpoch();
  } else {
    loader_->AbandonEpoch();
  }
}

nb::dict CoreLoader::State() {
  CheckProcess();
  LoaderState state;
  {
    ReleasedGil nogil;  // the first state reads the size of every file
    LoaderLock lock(&mu_, kWaitSlice);
    state = loader_->State();
  }
  return StateDict(state);
}

void CoreLoader::Restore(nb::handle state) {
  CheckProcess();
  const LoaderState restored = StateFromDict(state);
  ReleasedGil nogil;
  LoaderLock lock(&mu_, kWaitSlice);
  loader_->Restore(restored);  // ConfigError when it would not continue the stream
  ++token_;                    // iterators of the abandoned epoch stop
}

int64_t CoreLoader::batches_per_epoch() {
  CheckProcess();
  return fixed().batches_per_epoch();
}

int64_t CoreLoader::samples_per_epoch() {
  CheckProcess();
  return fixed().samples_per_epoch();
}

bool CoreLoader::closed() {
  CheckProcess();
  if (closing_.load()) return true;
  ReleasedGil nogil;
  LoaderLock lock(&mu_, kWaitSlice);
  return closed_;
}

nb::dict CoreLoader::Plan() {
  CheckProcess();
  return FieldsDict(fixed().plan());  // fixed at construction
}

nb::dict CoreLoader::Stats() {
  CheckProcess();
  LoaderStats s;
  {
    ReleasedGil nogil;
    LoaderLock lock(&mu_, kWaitSlice);
    s = loader_->stats();
  }
  return FieldsDict(s);
}

nb::list CoreLoader::Pairs() {
  CheckProcess();
  nb::list out;
  const Dataset& dataset = fixed().dataset();
  for (size_t id = 0; id < dataset.sample_count(); ++id) {
    const auto [photo, mask] = dataset.SampleNames(id);
    out.append(nb::make_tuple(FsText(dataset.SampleKey(id)), FsText(photo), FsText(mask)));
  }
  return out;
}

nb::dict CoreLoader::Options() const { return OptionsToDict(options_); }

std::string CoreLoader::StreamDigest() const { return StreamOptionsDigest(options_); }

nb::list CoreLoader::Problems() {
  CheckProcess();
  return ErrorList(fixed().dataset().problems);
}

void BindLoader(nb::module_& m) {
  nb::class_<CoreLoader>(m, "Loader", nb::is_weak_referenceable(),
                         "The C++ loader behind segfeed.Loader; use segfeed.Loader.")
      .def(
          "__init__",
          [](CoreLoader* self, const nb::bytes& data, const nb::dict& dataset,
             const nb::dict& options) {
            const DatasetSpec spec = DatasetSpecFromDict(data, dataset);
            const LoaderOptions loader_options = LoaderOptionsFromDict(options);
            new (self) CoreLoader(spec, loader_options);
          },
          "data"_a, "dataset"_a, "options"_a)
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
            it.batches = nb::cast<int64_t>(started[3]) - it.first_batch;
            return it;
          },
          "epoch"_a.none(), "first_batch"_a.none())
      .def("close", &CoreLoader::Close)
      .def("position", &CoreLoader::Position)
      .def("state", &CoreLoader::State)
      .def("restore", &CoreLoader::Restore, "state"_a)
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
      "dataset_spec",
      [](const nb::bytes& data, const nb::dict& values) {
        const DatasetSpec spec = DatasetSpecFromDict(data, values);
        // A shard dataset's options come from its index, which may be
        // fetched from object storage: other Python threads (a test's
        // server among them) run meanwhile.
        std::string rule;
        std::vector<std::pair<std::string, OptionValue>> implied;
        {
          ReleasedGil nogil;
          rule = DescribeDatasetRule(spec);
          implied = DatasetOptionValues(spec);
        }
        nb::dict out;
        out["name"] = spec.name;
        out["rule"] = FsText(rule);
        nb::dict options;
        for (const auto& [name, value] : implied)
          options[name.c_str()] = OptionValueToPython(value);
        out["options"] = options;
        return out;
      },
      "data"_a, "values"_a,
      "The rule the dataset keywords name (name, rule) and the options its layout implies.");

  m.def(
      "dataset_option_table",
      [] {
        nb::list out;
        for (const DatasetOption& entry : DatasetOptionTable()) {
          nb::dict item;
          item["name"] = nb::str(entry.name.data(), entry.name.size());
          item["flag"] = nb::str(entry.flag.data(), entry.flag.size());
          item["doc"] = nb::str(entry.doc.data(), entry.doc.size());
          item["switch"] = entry.value_name.empty();
          out.append(item);
        }
        return out;
      },
      "The dataset keywords of segfeed.Loader and flags of the CLI: name, flag, doc, switch.");

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
          "Batches this iterator yields: the epoch's batches - first_batch (the epoch's are "
          "batches_per_epoch, or fewer for an epoch re-sharded by a resume on another world size).")
      .def_ro("epoch", &EpochIterator::epoch, "The epoch being streamed.")
      .def_ro("first_batch", &EpochIterator::first_batch, "The batch it started at.")
      .def("__repr__", [](const EpochIterator& it) {
        return "<segfeed epoch " + std::to_string(it.epoch) + ": " + std::to_string(it.batches) +
               " batches from batch " + std::to_string(it.first_batch) + ">";
      });
}

}  // namespace segfeed::python
