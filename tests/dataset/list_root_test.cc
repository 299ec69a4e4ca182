#include "dataset/list_root.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "temp_dir.h"

namespace segfeed::dataset {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

// A dataset root with a photo and a mask inside, and a folder beside it
// that the root's links may point into.
class ListRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Touch(dir_ / "data" / "photos" / "a.jpg");
    Touch(dir_ / "data" / "masks" / "a.png");
    Touch(dir_ / "elsewhere" / "secret.jpg");
    Touch(dir_ / "elsewhere" / "photos" / "b.jpg");
  }
  fs::path Root() const { return dir_ / "data"; }
  std::string Reason(std::string_view written) const {
    return ListRoot(Root()).Outside(written).value_or("inside");
  }

  TempDir dir_;
};

TEST_F(ListRootTest, PathsInsideTheRootAreFine) {
  for (const char* inside : {"photos/a.jpg", "masks/a.png", "./photos/a.jpg",
                             "photos/../masks/a.png", "photos/missing.jpg", "new/folder/x.jpg"}) {
    EXPECT_EQ(Reason(inside), "inside") << inside;
  }
}

TEST_F(ListRootTest, AnAbsolutePathIsRefused) {
  const std::string absolute = (Root() / "photos" / "a.jpg").string();
  // Even one that happens to point inside: the list names paths under its root.
  EXPECT_EQ(Reason(absolute), "is absolute, not under the dataset root " + Root().string());
  EXPECT_EQ(Reason("/etc/passwd"), "is absolute, not under the dataset root " + Root().string());
}

TEST_F(ListRootTest, APathWhoseNormalFormLeavesTheRootIsRefused) {
  for (const char* up : {"../elsewhere/secret.jpg", "photos/../../elsewhere/secret.jpg", "..",
                         "a/b/../../../x.jpg"}) {
    EXPECT_EQ(Reason(up), "leaves the dataset root " + Root().string()) << up;
  }
}

TEST_F(ListRootTest, ASymlinkToAFileOutsideIsRefusedNamingItsTarget) {
  fs::create_symlink(dir_ / "elsewhere" / "secret.jpg", Root() / "photos" / "link.jpg");
  const fs::path target = fs::canonical(dir_ / "elsewhere" / "secret.jpg");
  EXPECT_EQ(Reason("photos/link.jpg"),
            "is a symlink to " + target.string() + ", outside the dataset root " + Root().string());
  // A relative link climbing out is the same.
  fs::create_symlink("../../elsewhere/secret.jpg", Root() / "photos" / "up.jpg");
  EXPECT_EQ(Reason("photos/up.jpg"),
            "is a symlink to " + target.string() + ", outside the dataset root " + Root().string());
}

TEST_F(ListRootTest, ASymlinkedFolderOnTheWayIsRefusedNamingTheFolder) {
  fs::create_directory_symlink(dir_ / "elsewhere" / "photos", Root() / "more");
  const fs::path target = fs::canonical(dir_ / "elsewhere" / "photos");
  EXPECT_EQ(Reason("more/b.jpg"), "goes through more, a symlink to " + target.string() +
                                      ", outside the dataset root " + Root().string());
  // Also for a file that is not there (yet): the folder leads out.
  EXPECT_EQ(Reason("more/none.jpg").substr(0, 16), "goes through mor");
}

TEST_F(ListRootTest, ADanglingSymlinkIsJudgedByWhereItWouldLead) {
  fs::create_symlink(dir_ / "elsewhere" / "later.jpg", Root() / "photos" / "later.jpg");
  EXPECT_NE(Reason("photos/later.jpg").find("is a symlink to"), std::string::npos);
  fs::create_symlink(Root() / "photos" / "soon.jpg", Root() / "photos" / "pending.jpg");
  EXPECT_EQ(Reason("photos/pending.jpg"), "inside");
}

TEST_F(ListRootTest, SymlinksThatResolveInsideAreFine) {
  fs::create_symlink(Root() / "photos" / "a.jpg", Root() / "photos" / "alias.jpg");
  fs::create_symlink("../photos/a.jpg", Root() / "masks" / "relative.jpg");
  fs::create_directory_symlink(Root() / "photos", Root() / "pictures");
  for (const char* inside :
       {"photos/alias.jpg", "masks/relative.jpg", "pictures/a.jpg", "pictures/alias.jpg"}) {
    EXPECT_EQ(Reason(inside), "inside") << inside;
  }
}

TEST_F(ListRootTest, ClimbingOutOfALinkThatStaysInsideIsRefused) {
  // "self/.." is the root's parent for the kernel, though it reads as the root.
  fs::create_directory_symlink(Root(), Root() / "photos" / "self");
  const std::string reason = Reason("photos/self/../elsewhere/secret.jpg");
  EXPECT_EQ(reason.substr(0, 12), "resolves to ") << reason;
  EXPECT_NE(reason.find("outside the dataset root"), std::string::npos) << reason;
}

TEST_F(ListRootTest, ARootThatIsItselfASymlinkComparesResolved) {
  fs::create_directory_symlink(Root(), dir_ / "data-link");
  fs::create_symlink(Root() / "photos" / "a.jpg", Root() / "photos" / "alias.jpg");
  const ListRoot root(dir_ / "data-link");
  EXPECT_FALSE(root.Outside("photos/alias.jpg")) << *root.Outside("photos/alias.jpg");
  EXPECT_FALSE(root.Outside("photos/a.jpg"));
  fs::create_symlink(dir_ / "elsewhere" / "secret.jpg", Root() / "photos" / "out.jpg");
  EXPECT_TRUE(root.Outside("photos/out.jpg"));
}

// A list named without a folder ("pairs.tsv") has the working folder as
// its root, given as an empty path.
TEST_F(ListRootTest, AnEmptyRootIsTheWorkingFolder) {
  fs::create_symlink(dir_ / "elsewhere" / "secret.jpg", Root() / "photos" / "link.jpg");
  const fs::path before = fs::current_path();
  fs::current_path(Root());
  const ListRoot root{fs::path()};
  const std::optional<std::string> linked = root.Outside("photos/link.jpg");
  const std::optional<std::string> up = root.Outside("../elsewhere/secret.jpg");
  const std::optional<std::string> inside = root.Outside("photos/a.jpg");
  fs::current_path(before);
  EXPECT_EQ(linked.value_or("inside"),
            "is a symlink to " + fs::canonical(dir_ / "elsewhere" / "secret.jpg").string() +
                ", outside the dataset root .");
  EXPECT_EQ(up.value_or("inside"), "leaves the dataset root .");
  EXPECT_FALSE(inside) << *inside;
}

}  // namespace
}  // namespace segfeed::dataset
