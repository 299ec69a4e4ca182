// The output files' fault sweep: `check --json`, `check --report`, `bench --json` and
// `preview --dump` run in this process (cli::RunCheck() and the others)
// with each open, write, fchmod, fsync, close and rename of their output
// files failed in turn. A failure must leave every file that was there
// before as it was (new files complete or absent, no temporary left
// behind), and end the command with a non-zero status and a message that
// names the file and the reason; a signal or a short write changes
// nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/subcommands.h"
#include "source/fault_injecting_file_system.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::Fault;
using testing::FileCall;

constexpr const char* kPrevious = "the previous run's file\n";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The files of a folder and their contents, hidden (temporary) ones too.
std::map<std::string, std::string> FilesIn(const fs::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder))
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), folder).string()] = ReadText(entry.path());
  return files;
}

struct Outcome {
  int status = 0;
  std::string output;  // stdout and stderr
};

Outcome RunCommand(int (*command)(std::span<const std::string>),
                   const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Outcome outcome;
  std::string thrown;
  // As the command's main() does: an exception is status 1 and its message.
  try {
    outcome.status = command(args);
  } catch (const std::exception& e) {
    outcome.status = 1;
    thrown = e.what();
  }
  outcome.output = ::testing::internal::GetCapturedStdout();
  outcome.output += thrown + "\n";
  outcome.output += ::testing::internal::GetCapturedStderr();
  return outcome;
}

struct Command {
  std::string name;
  int (*run)(std::span<const std::string>);
  std::vector<std::string> args;
  // Bench's report holds its timings: from this key on, up to the
  // "digest" at the end, two runs differ.
  std::string timed_from;
};

// Whether `now` is a whole report of the run that wrote `clean`.
bool SameReport(const Command& command, const std::string& clean, const std::string& now) {
  if (command.timed_from.empty()) return now == clean;
  const size_t timed = clean.find(command.timed_from);
  const size_t digest = clean.rfind("\"digest\"");
  if (timed == std::string::npos || digest == std::string::npos) return false;
  const size_t tail = clean.size() - digest;
  return now.compare(0, timed, clean, 0, timed) == 0 && now.size() >= tail &&
         now.compare(now.size() - tail, tail, clean, digest) == 0;
}

class OutputFilesFaultSweepTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    demo::DemoOptions demo;
    demo.count = 6;
    demo.width = 64;
    demo.height = 48;
    segfeed::testing::WriteDemoPairs(dir_->path() / "data", demo);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static fs::path Out() { return dir_->path() / "out"; }

  // Puts kPrevious in every file a clean run of `command` writes, and
  // returns what that run wrote.
  static std::map<std::string, std::string> Prepare(const Command& command) {
    fs::remove_all(Out());
    fs::create_directories(Out());
    const Outcome clean = RunCommand(command.run, command.args);
    EXPECT_EQ(clean.status, 0) << clean.output;
    std::map<std::string, std::string> written = FilesIn(Out());
    for (const auto& [name, bytes] : written) std::ofstream(Out() / name) << kPrevious;
    return written;
  }

  void Sweep(const Command& command) {
    const std::map<std::string, std::string> clean = Prepare(command);
    ASSERT_FALSE(clean.empty());
    testing::FaultInjectingFileSystem file_system;
    source::FileSystemOverrideForTesting use(&file_system);
    file_system.CountOnlyUnder(Out().string() + "/");
    file_system.Disarm();
    RunCommand(command.run, command.args);
    std::vector<std::pair<FileCall, int64_t>> counts;
    for (FileCall call : {FileCall::kOpen, FileCall::kWrite, FileCall::kFchmod, FileCall::kFsync,
                          FileCall::kClose, FileCall::kRename})
      counts.emplace_back(call, file_system.calls(call));

    int64_t points = 0;
    for (const auto& [call, count] : counts) {
      ASSERT_GT(count, 0) << FileCallName(call);
      std::vector<Fault> faults = {{Fault::Kind::kErrno, EIO},
                                   {Fault::Kind::kErrno, ENOSPC},
                                   {Fault::Kind::kErrno, EACCES},
                                   {Fault::Kind::kErrno, EINTR}};
      if (call == FileCall::kWrite) faults.push_back({Fault::Kind::kShortTransfer, 0});
      for (const Fault& fault : faults) {
        // Linux releases a descriptor whatever close(2) says, and it cannot
        // be retried: EINTR from close is a failure like any other.
        const bool transient = fault.kind == Fault::Kind::kShortTransfer ||
                               (fault.error == EINTR && call != FileCall::kClose);
        for (int64_t n = 1; n <= count; ++n) {
          SCOPED_TRACE(command.name + ": " + std::string(FileCallName(call)) + " #" +
                       std::to_string(n) + " " + FaultName(fault));
          for (const auto& [name, bytes] : clean) std::ofstream(Out() / name) << kPrevious;
          const int fds = testing::CountOpenFileDescriptors();
          file_system.Arm(call, n, fault);
          const Outcome outcome = RunCommand(command.run, command.args);
          ASSERT_TRUE(file_system.fired());
          const std::string path = file_system.faulted_path();
          file_system.Disarm();
          EXPECT_EQ(testing::CountOpenFileDescriptors(), fds) << "a descriptor leaked";
          const std::map<std::string, std::string> now = FilesIn(Out());
          // No temporary is left behind, and every file is whole: the
          // previous one or the new one.
          EXPECT_EQ(now.size(), clean.size());
          for (const auto& [name, bytes] : now) {
            ASSERT_TRUE(clean.count(name)) << "left behind: " << name;
            if (bytes != kPrevious) {
              EXPECT_TRUE(SameReport(command, clean.at(name), bytes)) << name << " is not whole:\n"
                                                                      << bytes;
            }
          }
          if (transient) {
            EXPECT_EQ(outcome.status, 0) << outcome.output;
            for (const auto& [name, bytes] : now)
              EXPECT_NE(bytes, kPrevious) << name << " was not written";
          } else {
            EXPECT_NE(outcome.status, 0) << outcome.output;
            EXPECT_NE(outcome.output.find(std::strerror(fault.error)), std::string::npos)
                << outcome.output;
            // The file whose write failed is named, and is as it was.
            const std::string target = fs::path(path).filename().string();
            bool named = false;
            for (const auto& [name, bytes] : clean) {
              if (target.find(fs::path(name).filename().string()) == std::string::npos) continue;
              named = outcome.output.find(fs::path(name).filename().string()) != std::string::npos;
              EXPECT_EQ(now.at(name), kPrevious) << name << " was replaced after a failure";
            }
            EXPECT_TRUE(named) << "the message does not name " << path << ": " << outcome.output;
          }
          if (::testing::Test::HasFailure()) return;
        }
        points += count;
        std::printf("fault sweep: %s output %s %s: %lld injection points\n", command.name.c_str(),
                    std::string(FileCallName(call)).c_str(), FaultName(fault).c_str(),
                    static_cast<long long>(count));
      }
    }
    std::printf("fault sweep: %s output: %lld faulted runs\n", command.name.c_str(),
                static_cast<long long>(points));
  }

  static testing::TempDir* dir_;
};
testing::TempDir* OutputFilesFaultSweepTest::dir_ = nullptr;

TEST_F(OutputFilesFaultSweepTest, CheckJson) {
  Sweep({"check --json",
         cli::RunCheck,
         {"--data", (dir_->path() / "data").string(), "--json", (Out() / "report.json").string()},
         ""});
}

TEST_F(OutputFilesFaultSweepTest, CheckReport) {
  Sweep({"check --report",
         cli::RunCheck,
         {"--data", (dir_->path() / "data").string(), "--report", (Out() / "report.html").string()},
         ""});
}

TEST_F(OutputFilesFaultSweepTest, BenchJson) {
  Sweep({"bench --json",
         cli::RunBench,
         {"--data", (dir_->path() / "data").string(), "--size", "32", "--batch", "2", "--epochs",
          "1", "--threads", "1", "--digest", "--json", (Out() / "bench.json").string()},
         "\"samples_per_s\""});
}

TEST_F(OutputFilesFaultSweepTest, PreviewDump) {
  Sweep({"preview --dump",
         cli::RunPreview,
         {"--data", (dir_->path() / "data").string(), "--dump", (Out() / "dump").string(),
          "--count", "2", "--size", "32x24", "--batch", "2", "--threads", "1"},
         ""});
}

}  // namespace
}  // namespace segfeed
