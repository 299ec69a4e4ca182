#pragma once

#include <span>
#include <string>

namespace segfeed::cli {

// Each subcommand of the segfeed command lives in its own file and takes the
// arguments after its name. It returns the process exit status and throws
// UsageError for command-line mistakes (exit status 2).
int RunMakeDemo(std::span<const std::string> args);
int RunBench(std::span<const std::string> args);
int RunCheck(std::span<const std::string> args);
int RunPlan(std::span<const std::string> args);
int RunPreview(std::span<const std::string> args);
int RunIndex(std::span<const std::string> args);
int RunPack(std::span<const std::string> args);

}  // namespace segfeed::cli
