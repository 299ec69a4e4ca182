// The layouts of the presets added for issue 48 (camvid, camvid32,
// coco_stuff, mapillary, mapillary_v2, bdd100k, loveda): the files each
// split pairs, LoveDA's splits across its two domains, and what a preset
// pointed at another layout says.

#include <gtest/gtest.h>

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

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  testing::WriteFile(path, {1, 2, 3});
}

std::vector<std::string> Pairs(const Dataset& dataset, const fs::path& root) {
  std::vector<std::string> pairs;
  for (const SamplePair& pair : dataset.pairs) {
    pairs.push_back(pair.image_path.lexically_relative(root).string() + " " +
                    pair.mask_path.lexically_relative(root).string());
  }
  return pairs;
}

std::string LayoutError(const DatasetSpec& spec) {
  try {
    ListDataset(spec);
  } catch (const FileError& e) {
    return e.error().detail;
  }
  return "no error";
}

TEST(PresetLayoutsTest, EachPresetPairsItsSplitsFiles) {
  TempDir dir;
  const fs::path root = dir.path();
  Touch(root / "camvid/train/0001TP_006690.png");
  Touch(root / "camvid/trainannot/0001TP_006690.png");
  Touch(root / "camvid/val/0016E5_07959.png");
  Touch(root / "camvid/valannot/0016E5_07959.png");
  Touch(root / "camvid32/701_StillsRaw_full/0001TP_006690.png");
  Touch(root / "camvid32/LabeledApproved_full/0001TP_006690_L.png");
  std::ofstream(root / "camvid32/label_colors.txt") << "64 128 64\tAnimal\n0 0 0\tVoid\n";
  Touch(root / "coco/images/val2017/000000000139.jpg");
  Touch(root / "coco/annotations/val2017/000000000139.png");
  Touch(root / "vistas/validation/images/abc.jpg");
  Touch(root / "vistas/validation/v1.2/labels/abc.png");
  Touch(root / "vistas/validation/v2.0/labels/abc.png");
  Touch(root / "vistas/validation/v2.0/panoptic/abc.png");  // not a semantic map
  Touch(root / "bdd/images/10k/train/0a0a0b1a-7c39d841.jpg");
  Touch(root / "bdd/labels/sem_seg/masks/train/0a0a0b1a-7c39d841.png");
  const struct {
    const char* preset;
    const char* folder;
    const char* split;
    std::vector<std::string> pairs;
  } cases[] = {
      {"camvid", "camvid", "", {"train/0001TP_006690.png trainannot/0001TP_006690.png"}},
      {"camvid", "camvid", "val", {"val/0016E5_07959.png valannot/0016E5_07959.png"}},
      {"camvid32",
       "camvid32",
       "",
       {"701_StillsRaw_full/0001TP_006690.png LabeledApproved_full/0001TP_006690_L.png"}},
      {"coco_stuff",
       "coco",
       "val",
       {"images/val2017/000000000139.jpg annotations/val2017/000000000139.png"}},
      {"mapillary", "vistas", "val", {"validation/images/abc.jpg validation/v1.2/labels/abc.png"}},
      {"mapillary_v2",
       "vistas",
       "val",
       {"validation/images/abc.jpg validation/v2.0/labels/abc.png"}},
      {"bdd100k",
       "bdd",
       "train",
       {"images/10k/train/0a0a0b1a-7c39d841.jpg "
        "labels/sem_seg/masks/train/0a0a0b1a-7c39d841.png"}},
  };
  for (const auto& c : cases) {
    const fs::path data = root / c.folder;
    EXPECT_EQ(Pairs(ListDataset(DatasetPreset(c.preset, data, c.split)), data), c.pairs)
        << c.preset << " " << c.split;
  }
}

