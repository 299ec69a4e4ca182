// The presets of CamVid (both forms), COCO-Stuff, Mapillary Vistas (v1.2
// and v2.0), BDD100K and LoveDA end to end, against the real binary on
// make-demo's tree of each layout: check pairs exactly the split's files,
// counts every class by the published table (recomputed here from the
// files' own values) and the dataset's unlabelled value as ignore, names
// the classes, and bench streams the mmsegmentation-like recipe the same
// on one and two threads.

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <opencv2/imgcodecs.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_segfeed.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Quoted;
using testing::RunSegfeed;
using testing::TempDir;

constexpr int kIgnore = -1;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A mask file's pixel -> its class by the published table, or kIgnore.
using ClassOf = std::function<int(const cv::Vec3b& bgr, int value)>;

// The palette's colour -> index of make-demo's palette PNGs (VOC's colour
// map, one colour per index), which OpenCV reads as colours.
int VocIndex(const cv::Vec3b& bgr) {
  for (int i = 0; i < 256; ++i) {
    int r = 0, g = 0, b = 0;
    for (int bit = 0, c = i; bit < 8; ++bit, c >>= 3) {
      r |= ((c >> 0) & 1) << (7 - bit);
      g |= ((c >> 1) & 1) << (7 - bit);
      b |= ((c >> 2) & 1) << (7 - bit);
    }
    if (bgr[2] == r && bgr[1] == g && bgr[0] == b) return i;
  }
  return -2;
}

struct PresetCase {
  std::string preset;
  std::string tree;   // make-demo's --dataset
  int pairs;          // in the default split
  std::string masks;  // the split's mask folder, under the tree
  bool colour;        // masks read as colours (palette or RGB)
  ClassOf class_of;
};

std::vector<PresetCase> Cases() {
  // COCO-Stuff: the value (category id - 1) -> its rank among the published ids.
  std::map<int, int> coco;
  const std::string labels = ReadText(fs::path(SEGFEED_PUBLISHED_DIR) / "coco_stuff_labels.txt");
  const std::regex line(R"((\d+): )");
  for (auto it = std::sregex_iterator(labels.begin(), labels.end(), line);
       it != std::sregex_iterator(); ++it) {
    const int id = std::stoi((*it)[1]);
    if (id > 0) coco.emplace(id - 1, static_cast<int>(coco.size()));
  }
  // CamVid's release: colour -> class in line order, Void ignored.
  std::map<std::array<int, 3>, int> camvid;
  std::istringstream colours(ReadText(fs::path(SEGFEED_PUBLISHED_DIR) / "camvid_label_colors.txt"));
  int r, g, b, next_class = 0;
  std::string name;
  while (colours >> r >> g >> b >> name)
    camvid[{r, g, b}] = name == "Void" ? kIgnore : next_class++;
  return {
      {"camvid", "camvid", 9, "trainannot", false,
       [](const cv::Vec3b&, int v) { return v == 11 ? kIgnore : v; }},
      {"camvid32", "camvid32", 12, "LabeledApproved_full", true,
       [camvid](const cv::Vec3b& c, int) {
         return camvid.at({c[2], c[1], c[0]});
       }},
      {"coco_stuff", "coco_stuff", 9, "annotations/train2017", false,
       [coco](const cv::Vec3b&, int v) { return v == 255 ? kIgnore : coco.at(v); }},
      {"mapillary", "mapillary", 9, "training/v1.2/labels", true,
       [](const cv::Vec3b& c, int) { return VocIndex(c) == 65 ? kIgnore : VocIndex(c); }},
      {"mapillary_v2", "mapillary", 9, "training/v2.0/labels", true,
       [](const cv::Vec3b& c, int) { return VocIndex(c) == 123 ? kIgnore : VocIndex(c); }},
      {"bdd100k", "bdd100k", 9, "labels/sem_seg/masks/train", false,
       [](const cv::Vec3b&, int v) { return v == 255 ? kIgnore : v; }},
      {"loveda", "loveda", 9, "Train", false,
       [](const cv::Vec3b&, int v) { return v == 0 ? kIgnore : v - 1; }},
  };
}

class PublishedPresetsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    for (const char* name :
         {"camvid", "camvid32", "coco_stuff", "mapillary", "bdd100k", "loveda"}) {
      const CommandResult made = RunSegfeed("make-demo " + Quoted(*dir_ / name) + " --dataset " +
                                            name + " --count 12 --width 64 --height 48");
      ASSERT_EQ(made.exit_code, 0) << made.output;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string Data(const PresetCase& c) {
    return "--data " + Quoted(*dir_ / c.tree) + " --dataset " + c.preset;
  }
  static TempDir* dir_;
};
TempDir* PublishedPresetsTest::dir_ = nullptr;

// Every "id"/"name"/"pixels" of the report's class table, and its ignore pixels.
struct ClassTable {
  std::vector<std::string> names;
  std::vector<long long> pixels;
  long long ignore = -1;
};
ClassTable ReadClassTable(const std::string& json) {
  ClassTable table;
  const std::regex entry(R"re(\{"id":(\d+),"name":"([^"]*)","pixels":(\d+))re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), entry);
       it != std::sregex_iterator(); ++it) {
    table.names.push_back((*it)[2]);
    table.pixels.push_back(std::stoll((*it)[3]));
  }
  std::smatch ignore;
  if (std::regex_search(json, ignore, std::regex(R"("ignore_pixels":(\d+))")))
    table.ignore = std::stoll(ignore[1]);
  return table;
}

