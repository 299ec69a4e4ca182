// The presets' class tables and label options against the datasets' own
// published values (tests/dataset/published/, in each dataset's file
// format), entry by entry: a table off by one is the bug these catch.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/option_table.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using Rgb = std::array<uint8_t, 3>;

struct Published {
  std::string name;
  std::optional<Rgb> color;
  int id = -1;        // the value the dataset's masks store, where the file says
  int train_id = -1;  // cityscapes: the training id
};

std::string ReadPublished(const std::string& name) {
  std::ifstream file(fs::path(SEGFEED_PUBLISHED_DIR) / name);
  EXPECT_TRUE(file) << name;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Rgb ToRgb(const std::string& r, const std::string& g, const std::string& b) {
  return {static_cast<uint8_t>(std::stoi(r)), static_cast<uint8_t>(std::stoi(g)),
          static_cast<uint8_t>(std::stoi(b))};
}

// Every match of `pattern` in `text`: its groups, as strings (a match
// object would point into `text`).
std::vector<std::vector<std::string>> Matches(const std::string& text, const std::string& pattern) {
  std::vector<std::vector<std::string>> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    std::vector<std::string> groups;
    for (const auto& group : *it) groups.push_back(group.str());
    found.push_back(std::move(groups));
  }
  return found;
}

// "R G B<tabs>Name" lines (label_colors.txt form), comments skipped.
std::vector<Published> LabelColours(const std::string& text) {
  std::vector<Published> rows;
  for (const std::vector<std::string>& m : Matches(text, R"((?:^|\n)(\d+) (\d+) (\d+)\t+([^\n]+))"))
    rows.push_back({m[4], ToRgb(m[1], m[2], m[3])});
  return rows;
}

// The preset's label options as a loader gets them.
LoaderOptions PresetOptions(const std::string& name, const fs::path& root = "/data") {
  LoaderOptions options;
  ApplyDatasetOptions(DatasetPreset(name, root, ""), options);
  return options;
}

std::map<int, int> LabelMap(const LoaderOptions& options) {
  std::map<int, int> map;
  for (const LabelMapEntry& entry : options.decode.label_map) map[entry.source] = entry.target;
  return map;
}

void ExpectClasses(const std::string& preset, const std::vector<Published>& published) {
  const std::span<const DatasetClass> classes = DatasetPresetClasses(preset);
  const LoaderOptions options = PresetOptions(preset);
  ASSERT_EQ(classes.size(), published.size()) << preset;
  ASSERT_EQ(options.decode.class_names.size(), published.size()) << preset;
  EXPECT_EQ(options.decode.num_classes, static_cast<int>(published.size())) << preset;
  for (size_t i = 0; i < published.size(); ++i) {
    EXPECT_EQ(classes[i].name, published[i].name) << preset << " class " << i;
    EXPECT_EQ(options.decode.class_names[i], published[i].name) << preset << " class " << i;
    EXPECT_EQ(classes[i].color, published[i].color) << preset << " class " << i;
  }
}

TEST(ClassTablesTest, CamvidIsSegNetsElevenClassesWithVoidIgnored) {
  std::vector<Published> published = LabelColours(ReadPublished("segnet_camvid_classes.txt"));
  ASSERT_EQ(published.size(), 12u);
  EXPECT_EQ(published.back().name, "Unlabelled");
  published.pop_back();
  ExpectClasses("camvid", published);
  const LoaderOptions options = PresetOptions("camvid");
  EXPECT_EQ(options.decode.mask_ignore_value, 11);
  EXPECT_TRUE(options.decode.label_map.empty());  // grey values are the classes
}

TEST(ClassTablesTest, Camvid32ReadsTheReleasesLabelColorsFileVoidIgnored) {
  testing::TempDir root;
  const std::string text = ReadPublished("camvid_label_colors.txt");
  std::ofstream(root.path() / "label_colors.txt") << text;
  const std::vector<Published> published = LabelColours(text);
  ASSERT_EQ(published.size(), 32u);
  const LoaderOptions options = PresetOptions("camvid32", root.path());
  EXPECT_EQ(options.decode.num_classes, 31);
  ASSERT_EQ(options.decode.mask_colors.size(), 32u);
  ASSERT_EQ(options.decode.class_names.size(), 31u);
  int next_class = 0;
  for (size_t line = 0; line < published.size(); ++line) {
    const MaskColor& colour = options.decode.mask_colors[line];
    EXPECT_EQ(colour.rgb, *published[line].color) << "line " << line + 1;
    if (published[line].name == "Void") {
      EXPECT_TRUE(colour.ignored) << "line " << line + 1;
      continue;
    }
    EXPECT_FALSE(colour.ignored) << "line " << line + 1;
    EXPECT_EQ(colour.label, next_class) << published[line].name;
    EXPECT_EQ(options.decode.class_names[static_cast<size_t>(next_class)], published[line].name);
    ++next_class;
  }
  EXPECT_EQ(next_class, 31);
  EXPECT_TRUE(DatasetPresetClasses("camvid32").empty());  // the file is the table
}

