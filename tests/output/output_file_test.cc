// OutputFile: a command's output is replaced only when complete, devices
// and FIFOs are written in place, and paths are checked before a run.
#include "output/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace segfeed::output {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Every entry of `dir`, hidden ones included, by name.
std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

OutputFile Prepared(const fs::path& path) {
  Result<OutputFile> file = OutputFile::Prepare(path);
  EXPECT_TRUE(file.ok()) << file.error().Message();
  return std::move(file).value();
}

// Makes every write past `bytes` fail with EFBIG (as on a full disk) for
// this process, until destroyed; SIGXFSZ is ignored so the write returns
// the error instead of killing the test.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_limit_);
    saved_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_limit_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_limit_);
    std::signal(SIGXFSZ, saved_handler_);
  }

 private:
  rlimit saved_limit_{};
  void (*saved_handler_)(int) = nullptr;
};

TEST(OutputFileTest, WritesANewFileAndNothingElse) {
  TempDir dir;
  ASSERT_TRUE(Prepared(dir / "report.json").Write("{}\n").ok());
  EXPECT_EQ(ReadText(dir / "report.json"), "{}\n");
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"report.json"});
}

TEST(OutputFileTest, PrepareTouchesNothing) {
  TempDir dir;
  WriteText(dir / "report.json", "old");
  const OutputFile file = Prepared(dir / "report.json");
  (void)Prepared(dir / "new.json");
  EXPECT_EQ(ReadText(dir / "report.json"), "old");
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"report.json"});
}

TEST(OutputFileTest, ReplacesAnExistingFileAndKeepsItsPermissions) {
  TempDir dir;
  WriteText(dir / "report.json", "an older and longer report");
  fs::permissions(dir / "report.json", fs::perms(0640));
  ASSERT_TRUE(Prepared(dir / "report.json").Write("new").ok());
  EXPECT_EQ(ReadText(dir / "report.json"), "new");
  EXPECT_EQ(fs::status(dir / "report.json").permissions(), fs::perms(0640));
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"report.json"});
}

// The temp-then-rename logic: a write that fails halfway (here the file
// size limit, as a full disk would) leaves the old file exactly as it was
// and no temporary file beside it.
TEST(OutputFileTest, FailedWriteKeepsTheOldFileAndLeavesNoTemporaryFile) {
  TempDir dir;
  WriteText(dir / "report.json", "the previous report");
  const OutputFile file = Prepared(dir / "report.json");
  Status status;
  {
    FileSizeLimit limit(100);
    status = file.Write(std::string(10000, 'x'));
  }
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().path, (dir / "report.json").string());
  EXPECT_NE(status.error().detail.find("File too large"), std::string::npos)
      << status.error().detail;
  EXPECT_EQ(ReadText(dir / "report.json"), "the previous report");
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"report.json"});
}

// A file name may have all 255 bytes; the hidden temporary name beside it,
// longer by its prefix and suffix, must still fit.
TEST(OutputFileTest, WritesAFileWhoseNameHasAll255Bytes) {
  TempDir dir;
  std::string name = "r";
  while (name.size() + 2 <= 250)
    name += "\xc3\xa9";  // é: the temporary name may not cut one in two
  name += std::string(255 - name.size() - 5, 'x') + ".json";
  ASSERT_EQ(name.size(), 255u);
  for (const char* content : {"new", "replaced"}) {
    ASSERT_TRUE(Prepared(dir / name).Write(content).ok());
    EXPECT_EQ(ReadText(dir / name), content);
    EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{name});
  }
}

TEST(OutputFileTest, MissingFolderIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const Result<OutputFile> file = OutputFile::Prepare(dir / "no" / "such" / "report.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().path, (dir / "no" / "such" / "report.json").string());
  EXPECT_NE(
      file.error().detail.find("folder '" + (dir / "no" / "such").string() + "' does not exist"),
      std::string::npos)
      << file.error().detail;
  EXPECT_TRUE(Entries(dir.path()).empty());
}

TEST(OutputFileTest, FolderOrFileAsFolderIsRefused) {
  TempDir dir;
  Result<OutputFile> file = OutputFile::Prepare(dir.path());
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().detail.find("is a folder"), std::string::npos) << file.error().detail;
  WriteText(dir / "a-file", "x");
  file = OutputFile::Prepare(dir / "a-file" / "report.json");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().detail.find("not a folder"), std::string::npos) << file.error().detail;
}

TEST(OutputFileTest, DevicesAreWrittenInPlaceAndEveryWriteIsChecked) {
  ASSERT_TRUE(Prepared("/dev/null").Write("nothing").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const Status full = Prepared("/dev/full").Write("lost");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().path, "/dev/full");
  EXPECT_NE(full.error().detail.find("No space left on device"), std::string::npos)
      << full.error().detail;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(OutputFileTest, FifoIsWrittenInPlace) {
  TempDir dir;
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // A reader first, so that opening the FIFO for writing does not wait.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(Prepared(fifo).Write("through the pipe").ok());
  char buffer[64] = {};
  const ssize_t n = read(reader, buffer, sizeof buffer);
  close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"fifo"});
}

TEST(OutputFileTest, SymlinkIsKeptAndItsTargetReplaced) {
  TempDir dir;
  fs::create_directory(dir / "reports");
  WriteText(dir / "reports" / "latest.json", "old");
  fs::create_symlink(dir / "reports" / "latest.json", dir / "link.json");
  ASSERT_TRUE(Prepared(dir / "link.json").Write("new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(ReadText(dir / "reports" / "latest.json"), "new");
  EXPECT_EQ(Entries(dir / "reports"), std::vector<std::string>{"latest.json"});
}

TEST(OutputFileTest, PathsInsideTheDatasetFoldersAreRefused) {
  TempDir dir;
  fs::create_directories(dir / "data" / "train");
  fs::create_directories(dir / "data" / "train_masks");
  fs::create_directory_symlink(dir / "data" / "train", dir / "photos");
  const std::vector<fs::path> folders = {dir / "data" / "train", dir / "data" / "train_masks"};
  for (const fs::path& inside :
       {dir / "data" / "train" / "a.jpg", dir / "data" / "x" / ".." / "train" / "r.json",
        dir / "photos" / "r.json", dir / "data" / "train_masks" / "sub" / "r.json",
        dir / "data" / "train"}) {
    const Status status = CheckOutsideFolders(inside, folders);
    ASSERT_FALSE(status.ok()) << inside;
    EXPECT_EQ(status.error().path, inside.string());
    EXPECT_NE(status.error().detail.find("inside the dataset folder"), std::string::npos)
        << status.error().detail;
  }
  for (const fs::path& outside : {dir / "data" / "report.json",
                                  dir / "data" / "train_extra" / "r.json", dir / "report.json"}) {
    EXPECT_TRUE(CheckOutsideFolders(outside, folders).ok()) << outside;
  }
}

TEST(OutputFileTest, OutputFolderMayBeNewButNotBelowAFile) {
  TempDir dir;
  EXPECT_TRUE(CheckOutputFolder(dir.path()).ok());
  EXPECT_TRUE(CheckOutputFolder(dir / "new" / "nested").ok());
  EXPECT_TRUE(Entries(dir.path()).empty());
  WriteText(dir / "a-file", "x");
  for (const fs::path& bad : {dir / "a-file", dir / "a-file" / "sub"}) {
    const Status status = CheckOutputFolder(bad);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.error().detail.find("not a folder"), std::string::npos)
        << status.error().detail;
  }
}

}  // namespace
}  // namespace segfeed::output
