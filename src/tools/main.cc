// The segfeed command: one binary, one file per subcommand.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "segfeed/build_info.h"
#include "tools/cli_args.h"
#include "tools/subcommands.h"

namespace {

constexpr const char* kUsage = R"(usage: segfeed <command> [options]

commands:
  bench               throughput, per-stage times and memory of the pipeline
  check               decode every file of a dataset and list its problems
  make-demo OUT_DIR   write a synthetic Carvana-like dataset
  plan                memory the input stage will use, before it runs
  preview             a grid of augmented samples with their masks overlaid

'segfeed <command> --help' describes a command; 'segfeed --version' the build.
)";

struct Subcommand {
  const char* name;
  int (*run)(std::span<const std::string>);
};
constexpr Subcommand kSubcommands[] = {
    {"bench", segfeed::tools::RunBench},
    {"check", segfeed::tools::RunCheck},
    {"make-demo", segfeed::tools::RunMakeDemo},
    {"plan", segfeed::tools::RunPlan},
    {"preview", segfeed::tools::RunPreview},
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
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
    } catch (const segfeed::tools::UsageError& e) {
      std::cerr << "segfeed " << sub.name << ": " << e.what() << "\n"
                << "Try 'segfeed " << sub.name << " --help'.\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "segfeed " << sub.name << ": " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "segfeed: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}
