// make-demo's trees of CamVid (both forms), COCO-Stuff, Mapillary Vistas,
// BDD100K and LoveDA: the files each writes, the form and values of its
// label maps, and CamVid's label_colors.txt as the release has it.

#include "demo/demo_more_layouts.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "support/png_reader.h"
#include "temp_dir.h"

namespace segfeed::demo {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::DecodedPng;
using segfeed::testing::ReadPng;
using segfeed::testing::TempDir;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> FileTree(const fs::path& root) {
  std::set<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), root).generic_string());
  }
  return files;
}

DemoOptions SmallOptions(int threads) {
  DemoOptions options;
  options.count = 8;
  options.width = 64;
  options.height = 48;
  options.seed = 7;
  options.threads = threads;
  return options;
}

DemoLayoutSummary WriteOrFail(const fs::path& out, DemoLayout layout, const DemoOptions& options) {
  auto summary = WriteDemoLayout(out, layout, options, {});
  EXPECT_TRUE(summary.ok()) << (summary.ok() ? "" : summary.error().Message());
  return summary.ok() ? summary.value() : DemoLayoutSummary{};
}

// The files of `tree` under `folder` ending in `ending`.
int Count(const std::set<std::string>& tree, const std::string& folder, const std::string& ending) {
  int count = 0;
  for (const std::string& file : tree) count += file.starts_with(folder) && file.ends_with(ending);
  return count;
}

std::set<int> Values(const DecodedPng& png) { return {png.samples.begin(), png.samples.end()}; }

// The label maps' values: the layout's class values and its band, nothing else.
void ExpectValuesWithin(const fs::path& mask, int colour_type, const DemoLabelValues& values) {
  const DecodedPng png = ReadPng(mask);
  ASSERT_TRUE(png.error.empty()) << mask << ": " << png.error;
  EXPECT_EQ(png.color_type, colour_type) << mask;
  std::set<int> allowed(values.classes.begin(), values.classes.end());
  allowed.insert(values.band);
  for (int value : Values(png)) EXPECT_EQ(allowed.count(value), 1u) << mask << ": " << value;
}

TEST(DemoMoreLayoutsTest, EachLayoutWritesItsFoldersAndSplits) {
  TempDir dir;
  const struct {
    DemoLayout layout;
    std::vector<std::pair<std::string, int>> counts;  // folder/ending -> files
  } cases[] = {
      {DemoLayout::kCamvid, {{"train/", 6}, {"trainannot/", 6}, {"val/", 2}, {"valannot/", 2}}},
      {DemoLayout::kCamvid32,
       {{"701_StillsRaw_full/", 8}, {"LabeledApproved_full/", 8}, {"label_colors.txt", 1}}},
      {DemoLayout::kCocoStuff,
       {{"images/train2017/", 6}, {"annotations/train2017/", 6}, {"images/val2017/", 2}}},
      {DemoLayout::kMapillary,
       {{"training/images/", 6},
        {"training/v1.2/labels/", 6},
        {"training/v2.0/labels/", 6},
        {"validation/v2.0/labels/", 2}}},
      {DemoLayout::kBdd100k, {{"images/10k/train/", 6}, {"labels/sem_seg/masks/val/", 2}}},
      {DemoLayout::kLoveda,
       {{"Train/Rural/images_png/", 3},
        {"Train/Urban/masks_png/", 3},
        {"Val/Rural/images_png/", 1},
        {"Val/Urban/masks_png/", 1}}},
  };
  for (const auto& c : cases) {
    const fs::path out = dir / InfoOf(c.layout).name;
    const DemoLayoutSummary summary = WriteOrFail(out, c.layout, SmallOptions(2));
    const std::set<std::string> tree = FileTree(out);
    for (const auto& [folder, count] : c.counts)
      EXPECT_EQ(Count(tree, folder, ""), count) << InfoOf(c.layout).name << " " << folder;
    EXPECT_EQ(summary.train_pairs + summary.val_pairs, 8) << InfoOf(c.layout).name;
  }
  // LoveDA numbers through both splits, Rural first in each.
  EXPECT_TRUE(fs::exists(dir / "loveda/Train/Rural/images_png/0.png"));
  EXPECT_TRUE(fs::exists(dir / "loveda/Train/Urban/masks_png/5.png"));
  EXPECT_TRUE(fs::exists(dir / "loveda/Val/Rural/masks_png/6.png"));
  EXPECT_TRUE(fs::exists(dir / "camvid32/LabeledApproved_full/0001TP_006690_L.png"));
}

