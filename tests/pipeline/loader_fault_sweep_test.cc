// The fault sweep of the reading stage: for a 20-pair epoch, every call of
// each kind the loader makes to the file system (open, fstat, read, close),
// and every growth of a decode buffer, is failed in turn, one per run, in
// each of the ways the file system can fail. Every run must end as the
// reliability promise says: signals and short reads change nothing; any
// other failure stops a kFail loader with a FileError naming the file and
// the reason, and costs a kSkip loader only that pair; no sample is ever
// corrupt, no descriptor or lease leaks, and the loader reads the next
// epoch as if nothing had happened.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "segfeed/loader.h"
#include "source/fault_injecting_file_system.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using testing::Fault;
using testing::FileCall;
using testing::TempDir;

constexpr int kPairs = 20;

// One sample as the trainer sees it.
struct Sample {
  uint32_t id = 0;
  std::string bytes;  // image then mask
  bool operator==(const Sample&) const = default;
};

// What one epoch delivered, and how it ended.
struct EpochRun {
  std::vector<Sample> samples;  // by position in the epoch
  std::optional<Error> error;   // the FileError that stopped it
  LoaderStats stats;
};

void Consume(Loader& loader, EpochRun* run) {
  loader.StartEpoch(0);
  try {
    while (auto lease = loader.Next()) {
      const size_t image_bytes = lease->images().bytes() / static_cast<size_t>(lease->size());
      const size_t mask_bytes = lease->masks().bytes() / static_cast<size_t>(lease->size());
      for (int k = 0; k < lease->size(); ++k) {
        Sample sample;
        sample.id = lease->sample_ids()[static_cast<size_t>(k)];
        sample.bytes.assign(static_cast<const char*>(lease->images().data) + k * image_bytes,
                            image_bytes);
        sample.bytes.append(static_cast<const char*>(lease->masks().data) + k * mask_bytes,
                            mask_bytes);
        run->samples.push_back(std::move(sample));
      }
    }
  } catch (const FileError& e) {
    run->error = e.error();
  }
  run->stats = loader.stats();
}

// One way to fail a call, and what it must do.
struct Sweep {
  Fault fault;
  bool transient;      // must change nothing
  std::string reason;  // what a reported failure says
};

// The failures every call that can fail with an errno is swept with.
std::vector<Sweep> ErrnoSweeps() {
  std::vector<Sweep> sweeps;
  for (int error : {EIO, ENOMEM, EACCES, ENOENT})
    sweeps.push_back({{Fault::Kind::kErrno, error}, false, std::strerror(error)});
  sweeps.push_back({{Fault::Kind::kErrno, EINTR}, true, ""});
  return sweeps;
}

class LoaderFaultSweepTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    demo::DemoOptions demo;
    demo.count = kPairs;
    demo.width = 64;
    demo.height = 48;
    demo.mask_rows = demo::DemoMaskRows::kMixed;
    segfeed::testing::WriteDemoPairs(dir_->path(), demo);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static LoaderOptions Options(OnBadFile on_bad_file) {
    LoaderOptions options;
    options.batch_size = 4;
    options.threads = 2;
    options.seed = 3;
    options.augment.output_width = 32;
    options.augment.output_height = 24;
    options.pinned = PinnedMode::kOff;
    options.on_bad_file = on_bad_file;
    return options;
  }

  // A loader's first epoch (`constructed` is called once the loader is
  // made), then `disarm`, then the same epoch again on the same loader
  // into `again`, unless a FileError closed the loader.
  static EpochRun Run(OnBadFile on_bad_file, const std::function<void()>& constructed,
                      const std::function<void()>& disarm, EpochRun* again) {
    EpochRun run;
    Loader loader(DatasetSpec::Carvana(dir_->path()), Options(on_bad_file));
    constructed();
    Consume(loader, &run);
    disarm();
    if (!run.error) Consume(loader, again);
    return run;
  }

  // Checks one faulted run against the reference; `transient` faults must
  // change nothing.
  void Expect(const EpochRun& run, const EpochRun& again, OnBadFile on_bad_file, bool transient,
              const std::string& faulted_path, const std::string& reason,
              ErrorKind kind = ErrorKind::kIoError) {
    EXPECT_EQ(run.stats.outstanding_leases, 0);
    EXPECT_EQ(again.stats.outstanding_leases, 0);
    // The pixel scratch is back to the plan whatever failed on the way: no
    // more than a whole clean epoch leaves. (The file buffers keep the
    // largest file each worker read, which depends on scheduling; ASan's
    // leak check covers what they allocate.)
    EXPECT_LE(run.stats.scratch_bytes, reference_.stats.scratch_bytes);
    if (transient) {
      EXPECT_FALSE(run.error) << run.error->Message();
      EXPECT_TRUE(run.samples == reference_.samples) << "the stream changed";
      EXPECT_EQ(run.stats.samples_skipped, 0);
      EXPECT_TRUE(again.samples == reference_.samples);
      return;
    }
    // The pair of the faulted file; empty for a growth fault, whose file
    // only the error tells.
    std::string path = faulted_path;
    if (path.empty()) {
      const std::optional<Error>& told =
          on_bad_file == OnBadFile::kFail
              ? run.error
              : (run.stats.skipped_files.empty() ? std::optional<Error>()
                                                 : run.stats.skipped_files.front());
      ASSERT_TRUE(told) << "the failure was not reported";
      path = told->path;
    }
    int64_t bad_id = -1;
    for (size_t i = 0; i < pairs_.size(); ++i) {
      if (pairs_[i].image_path.string() == path || pairs_[i].mask_path.string() == path)
        bad_id = static_cast<int64_t>(i);
    }
    ASSERT_GE(bad_id, 0) << "not a file of a pair: " << path;

    if (on_bad_file == OnBadFile::kFail) {
      ASSERT_TRUE(run.error) << "a failed " << path << " went unreported";
      EXPECT_EQ(run.error->kind, kind) << run.error->Message();
      EXPECT_EQ(run.error->path, path) << run.error->Message();
      EXPECT_NE(run.error->detail.find(reason), std::string::npos)
          << run.error->Message() << " does not say '" << reason << "'";
      // What was delivered before the stop is what the reference has there.
      ASSERT_LE(run.samples.size(), reference_.samples.size());
      for (size_t k = 0; k < run.samples.size(); ++k)
        EXPECT_TRUE(run.samples[k] == reference_.samples[k]) << "sample " << k << " corrupt";
      // A FileError closes the loader (its position stays at the failed
      // batch, for a resume): that the decoders stay usable after a failure
      // is checked under skip, where the same workers decode every later
      // pair, and the next epoch.
      return;
    }
    EXPECT_FALSE(run.error) << run.error->Message();
    ASSERT_EQ(run.samples.size(), reference_.samples.size());
    int replaced = 0;
    for (size_t k = 0; k < run.samples.size(); ++k) {
      if (reference_.samples[k].id == static_cast<uint32_t>(bad_id)) {
        EXPECT_NE(run.samples[k].id, static_cast<uint32_t>(bad_id));
        ++replaced;
      } else {
        EXPECT_TRUE(run.samples[k] == reference_.samples[k]) << "sample " << k << " changed";
      }
    }
    EXPECT_EQ(replaced, 1);
    EXPECT_EQ(run.stats.samples_skipped, 1);
    EXPECT_EQ(run.stats.samples_replaced, 1);
    ASSERT_EQ(run.stats.skipped_files.size(), 1u);
    EXPECT_EQ(run.stats.skipped_files[0].path, path);
    EXPECT_EQ(run.stats.skipped_files[0].kind, kind);
    EXPECT_NE(run.stats.skipped_files[0].detail.find(reason), std::string::npos)
        << run.stats.skipped_files[0].Message();
    // A pair that failed once stays skipped (sample_loader.h, known_bad_):
    // the next epoch repeats this one exactly.
    EXPECT_TRUE(again.samples == run.samples) << "the next epoch differs";
  }

  void SetUp() override {
    EpochRun again;
    reference_ = Run(
        OnBadFile::kFail, [] {}, [] {}, &again);
    ASSERT_FALSE(reference_.error) << reference_.error->Message();
    ASSERT_EQ(reference_.samples.size(), static_cast<size_t>(kPairs));
    ASSERT_TRUE(again.samples == reference_.samples);
    pairs_ = ListDataset(DatasetSpec::Carvana(dir_->path())).pairs;
  }

  // Fails each call of kind `call` of an epoch in turn, each of the ways
  // `sweeps` lists, under fail and under skip.
  void SweepCalls(FileCall call, const std::vector<Sweep>& sweeps);

  static TempDir* dir_;
  EpochRun reference_;
  PairList pairs_;
};
TempDir* LoaderFaultSweepTest::dir_ = nullptr;

