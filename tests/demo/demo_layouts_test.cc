#include "demo/demo_layouts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "demo/demo_dataset.h"
#include "output/label_palette.h"
#include "support/png_reader.h"
#include "temp_dir.h"

namespace segfeed::demo {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::DecodedPng;
using segfeed::testing::ReadPng;
using segfeed::testing::TempDir;

// PNG's colour types.
constexpr int kGrey = 0;
constexpr int kRgb = 2;
constexpr int kIndexed = 3;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every file under `root`, as paths relative to it with '/' separators.
std::set<std::string> FileTree(const fs::path& root) {
  std::set<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), root).generic_string());
  }
  return files;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "<year>_<6 digits>", 2007 to 2012. By hand, not std::regex: GCC 12 warns
// falsely inside libstdc++'s regex under -fsanitize=address.
bool IsVocId(const std::string& id) {
  if (id.size() != 11 || id[4] != '_') return false;
  for (size_t i = 0; i < id.size(); ++i) {
    if (i != 4 && (id[i] < '0' || id[i] > '9')) return false;
  }
  const int year = std::stoi(id.substr(0, 4));
  return year >= 2007 && year <= 2012;
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

std::set<int> PngValues(const DecodedPng& png) {
  std::set<int> values;
  if (png.bit_depth == 16) {
    for (size_t i = 0; i + 1 < png.samples.size(); i += 2) {
      uint16_t value;
      std::copy_n(&png.samples[i], 2, reinterpret_cast<uint8_t*>(&value));
      values.insert(value);
    }
  } else {
    values.insert(png.samples.begin(), png.samples.end());
  }
  return values;
}

TEST(DemoLayoutsTest, ValidationSplitIsAQuarterWithAtLeastOnePairInEachSplit) {
  EXPECT_EQ(DemoValPairs(1), 0);
  EXPECT_EQ(DemoValPairs(2), 1);
  EXPECT_EQ(DemoValPairs(3), 1);
  EXPECT_EQ(DemoValPairs(8), 2);
  EXPECT_EQ(DemoValPairs(100), 25);
}

TEST(DemoLayoutsTest, VocWritesItsFoldersListsAndPaletteLabelMaps) {
  TempDir dir;
  const DemoLayoutSummary summary = WriteOrFail(dir / "voc", DemoLayout::kVoc, SmallOptions(1));
  EXPECT_EQ(summary.train_pairs, 6);
  EXPECT_EQ(summary.val_pairs, 2);
  EXPECT_EQ(summary.unannotated_photos, 2);

  const fs::path root = dir / "voc";
  const std::string lists = "ImageSets/Segmentation/";
  const std::string train_text = ReadText(root / (lists + "train.txt"));
  const std::string val_text = ReadText(root / (lists + "val.txt"));
  const std::string trainval_text = ReadText(root / (lists + "trainval.txt"));
  const std::vector<std::string> train = Lines(train_text), val = Lines(val_text),
                                 trainval = Lines(trainval_text);
  EXPECT_EQ(train.size(), 6u);
  EXPECT_EQ(val.size(), 2u);
  for (const std::string* text : {&train_text, &val_text, &trainval_text}) {
    EXPECT_TRUE(text->ends_with("\n"));
    EXPECT_EQ(text->find('\r'), std::string::npos);
  }
  std::vector<std::string> both = train;
  both.insert(both.end(), val.begin(), val.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(trainval, both);
  for (const auto* list : {&train, &val, &trainval})
    EXPECT_TRUE(std::is_sorted(list->begin(), list->end()));

  // Exactly the annotated pairs, the lists and the photos without labels.
  std::set<std::string> expected = {lists + "train.txt", lists + "val.txt", lists + "trainval.txt"};
  for (const std::string& id : trainval) {
    EXPECT_TRUE(IsVocId(id)) << id;
    expected.insert("JPEGImages/" + id + ".jpg");
    expected.insert("SegmentationClass/" + id + ".png");
  }
  std::set<std::string> tree = FileTree(root);
  std::vector<std::string> unlisted;
  for (const std::string& file : tree) {
    if (!expected.contains(file)) unlisted.push_back(file);
  }
  ASSERT_EQ(unlisted.size(), 2u) << "photos without segmentation";
  for (const std::string& file : unlisted) {
    const fs::path path(file);
    EXPECT_EQ(path.parent_path(), "JPEGImages") << file;
    EXPECT_EQ(path.extension(), ".jpg") << file;
    EXPECT_TRUE(IsVocId(path.stem().string())) << file;
    const std::string id = path.stem().string();
    EXPECT_EQ(std::find(trainval.begin(), trainval.end(), id), trainval.end()) << id;
  }
  EXPECT_EQ(tree.size(), expected.size() + 2);

  std::set<int> indices;
  for (const std::string& id : trainval) {
    const DecodedPng png = ReadPng(root / "SegmentationClass" / (id + ".png"));
    ASSERT_EQ(png.error, "") << id;
    EXPECT_EQ(png.color_type, kIndexed) << id;
    EXPECT_EQ(png.bit_depth, 8) << id;
    EXPECT_EQ(png.width, 64);
    EXPECT_EQ(png.height, 48);
    ASSERT_EQ(png.palette.size(), 256u);
    EXPECT_TRUE(std::equal(png.palette.begin(), png.palette.end(), output::VocColormap().begin()));
    const std::set<int> values = PngValues(png);
    indices.insert(values.begin(), values.end());
    const std::string photo = ReadText(root / "JPEGImages" / (id + ".jpg"));
    EXPECT_TRUE(photo.starts_with("\xFF\xD8\xFF")) << id;
  }
  EXPECT_TRUE(indices.contains(0));
  EXPECT_TRUE(indices.contains(255));
  for (int index : indices) EXPECT_TRUE(index <= 20 || index == 255) << index;
}

TEST(DemoLayoutsTest, CityscapesWritesCitiesWithTheFourGtFineFiles) {
  TempDir dir;
  const DemoLayoutSummary summary =
      WriteOrFail(dir / "cs", DemoLayout::kCityscapes, SmallOptions(1));
  EXPECT_EQ(summary.train_pairs, 6);
  EXPECT_EQ(summary.val_pairs, 2);

  std::set<std::string> expected;
  std::vector<std::string> label_maps;
  auto add = [&](const std::string& split, const std::string& city, int sequences) {
    for (int sequence = 0; sequence < sequences; ++sequence) {
      char key[64];
      std::snprintf(key, sizeof key, "%s_%06d_000019", city.c_str(), sequence);
      const std::string folder = split + "/" + city + "/";
      expected.insert("leftImg8bit/" + folder + key + "_leftImg8bit.png");
      const std::string gt = "gtFine/" + folder + key + "_gtFine_";
      for (const char* kind : {"labelIds.png", "color.png", "instanceIds.png", "polygons.json"})
        expected.insert(gt + kind);
      label_maps.push_back(gt);
    }
  };
  add("train", "aachen", 3);
  add("train", "bochum", 3);
  add("val", "frankfurt", 2);
  const fs::path root = dir / "cs";
  EXPECT_EQ(FileTree(root), expected);

  // In the 19-class training table, and outside it.
  const std::set<int> in_table = {7,  8,  11, 12, 13, 17, 19, 20, 21, 22,
                                  23, 24, 25, 26, 27, 28, 31, 32, 33};
  for (const std::string& gt : label_maps) {
    const DecodedPng ids = ReadPng(root / (gt + "labelIds.png"));
    ASSERT_EQ(ids.error, "") << gt;
    EXPECT_EQ(ids.color_type, kGrey) << gt;
    EXPECT_EQ(ids.bit_depth, 8) << gt;
    EXPECT_EQ(ids.width, 64);
    EXPECT_EQ(ids.height, 48);
    const std::set<int> values = PngValues(ids);
    int inside = 0, outside = 0;
    for (int value : values) {
      EXPECT_LE(value, 33) << gt;
      (in_table.contains(value) ? inside : outside) += 1;
    }
    EXPECT_GT(inside, 0) << gt;
    EXPECT_GT(outside, 0) << gt;

    const DecodedPng colour = ReadPng(root / (gt + "color.png"));
    EXPECT_EQ(colour.color_type, kRgb) << gt;
    EXPECT_EQ(colour.bit_depth, 8) << gt;
    const DecodedPng instances = ReadPng(root / (gt + "instanceIds.png"));
    EXPECT_EQ(instances.color_type, kGrey) << gt;
    EXPECT_EQ(instances.bit_depth, 16) << gt;
    // Every instance id is its label id, or label id * 1000 + n for the
    // classes with instances.
    for (int value : PngValues(instances)) {
      const int label = value >= 1000 ? value / 1000 : value;
      EXPECT_TRUE(values.contains(label)) << gt << " " << value;
    }
    EXPECT_EQ(ReadText(root / (gt + "polygons.json")),
              "{\"imgHeight\": 48, \"imgWidth\": 64, \"objects\": []}\n");
  }
  for (const std::string& file : expected) {
    if (!file.ends_with("_leftImg8bit.png")) continue;
    const DecodedPng photo = ReadPng(root / file);
    EXPECT_EQ(photo.color_type, kRgb) << file;
    EXPECT_EQ(photo.bit_depth, 8) << file;
  }
}

TEST(DemoLayoutsTest, Ade20kNumbersEachSplitFromOneWithGreyLabelMaps) {
  TempDir dir;
  const DemoLayoutSummary summary = WriteOrFail(dir / "ade", DemoLayout::kAde20k, SmallOptions(1));
  EXPECT_EQ(summary.train_pairs, 6);
  EXPECT_EQ(summary.val_pairs, 2);
  std::set<std::string> expected;
  for (int n = 1; n <= 6; ++n) {
    char stem[32];
    std::snprintf(stem, sizeof stem, "ADE_train_%08d", n);
    expected.insert("images/training/" + std::string(stem) + ".jpg");
    expected.insert("annotations/training/" + std::string(stem) + ".png");
  }
  for (int n = 1; n <= 2; ++n) {
    char stem[32];
    std::snprintf(stem, sizeof stem, "ADE_val_%08d", n);
    expected.insert("images/validation/" + std::string(stem) + ".jpg");
    expected.insert("annotations/validation/" + std::string(stem) + ".png");
  }
  const fs::path root = dir / "ade";
  EXPECT_EQ(FileTree(root), expected);
  std::set<int> classes;
  for (const std::string& file : expected) {
    if (file.ends_with(".jpg")) {
      EXPECT_TRUE(ReadText(root / file).starts_with("\xFF\xD8\xFF")) << file;
      continue;
    }
    const DecodedPng png = ReadPng(root / file);
    ASSERT_EQ(png.error, "") << file;
    EXPECT_EQ(png.color_type, kGrey) << file;
    EXPECT_EQ(png.bit_depth, 8) << file;
    const std::set<int> values = PngValues(png);
    EXPECT_TRUE(values.contains(0)) << file;
    classes.insert(values.begin(), values.end());
  }
  EXPECT_LE(*classes.rbegin(), 150);
  EXPECT_GT(classes.size(), 3u);
}

// The threads only change how fast the files come, for every layout.
TEST(DemoLayoutsTest, SameBytesOnOneThreadAndOnThree) {
  for (DemoLayout layout : {DemoLayout::kVoc, DemoLayout::kCityscapes, DemoLayout::kAde20k}) {
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

// --dataset carvana is the make-demo of before, byte for byte.
TEST(DemoLayoutsTest, CarvanaIsWriteDemoDataset) {
  TempDir dir;
  const DemoOptions options = SmallOptions(2);
  const DemoLayoutSummary summary = WriteOrFail(dir / "layout", DemoLayout::kCarvana, options);
  EXPECT_EQ(summary.train_pairs, 8);
  EXPECT_EQ(summary.val_pairs, 0);
  ASSERT_TRUE(WriteDemoDataset(dir / "dataset", options, {}).ok());
  const std::set<std::string> tree = FileTree(dir / "dataset");
  EXPECT_EQ(tree.size(), 16u);
  ASSERT_EQ(FileTree(dir / "layout"), tree);
  for (const std::string& file : tree)
    EXPECT_EQ(ReadText(dir / "layout" / file), ReadText(dir / "dataset" / file)) << file;
}

}  // namespace
}  // namespace segfeed::demo