TEST(DemoMoreLayoutsTest, LabelMapsHoldTheDatasetsOwnValues) {
  TempDir dir;
  for (DemoLayout layout : {DemoLayout::kCamvid, DemoLayout::kCocoStuff, DemoLayout::kMapillary,
                            DemoLayout::kBdd100k, DemoLayout::kLoveda}) {
    const fs::path out = dir / InfoOf(layout).name;
    WriteOrFail(out, layout, SmallOptions(2));
    const bool palette = layout == DemoLayout::kMapillary;
    std::set<int> seen;
    for (const std::string& file : FileTree(out)) {
      const bool v2 = file.find("/v2.0/") != std::string::npos;
      const bool mask =
          file.find("annot/") != std::string::npos || file.starts_with("annotations/") ||
          file.find("labels/") != std::string::npos || file.find("masks_png/") != std::string::npos;
      if (!mask) continue;
      ExpectValuesWithin(out / file, palette ? 3 : 0,
                         v2 ? DemoMapillaryV2LabelValues() : DemoLayoutLabelValues(layout));
      if (!v2) {
        const std::set<int> values = Values(ReadPng(out / file));
        seen.insert(values.begin(), values.end());
      }
    }
    // The unlabelled value is there to be ignored (CamVid's void is a class value of its own).
    EXPECT_EQ(seen.count(DemoLayoutLabelValues(layout).band), 1u) << InfoOf(layout).name;
    EXPECT_GT(seen.size(), 3u) << InfoOf(layout).name;
  }
}

TEST(DemoMoreLayoutsTest, Camvid32WritesTheReleasesColoursAndColourCodedMasks) {
  TempDir dir;
  WriteOrFail(dir.path(), DemoLayout::kCamvid32, SmallOptions(2));
  // The release's file, tabs aside (it pads short colours with a second tab).
  std::string published = ReadText(fs::path(SEGFEED_PUBLISHED_DIR) / "camvid_label_colors.txt");
  for (size_t at; (at = published.find("\t\t")) != std::string::npos;) published.erase(at, 1);
  EXPECT_EQ(ReadText(dir / "label_colors.txt"), published);
  const DecodedPng mask = ReadPng(dir / "LabeledApproved_full/0001TP_006690_L.png");
  ASSERT_TRUE(mask.error.empty()) << mask.error;
  EXPECT_EQ(mask.color_type, 2);  // RGB
}

TEST(DemoMoreLayoutsTest, SameBytesOnOneThreadAndOnThree) {
  for (DemoLayout layout : {DemoLayout::kCamvid, DemoLayout::kCamvid32, DemoLayout::kCocoStuff,
                            DemoLayout::kMapillary, DemoLayout::kBdd100k, DemoLayout::kLoveda}) {
    TempDir dir;
    WriteOrFail(dir / "1", layout, SmallOptions(1));
    WriteOrFail(dir / "3", layout, SmallOptions(3));
    const std::set<std::string> tree = FileTree(dir / "1");
    ASSERT_EQ(tree, FileTree(dir / "3"));
    ASSERT_FALSE(tree.empty());
    for (const std::string& file : tree)
      EXPECT_EQ(ReadText(dir / "1" / file), ReadText(dir / "3" / file)) << file;
  }
}

}  // namespace
}  // namespace segfeed::demo