void LoaderFaultSweepTest::SweepCalls(FileCall call, const std::vector<Sweep>& sweeps) {
  const auto start = std::chrono::steady_clock::now();
  testing::FaultInjectingFileSystem file_system;
  source::FileSystemOverrideForTesting use(&file_system);

  // The calls of one clean run, and how many of them constructing the
  // loader makes (it reads sampled headers for the memory plan).
  file_system.Disarm();
  int64_t construction = 0;
  int64_t count = 0;
  {
    EpochRun again;
    Run(
        OnBadFile::kFail, [&] { construction = file_system.calls(call); },
        [&] { count = file_system.calls(call); }, &again);
  }
  ASSERT_GT(count, 0) << FileCallName(call);

  for (const Sweep& sweep : sweeps) {
    for (OnBadFile mode : {OnBadFile::kFail, OnBadFile::kSkip}) {
      for (int64_t n = 1; n <= count; ++n) {
        SCOPED_TRACE(std::string(FileCallName(call)) + " #" + std::to_string(n) + " " +
                     FaultName(sweep.fault) +
                     (mode == OnBadFile::kFail ? " under fail" : " under skip"));
        const int fds = testing::CountOpenFileDescriptors();
        file_system.Arm(call, n, sweep.fault);
        EpochRun again;
        bool fired = false;
        std::string faulted_path;
        const EpochRun run = Run(
            mode, [] {},
            [&] {
              fired = file_system.fired();
              faulted_path = file_system.faulted_path();
              file_system.Disarm();
            },
            &again);
        ASSERT_TRUE(fired) << "the call was not made";
        EXPECT_EQ(testing::CountOpenFileDescriptors(), fds) << "a descriptor leaked";
        // The memory plan's header reads are advice: a pair whose header
        // could not be read is read again, and reported, when its turn comes.
        const bool planning = n <= construction;
        Expect(run, again, mode, sweep.transient || planning, faulted_path, sweep.reason);
        if (::testing::Test::HasFailure()) return;
      }
    }
    std::printf("fault sweep: %s %s: %lld injection points, under fail and skip\n",
                std::string(FileCallName(call)).c_str(), FaultName(sweep.fault).c_str(),
                static_cast<long long>(count));
  }
  std::printf("fault sweep: %s: %lld faulted runs in %.1f s\n",
              std::string(FileCallName(call)).c_str(),
              static_cast<long long>(count * 2 * static_cast<int64_t>(sweeps.size())),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

TEST_F(LoaderFaultSweepTest, EveryOpenFailedInTurn) { SweepCalls(FileCall::kOpen, ErrnoSweeps()); }

TEST_F(LoaderFaultSweepTest, EveryFstatFailedInTurn) {
  SweepCalls(FileCall::kFstat, ErrnoSweeps());
}

// Reads also come short (a signal, a network file system: read on) and
// end early (the file shrank since fstat: an io_error, not a re-stat, as
// the file may be being rewritten).
TEST_F(LoaderFaultSweepTest, EveryReadFailedInTurn) {
  std::vector<Sweep> sweeps = ErrnoSweeps();
  sweeps.push_back({{Fault::Kind::kShortTransfer, 0}, true, ""});
  sweeps.push_back({{Fault::Kind::kEarlyEnd, 0}, false, "file shrank while reading"});
  SweepCalls(FileCall::kRead, sweeps);
}

// A file only read loses nothing when close(2) fails (Linux releases the
// descriptor anyway): the failure is ignored.
TEST_F(LoaderFaultSweepTest, EveryCloseFailedInTurn) {
  SweepCalls(FileCall::kClose, {{{Fault::Kind::kErrno, EIO}, true, ""}});
}

// Every growth of a file buffer or of a decoder's scratch, made to throw
// std::bad_alloc in turn: running out of memory on a file is that file's
// too_large error.
TEST_F(LoaderFaultSweepTest, EveryScratchGrowthFailedInTurn) {
  const auto start = std::chrono::steady_clock::now();
  testing::FailingScratchGrowth growth;
  // The growths of a clean run. Which worker reads which pair decides how
  // often a buffer grows (each grows to the largest file it has seen), so
  // the count can differ from run to run by a few: N beyond a run's own
  // growths fails nothing, and the run must then be the reference.
  growth.Arm(0);
  int64_t count = 0;
  {
    EpochRun again;
    Run(
        OnBadFile::kFail, [] {}, [&] { count = growth.growths(); }, &again);
  }
  ASSERT_GT(count, 0);
  int64_t fired = 0;
  for (OnBadFile mode : {OnBadFile::kFail, OnBadFile::kSkip}) {
    for (int64_t n = 1; n <= count; ++n) {
      SCOPED_TRACE("growth #" + std::to_string(n) +
                   (mode == OnBadFile::kFail ? " under fail" : " under skip"));
      const int fds = testing::CountOpenFileDescriptors();
      growth.Arm(n);
      EpochRun again;
      bool faulted = false;
      bool planning = false;
      const EpochRun run = Run(
          mode, [&] { planning = growth.fired(); },
          [&] {
            faulted = growth.fired();
            growth.Arm(0);
          },
          &again);
      EXPECT_EQ(testing::CountOpenFileDescriptors(), fds) << "a descriptor leaked";
      fired += faulted;
      // A growth while planning leaves one header out of the plan: advice.
      Expect(run, again, mode, !faulted || planning, "", "std::bad_alloc", ErrorKind::kTooLarge);
      if (::testing::Test::HasFailure()) return;
    }
  }
  std::printf(
      "fault sweep: scratch growth bad_alloc: %lld injection points, under fail and "
      "skip (%lld of %lld runs reached theirs), in %.1f s\n",
      static_cast<long long>(count), static_cast<long long>(fired),
      static_cast<long long>(2 * count),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace
}  // namespace segfeed
