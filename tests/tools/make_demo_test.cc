// Runs the segfeed binary itself: exit codes and messages of make-demo.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "temp_dir.h"

namespace {

using segfeed::testing::TempDir;

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

CommandResult RunCli(const std::string& arguments) {
  const char* cli = std::getenv("SEGFEED_CLI");
  EXPECT_NE(cli, nullptr) << "SEGFEED_CLI is set by CTest";
  CommandResult result;
  if (!cli) return result;
  const std::string command = std::string("'") + cli + "' " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TEST(MakeDemoTest, WritesPairsAndPrintsMeanSize) {
  TempDir dir;
  const auto r = RunCli("make-demo '" + (dir / "demo").string() + "' --count 3 --width 200 --height 120");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 3 pairs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mean JPEG"), std::string::npos) << r.output;
}

TEST(MakeDemoTest, UnwritableOutDirIsAClearError) {
  TempDir dir;
  const auto blocker = dir / "a-file";
  std::ofstream(blocker) << "not a directory";
  const auto r = RunCli("make-demo '" + (blocker / "demo").string() + "' --count 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find((blocker / "demo").string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot create directory"), std::string::npos) << r.output;
}

TEST(MakeDemoTest, UsageErrorsExitTwoAndNameTheOption) {
  auto r = RunCli("make-demo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("missing OUT_DIR"), std::string::npos) << r.output;
  r = RunCli("make-demo out --cout 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--cout"), std::string::npos) << r.output;
  r = RunCli("make-demo out --quality 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--quality must be in [1, 100] (got 0)"), std::string::npos) << r.output;
}

}  // namespace
