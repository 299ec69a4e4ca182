#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "segfeed/dataset.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void Touch(const fs::path& path) { testing::WriteFile(path, {1, 2, 3}); }

// A Carvana layout with the given image and mask file names.
DatasetSpec MakeCarvana(const TempDir& dir, const std::vector<std::string>& images,
                        const std::vector<std::string>& masks) {
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "train_masks");
  for (const auto& name : images) Touch(dir / "train" / name);
  for (const auto& name : masks) Touch(dir / "train_masks" / name);
  return DatasetSpec::Carvana(dir.path());
}

std::vector<std::string> Stems(const Dataset& dataset) {
  std::vector<std::string> stems;
  for (const auto& pair : dataset.pairs) stems.push_back(pair.stem);
  return stems;
}

TEST(DatasetListingTest, PairsCarvanaLayoutSortedByStem) {
  TempDir dir;
  const auto spec = MakeCarvana(dir, {"b_02.jpg", "a_01.jpg", "B_01.jpg"},
                                {"a_01_mask.gif", "b_02_mask.gif", "B_01_mask.gif"});
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"B_01", "a_01", "b_02"}));  // bytewise
  EXPECT_TRUE(dataset.problems.empty());
  ASSERT_EQ(dataset.pairs.size(), 3u);
  EXPECT_EQ(dataset.pairs[1].image_path, dir.path() / "train" / "a_01.jpg");
  EXPECT_EQ(dataset.pairs[1].mask_path, dir.path() / "train_masks" / "a_01_mask.gif");
}

TEST(DatasetListingTest, OrderIsIndependentOfCreationOrder) {
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) names.push_back("car" + std::to_string((i * 17) % 40));
  TempDir first_dir, second_dir;
  std::vector<std::string> images, masks;
  for (const auto& n : names) images.push_back(n + ".jpg"), masks.push_back(n + "_mask.gif");
  const Dataset first = ListDataset(MakeCarvana(first_dir, images, masks));
  std::reverse(images.begin(), images.end());
  const Dataset second = ListDataset(MakeCarvana(second_dir, images, masks));
  EXPECT_EQ(Stems(first), Stems(second));
  const auto stems = Stems(first);
  EXPECT_TRUE(std::is_sorted(stems.begin(), stems.end()));
  EXPECT_EQ(first.pairs.size(), 40u);
}

TEST(DatasetListingTest, ExtensionsMatchIgnoringCase) {
  TempDir dir;
  const auto spec = MakeCarvana(dir, {"a.jpg", "b.JPG", "c.jpeg", "d.JpEg"},
                                {"a_mask.gif", "b_mask.GIF", "c_mask.gif", "d_mask.Gif"});
  EXPECT_EQ(Stems(ListDataset(spec)), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(DatasetListingTest, RecordsMissingAndOrphanMasks) {
  TempDir dir;
  const auto spec = MakeCarvana(dir, {"a.jpg", "b.jpg", "d.jpg"}, {"b_mask.gif", "c_mask.gif"});
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"b"}));
  ASSERT_EQ(dataset.problems.size(), 3u);
  EXPECT_EQ(dataset.problems[0].kind, ErrorKind::kMissingMask);
  EXPECT_EQ(dataset.problems[0].path, (dir.path() / "train" / "a.jpg").string());
  EXPECT_NE(dataset.problems[0].detail.find("a_mask.gif"), std::string::npos);
  EXPECT_EQ(dataset.problems[1].kind, ErrorKind::kOrphanMask);
  EXPECT_EQ(dataset.problems[1].path, (dir.path() / "train_masks" / "c_mask.gif").string());
  EXPECT_EQ(dataset.problems[2].kind, ErrorKind::kMissingMask);
  EXPECT_EQ(ErrorKindName(dataset.problems[1].kind), "orphan_mask");
}

TEST(DatasetListingTest, IgnoresHiddenFilesFoldersAndOtherFiles) {
  TempDir dir;
  const auto spec = MakeCarvana(dir, {"a.jpg", ".b.jpg", "notes.txt", "a_mask.gif"},
                                {"a_mask.gif", ".DS_Store", "a.jpg"});
  fs::create_directory(dir / "train" / "sub.jpg");
  Touch(dir / "train" / "sub.jpg" / "x.jpg");
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(dataset.problems.empty());
  std::vector<std::string> ignored;
  for (const auto& file : dataset.ignored) ignored.push_back(file.path.filename().string());
  EXPECT_EQ(ignored, (std::vector<std::string>{".b.jpg", "a_mask.gif", "notes.txt", "sub.jpg",
                                               ".DS_Store", "a.jpg"}));
}