TEST_F(PublishedPresetsTest, CheckCountsEveryClassByThePublishedTable) {
  for (const PresetCase& c : Cases()) {
    TempDir out;
    const CommandResult r =
        RunSegfeed("check " + Data(c) + " --json " + Quoted(out / "report.json"));
    ASSERT_EQ(r.exit_code, 0) << c.preset << "\n" << r.output;
    EXPECT_NE(r.output.find("clean: 0 problems in " + std::to_string(c.pairs) + " pairs"),
              std::string::npos)
        << c.preset << "\n"
        << r.output;
    const ClassTable table = ReadClassTable(ReadText(out / "report.json"));
    // The expected counts, from the masks of the split as the files hold them.
    std::vector<long long> expected(table.pixels.size(), 0);
    long long ignore = 0;
    int masks = 0;
    for (const auto& file : fs::recursive_directory_iterator(*dir_ / c.tree / c.masks)) {
      const std::string path = file.path().string();
      if (!file.is_regular_file() || path.find("images_png") != std::string::npos) continue;
      ++masks;
      const cv::Mat mask = cv::imread(path, c.colour ? cv::IMREAD_COLOR : cv::IMREAD_UNCHANGED);
      ASSERT_FALSE(mask.empty()) << path;
      for (int y = 0; y < mask.rows; ++y) {
        for (int x = 0; x < mask.cols; ++x) {
          const int cls = c.colour ? c.class_of(mask.at<cv::Vec3b>(y, x), 0)
                                   : c.class_of({}, mask.at<uint8_t>(y, x));
          if (cls == kIgnore) {
            ++ignore;
          } else {
            ASSERT_GE(cls, 0) << path;
            ASSERT_LT(cls, static_cast<int>(expected.size())) << path;
            ++expected[static_cast<size_t>(cls)];
          }
        }
      }
    }
    EXPECT_EQ(masks, c.pairs) << c.preset;
    EXPECT_EQ(table.pixels, expected) << c.preset;
    EXPECT_EQ(table.ignore, ignore) << c.preset;
    EXPECT_GT(ignore, 0) << c.preset;  // each layout marks unlabelled pixels
    // Named, in the text table too.
    ASSERT_FALSE(table.names.empty()) << c.preset;
    for (const std::string& name : table.names) EXPECT_FALSE(name.empty()) << c.preset;
    // Appended, not " " + name + " ": GCC 12 sees a bogus overlap (-Wrestrict).
    std::string column = " ";
    column += table.names.front();
    column += " ";
    EXPECT_NE(r.output.find(column), std::string::npos) << r.output;
  }
}

TEST_F(PublishedPresetsTest, TheMmsegLikeRecipeStreamsTheSameOnOneAndTwoThreads) {
  for (const PresetCase& c : Cases()) {
    std::string digests[2];
    for (int threads : {1, 2}) {
      const CommandResult r = RunSegfeed(
          "bench " + Data(c) +
          " --resize keep_ratio --scale 0.5,2.0 --crop-max-class-ratio 0.75 --rotation 0 "
          "--flip-ud 0 --size 32 --epochs 1 --batch 3 --digest --threads " +
          std::to_string(threads));
      ASSERT_EQ(r.exit_code, 0) << c.preset << "\n" << r.output;
      std::string pairs = "(";  // appended: GCC 12's bogus -Wrestrict on "(" + ...
      pairs += std::to_string(c.pairs);
      pairs += " pairs)";
      EXPECT_NE(r.output.find(pairs), std::string::npos) << r.output;
      const size_t at = r.output.find("digest");
      ASSERT_NE(at, std::string::npos) << r.output;
      digests[threads - 1] = r.output.substr(at, r.output.find('\n', at) - at);
    }
    EXPECT_EQ(digests[0], digests[1]) << c.preset;
  }
}

// A preset's names name its classes: the user's own --num-classes leaves
// them out unless --class-names comes too, which must then fit.
TEST_F(PublishedPresetsTest, ClassNamesGiveWayToTheUsersOwnClasses) {
  const PresetCase bdd = Cases()[5];
  ASSERT_EQ(bdd.preset, "bdd100k");
  const CommandResult own = RunSegfeed("check " + Data(bdd) + " --num-classes 20");
  EXPECT_EQ(own.exit_code, 0) << own.output;
  EXPECT_EQ(own.output.find(" road "), std::string::npos) << own.output;
  TempDir dir;
  std::ofstream(dir / "names.txt") << "a\nb\n";
  const CommandResult wrong = RunSegfeed("bench " + Data(bdd) + " --num-classes 20 --class-names " +
                                         Quoted(dir / "names.txt"));
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("--class-names must name the --num-classes = 20 classes, one name "
                              "each (got 2 names)"),
            std::string::npos)
      << wrong.output;
  const CommandResult named = RunSegfeed("check " + Data(bdd) + " --num-classes 2 --class-names " +
                                         Quoted(dir / "names.txt") + " --label-map 0:0,13:1");
  EXPECT_EQ(named.exit_code, 0) << named.output;
  EXPECT_NE(named.output.find("        1 b "), std::string::npos) << named.output;
}

}  // namespace
}  // namespace segfeed
