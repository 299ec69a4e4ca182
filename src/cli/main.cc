// The segfeed command: one binary, one file per subcommand.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/subcommands.h"
#include "output/printable.h"
#include "segfeed/build_info.h"

namespace {

constexpr const char* kUsage = R"(usage: segfeed <command> [options]

commands:
  bench               throughput, per-stage times and memory of the pipeline
  check               decode every file of a dataset and list its problems
  index SHARD...      index tar shards (WebDataset layout) for reading by offset
  make-demo OUT_DIR   write a synthetic Carvana-like dataset
  pack --output OUT   write a dataset as tar shards (WebDataset layout) with their index
  plan                memory the input stage will use, before it runs
  preview             a grid of augmented samples with their masks overlaid

'segfeed <command> --help' describes a command; 'segfeed --version' the build.
)";

struct Subcommand {
  const char* name;
  int (*run)(std::span<const std::string>);
};
constexpr Subcommand kSubcommands[] = {
    {"bench", segfeed::cli::RunBench},     {"check", segfeed::cli::RunCheck},
    {"index", segfeed::cli::RunIndex},     {"make-demo", segfeed::cli::RunMakeDemo},
    {"pack", segfeed::cli::RunPack},       {"plan", segfeed::cli::RunPlan},
    {"preview", segfeed::cli::RunPreview},
};

// Runs the command line; returns the exit status.
int Run(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? std::cerr : std::cout) << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    const segfeed::BuildInfo info = segfeed::GetBuildInfo();
    std::cout << "segfeed " << info.version << " (oneTBB " << info.tbb_version << ", OpenCV "
              << info.opencv_version << ", giflib " << info.giflib_version
              << ", CUDA runtime: " << (info.cuda_runtime ? "yes" : "no") << ")\n";
    return 0;
  }
  for (const Subcommand& sub : kSubcommands) {
    if (args[0] != sub.name) continue;
    try {
      return sub.run(std::span(args).subspan(1));
    } catch (const segfeed::cli::UsageError& e) {
      // Messages name files and echo arguments: escaped, so they stay one
      // line and no control sequence reaches the terminal.
      std::cerr << "segfeed " << sub.name << ": " << segfeed::output::PrintableText(e.what())
                << "\n"
                << "Try 'segfeed " << sub.name << " --help'.\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "segfeed " << sub.name << ": " << segfeed::output::PrintableText(e.what())
                << "\n";
      return 1;
    }
  }
  std::cerr << "segfeed: unknown command '" << segfeed::output::PrintableText(args[0]) << "'\n"
            << kUsage;
  return 2;
}

// A report that did not reach standard output (a full disk, /dev/full, a
// file size limit) is a failure, whatever the command found: flushes what is
// still buffered and checks every earlier write. std::cout writes through
// stdout's buffer (synced with stdio), and both are checked.
int CheckStandardOutput(int exit_status, const std::string& program) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_errno = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return exit_status;
  // glibc drops a buffer it failed to write, so the final flush may succeed
  // with the error only recorded in ferror(), its errno long gone.
  const std::string reason =
      !flushed && flush_errno != 0 ? std::strerror(flush_errno) : "a write failed";
  std::cerr << program << ": cannot write to standard output (" << reason
            << "); the output is incomplete\n";
  return exit_status != 0 ? exit_status : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int exit_status = Run(args);
  return CheckStandardOutput(
      exit_status, args.empty() ? "segfeed" : "segfeed " + segfeed::output::PrintableText(args[0]));
}