TEST(ClassTablesTest, CocoStuffMapsTheAnnotatedCategoriesInIdOrder) {
  std::vector<Published> published;
  for (const std::vector<std::string>& m :
       Matches(ReadPublished("coco_stuff_labels.txt"), R"((?:^|\n)(\d+): ([^\n]+))")) {
    published.push_back({m[2], std::nullopt, std::stoi(m[1])});
  }
  ASSERT_EQ(published.front().name, "unlabeled");
  published.erase(published.begin());
  ASSERT_EQ(published.size(), 171u);
  ExpectClasses("coco_stuff", published);
  const LoaderOptions options = PresetOptions("coco_stuff");
  EXPECT_EQ(options.decode.mask_ignore_value, 255);
  // The stuffthingmaps store the category id - 1; every other value of
  // 0-181 (the never-annotated ids) has no class.
  std::map<int, int> expected;
  for (size_t i = 0; i < published.size(); ++i) expected[published[i].id - 1] = static_cast<int>(i);
  EXPECT_EQ(LabelMap(options), expected);
  for (int unused : {11, 25, 28, 29, 44, 65, 67, 68, 70, 82, 90})
    EXPECT_EQ(expected.count(unused), 0u);
}

std::vector<Published> MapillaryLabels(const std::string& file) {
  std::vector<Published> labels;
  for (const std::vector<std::string>& m : Matches(
           ReadPublished(file), R"#("readable": "([^"]+)", "color": \[(\d+), (\d+), (\d+)\])#")) {
    labels.push_back({m[1], ToRgb(m[2], m[3], m[4]), static_cast<int>(labels.size())});
  }
  return labels;
}

TEST(ClassTablesTest, MapillaryIsItsConfigsLabelsTheLastOneIgnored) {
  for (const auto& [preset, file, count] :
       {std::tuple{"mapillary", "mapillary_config_v1.2.json", 66},
        std::tuple{"mapillary_v2", "mapillary_config_v2.0.json", 124}}) {
    std::vector<Published> labels = MapillaryLabels(file);
    ASSERT_EQ(labels.size(), static_cast<size_t>(count)) << file;
    EXPECT_EQ(labels.back().name, "Unlabeled") << file;
    const LoaderOptions options = PresetOptions(preset);
    EXPECT_EQ(options.decode.mask_ignore_value, labels.back().id) << preset;
    EXPECT_TRUE(options.decode.label_map.empty()) << preset;  // the PNG index is the class
    labels.pop_back();
    ExpectClasses(preset, labels);
  }
}

std::vector<Published> CityscapesLabels() {
  std::vector<Published> labels;
  for (const std::vector<std::string>& m : Matches(
           ReadPublished("cityscapes_labels.py"),
           R"(Label\(\s*'([^']+)'\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*\((\d+), (\d+), (\d+)\))")) {
    labels.push_back({m[1], ToRgb(m[4], m[5], m[6]), std::stoi(m[2]), std::stoi(m[3])});
  }
  return labels;
}

// The 19 trained labels in train-id order.
std::vector<Published> TrainClasses(const std::vector<Published>& labels) {
  std::vector<Published> classes(19);
  for (const Published& label : labels) {
    if (label.train_id >= 0 && label.train_id < 19)
      classes[static_cast<size_t>(label.train_id)] = label;
  }
  return classes;
}

TEST(ClassTablesTest, CityscapesMapsLabelIdsToTrainIdsAsLabelsPyDoes) {
  const std::vector<Published> labels = CityscapesLabels();
  ASSERT_EQ(labels.size(), 35u);
  ExpectClasses("cityscapes", TrainClasses(labels));
  std::map<int, int> expected;
  for (const Published& label : labels) {
    if (label.train_id >= 0 && label.train_id < 19) expected[label.id] = label.train_id;
  }
  EXPECT_EQ(LabelMap(PresetOptions("cityscapes")), expected);
}

TEST(ClassTablesTest, Bdd100kMasksHoldCityscapesTrainIdsAsTheyAre) {
  ExpectClasses("bdd100k", TrainClasses(CityscapesLabels()));
  const LoaderOptions options = PresetOptions("bdd100k");
  EXPECT_EQ(options.decode.mask_ignore_value, 255);
  EXPECT_TRUE(options.decode.label_map.empty());
}

TEST(ClassTablesTest, LovedaMapsValuesOneToSevenToClassesZeroToSixZeroIgnored) {
  std::vector<Published> published;
  for (const std::vector<std::string>& m :
       Matches(ReadPublished("loveda_color_map.py"), R"((\w+)=\((\d+), (\d+), (\d+)\))")) {
    std::string name = m[1];
    name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
    published.push_back({name, ToRgb(m[2], m[3], m[4])});
  }
  ASSERT_EQ(published.size(), 7u);
  ExpectClasses("loveda", published);
  const LoaderOptions options = PresetOptions("loveda");
  EXPECT_EQ(options.decode.mask_ignore_value, 0);
  EXPECT_EQ(LabelMap(options),
            (std::map<int, int>{{1, 0}, {2, 1}, {3, 2}, {4, 3}, {5, 4}, {6, 5}, {7, 6}}));
}

TEST(ClassTablesTest, EveryLabelPresetNamesItsClassesAndCarvanaNone) {
  for (std::string_view preset : DatasetPresetNames()) {
    if (preset == "carvana" || preset == "camvid32") {
      EXPECT_TRUE(DatasetPresetClasses(preset).empty()) << preset;
      continue;
    }
    const LoaderOptions options = PresetOptions(std::string(preset));
    EXPECT_EQ(options.decode.class_names.size(), DatasetPresetClasses(preset).size()) << preset;
    EXPECT_EQ(options.decode.num_classes, static_cast<int>(DatasetPresetClasses(preset).size()))
        << preset;
  }
  EXPECT_TRUE(DatasetPresetClasses("no_such_preset").empty());
}

}  // namespace
}  // namespace segfeed
