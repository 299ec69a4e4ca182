#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace segfeed::testing {

// What the segfeed binary did: its exit status and what it printed.
struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Which of the binary's streams RunSegfeed() collects.
enum class Streams { kStdoutAndStderr, kStdoutOnly };

// Runs `script`, a sh command line in which "$SEGFEED" names the segfeed
// binary (SEGFEED_CLI, set by CTest), and collects what it writes to its
// standard output, a pipe. For what an argument list cannot say: resource
// limits, signals, the binary's own redirections.
inline CommandResult RunSegfeedScript(const std::string& script) {
  const char* cli = std::getenv("SEGFEED_CLI");
  EXPECT_NE(cli, nullptr) << "SEGFEED_CLI is set by CTest";
  CommandResult result;
  if (!cli) return result;
  const std::string command = std::string("SEGFEED='") + cli + "'; " + script;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Runs the segfeed binary with `arguments`, a shell-quoted argument string,
// and collects its output. stderr is a pipe (or /dev/null), not a terminal,
// so no progress line may appear.
inline CommandResult RunSegfeed(const std::string& arguments,
                                Streams streams = Streams::kStdoutAndStderr) {
  return RunSegfeedScript("\"$SEGFEED\" " + arguments +
                          (streams == Streams::kStdoutAndStderr ? " 2>&1" : " 2>/dev/null"));
}

// Single-quotes a path for the shell.
inline std::string Quoted(const std::string& text) { return "'" + text + "'"; }
inline std::string Quoted(const std::filesystem::path& path) { return Quoted(path.string()); }

}  // namespace segfeed::testing