TEST(DatasetListingTest, FollowsSymlinksAndKeepsDanglingOnes) {
  TempDir dir;
  const auto spec = MakeCarvana(dir, {}, {"a_mask.gif", "b_mask.gif"});
  Touch(dir / "elsewhere.jpg");
  fs::create_symlink(dir / "elsewhere.jpg", dir / "train" / "a.jpg");
  fs::create_symlink(dir / "gone.jpg", dir / "train" / "b.jpg");
  const Dataset dataset = ListDataset(spec);
  // The dangling one is listed: reading it later reports an io_error by name.
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"a", "b"}));
}

TEST(DatasetListingTest, HandlesSpacesAndUtf8Names) {
  TempDir dir;
  const std::string car = "voiture rouge \xC3\xA9t\xC3\xA9";  // "été"
  const auto spec = MakeCarvana(dir, {car + ".jpg", "\xE8\xBB\x8A.jpg"},
                                {car + "_mask.gif", "\xE8\xBB\x8A_mask.gif"});
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{car, "\xE8\xBB\x8A"}));
  EXPECT_TRUE(fs::exists(dataset.pairs[1].mask_path));
}

TEST(DatasetListingTest, CustomSuffixExtensionsAndSharedFolder) {
  TempDir dir;
  for (const char* name : {"a.png", "a-seg.png", "b.png", "c-seg.png"}) Touch(dir / name);
  DatasetSpec spec;
  spec.image_dir = dir.path();
  spec.mask_dir = dir.path();
  spec.mask_suffix = "-seg";
  spec.image_extensions = {".png"};
  spec.mask_extensions = {".png"};
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"a"}));
  ASSERT_EQ(dataset.problems.size(), 2u);
  EXPECT_EQ(dataset.problems[0].kind, ErrorKind::kMissingMask);  // b
  EXPECT_EQ(dataset.problems[1].kind, ErrorKind::kOrphanMask);   // c
}

TEST(DatasetListingTest, AKeyWithTwoImagesIsAProblemNamingBoth) {
  TempDir dir;
  const auto spec = MakeCarvana(dir, {"a.jpg", "a.JPG", "a.jpeg", "b.jpg"},
                                {"a_mask.gif", "b_mask.gif", "b_mask.png"});
  const Dataset dataset = ListDataset(spec);
  EXPECT_TRUE(dataset.pairs.empty());  // neither key is paired: which file is meant?
  ASSERT_EQ(dataset.problems.size(), 2u);
  EXPECT_EQ(dataset.problems[0].kind, ErrorKind::kDuplicateKey);
  EXPECT_EQ(dataset.problems[0].path, (dir / "train" / "a.JPG").string());  // bytewise first
  EXPECT_NE(dataset.problems[0].detail.find((dir / "train" / "a.jpeg").string()), std::string::npos)
      << dataset.problems[0].detail;
  EXPECT_EQ(dataset.problems[1].path, (dir / "train_masks" / "b_mask.gif").string());
  EXPECT_NE(dataset.problems[1].detail.find("b_mask.png"), std::string::npos);
  EXPECT_EQ(ErrorKindName(dataset.problems[1].kind), "duplicate_key");
}

TEST(DatasetListingTest, MissingFolderThrowsFileError) {
  TempDir dir;
  try {
    ListDataset(DatasetSpec::Carvana(dir / "nowhere"));
    FAIL() << "expected FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::kIoError);
    EXPECT_EQ(e.error().path, (dir / "nowhere" / "train").string());
  }
}

TEST(DatasetListingTest, InvalidSpecThrowsConfigError) {
  TempDir dir;
  DatasetSpec spec = DatasetSpec::Carvana(dir.path());
  spec.image_extensions = {"jpg"};
  EXPECT_THROW(ListDataset(spec), ConfigError);
  spec = DatasetSpec::Carvana(dir.path());
  spec.mask_extensions.clear();
  EXPECT_THROW(ListDataset(spec), ConfigError);
}

}  // namespace
}  // namespace segfeed