TEST(PresetLayoutsTest, LovedaSplitsTakeBothDomainsOrOne) {
  TempDir dir;
  for (const char* file : {"Train/Rural/images_png/0.png", "Train/Rural/masks_png/0.png",
                           "Train/Rural/images_png/1.png", "Train/Rural/masks_png/1.png",
                           "Train/Urban/images_png/1366.png", "Train/Urban/masks_png/1366.png",
                           "Val/Urban/images_png/3514.png", "Val/Urban/masks_png/3514.png"})
    Touch(dir / file);
  Touch(dir / "Train/Urban/images_png/1367.png");  // no mask
  const Dataset train = ListDataset(DatasetPreset("loveda", dir.path(), "train"));
  EXPECT_EQ(Pairs(train, dir.path()),
            (std::vector<std::string>{"Train/Rural/images_png/0.png Train/Rural/masks_png/0.png",
                                      "Train/Rural/images_png/1.png Train/Rural/masks_png/1.png",
                                      "Train/Urban/images_png/1366.png "
                                      "Train/Urban/masks_png/1366.png"}));
  ASSERT_EQ(train.problems.size(), 1u);
  EXPECT_EQ(train.problems[0].kind, ErrorKind::kMissingMask);
  EXPECT_EQ(train.pairs[2].stem, "Train/Urban/images_png/1366");
  EXPECT_EQ(ListDataset(DatasetPreset("loveda", dir.path(), "train/rural")).pairs.size(), 2u);
  EXPECT_EQ(ListDataset(DatasetPreset("loveda", dir.path(), "Train/Urban")).pairs.size(), 1u);
  // Val has no Rural folder here: the split that is missing is named.
  const std::string val = LayoutError(DatasetPreset("loveda", dir.path(), "val"));
  EXPECT_NE(val.find("no split 'Rural': Val/ has Urban/"), std::string::npos) << val;
  EXPECT_EQ(ListDataset(DatasetPreset("loveda", dir.path(), "val/urban")).pairs.size(), 1u);
  EXPECT_THROW(DatasetPreset("loveda", dir.path(), "train/forest"), ConfigError);
  EXPECT_THROW(DatasetPreset("camvid", dir.path(), "train/urban"), ConfigError);
  EXPECT_THROW(DatasetPreset("camvid32", dir.path(), "train"), ConfigError);
}

TEST(PresetLayoutsTest, AWrongPresetSaysWhichFits) {
  TempDir dir;
  Touch(dir / "coco/images/train2017/1.jpg");
  Touch(dir / "coco/annotations/train2017/1.png");
  const std::string ade = LayoutError(DatasetPreset("ade20k", dir / "coco", ""));
  EXPECT_NE(ade.find("no split 'training': images/ has train2017/: this looks like the "
                     "coco_stuff layout, try --dataset coco_stuff"),
            std::string::npos)
      << ade;
  Touch(dir / "v2/training/images/a.jpg");
  Touch(dir / "v2/training/v2.0/labels/a.png");
  const std::string v12 = LayoutError(DatasetPreset("mapillary", dir / "v2", ""));
  EXPECT_NE(v12.find("no training/v1.2/labels/ here"), std::string::npos) << v12;
  EXPECT_NE(v12.find("try --dataset mapillary_v2"), std::string::npos) << v12;
  Touch(dir / "segnet/train/a.png");
  Touch(dir / "segnet/trainannot/a.png");
  const std::string camvid32 = LayoutError(DatasetPreset("camvid32", dir / "segnet", ""));
  EXPECT_NE(camvid32.find("try --dataset camvid"), std::string::npos) << camvid32;
  // The original release without its colour list.
  Touch(dir / "release/701_StillsRaw_full/a.png");
  Touch(dir / "release/LabeledApproved_full/a_L.png");
  const std::string colours = LayoutError(DatasetPreset("camvid32", dir / "release", ""));
  EXPECT_NE(colours.find("no label_colors.txt here, which the camvid32 layout reads its classes "
                         "from"),
            std::string::npos)
      << colours;
}

}  // namespace
}  // namespace segfeed
