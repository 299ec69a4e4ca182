// The listing's fault sweep: every opendir, readdir, closedir and stat a
// recursive listing makes is failed in turn, each way it can fail. A
// failure lists nothing silently wrong: the listing is the reference, or it
// stops with a FileError naming the folder or file and the reason.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "source/fault_injecting_file_system.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::Fault;
using testing::FileCall;

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

// Everything a listing found, as one string.
std::string Describe(const Dataset& dataset) {
  std::string text;
  for (const SamplePair pair : dataset.pairs)
    text += pair.image_path.string() + " " + pair.mask_path.string() + "\n";
  for (const Error& problem : dataset.problems) text += problem.Message() + "\n";
  for (const IgnoredFile& file : dataset.ignored) text += file.path.string() + "\n";
  return text;
}

TEST(DatasetListingFaultSweepTest, EveryFolderCallFailedInTurn) {
  testing::TempDir dir;
  const fs::path root = dir.path();
  // Two sub-folders, one of them reached through a symlink (whose type
  // only stat(2) tells), and one folder linked twice (walked once).
  for (const char* folder : {"a", "b"}) {
    for (int k = 0; k < 3; ++k) {
      const std::string stem = std::string(folder) + std::to_string(k);
      Touch(root / "train" / folder / (stem + ".jpg"));
      Touch(root / "train_masks" / folder / (stem + "_mask.gif"));
    }
  }
  Touch(root / "elsewhere" / "c0.jpg");
  Touch(root / "train_masks" / "linked" / "c0_mask.gif");
  fs::create_directory_symlink(root / "elsewhere", root / "train" / "linked");
  fs::create_directory_symlink(root / "train" / "a", root / "train" / "again");
  DatasetSpec spec = DatasetSpec::Carvana(root);
  spec.recursive = true;
  const std::string reference = Describe(ListDataset(spec));
  ASSERT_NE(reference.find("c0_mask.gif"), std::string::npos) << reference;

  testing::FaultInjectingFileSystem file_system;
  source::FileSystemOverrideForTesting use(&file_system);
  file_system.Disarm();
  ListDataset(spec);
  std::vector<std::pair<FileCall, int64_t>> counts;
  for (FileCall call :
       {FileCall::kOpenDir, FileCall::kReadDir, FileCall::kCloseDir, FileCall::kStat})
    counts.emplace_back(call, file_system.calls(call));

  for (const auto& [call, count] : counts) {
    ASSERT_GT(count, 0) << FileCallName(call);
    // ENOENT from stat(2) is a dangling symlink: a file, by design.
    std::vector<int> errors = {EIO, ENOMEM, EACCES, EINTR};
    if (call != FileCall::kStat) errors.push_back(ENOENT);
    for (int error : errors) {
      const Fault fault{Fault::Kind::kErrno, error};
      for (int64_t n = 1; n <= count; ++n) {
        SCOPED_TRACE(std::string(FileCallName(call)) + " #" + std::to_string(n) + " " +
                     FaultName(fault));
        const int fds = testing::CountOpenFileDescriptors();
        file_system.Arm(call, n, fault);
        std::string listed;
        std::optional<Error> failed;
        try {
          listed = Describe(ListDataset(spec));
        } catch (const FileError& e) {
          failed = e.error();
        }
        ASSERT_TRUE(file_system.fired());
        const std::string path = file_system.faulted_path();
        file_system.Disarm();
        EXPECT_EQ(testing::CountOpenFileDescriptors(), fds) << "a descriptor leaked";
        // A failed closedir(3) lost nothing.
        if (error == EINTR || call == FileCall::kCloseDir) {
          EXPECT_FALSE(failed) << failed->Message();
          EXPECT_EQ(listed, reference);
        } else {
          ASSERT_TRUE(failed) << "a failed " << FileCallName(call) << " of " << path
                              << " went unreported";
          EXPECT_EQ(failed->kind, ErrorKind::kIoError);
          EXPECT_EQ(failed->path, path) << failed->Message();
          EXPECT_NE(failed->detail.find(std::strerror(error)), std::string::npos)
              << failed->Message();
        }
        if (::testing::Test::HasFailure()) return;
      }
      std::printf("fault sweep: listing %s %s: %lld injection points\n",
                  std::string(FileCallName(call)).c_str(), FaultName(fault).c_str(),
                  static_cast<long long>(count));
    }
  }
}

}  // namespace
}  // namespace segfeed
