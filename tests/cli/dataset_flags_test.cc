// The dataset flags of the commands against the real binary: every preset
// on make-demo's tree of its layout through check, bench and preview, the
// list and folder rules, and what a wrong layout or a contradiction says.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <opencv2/imgcodecs.hpp>
#include <string>

#include "cli/run_segfeed.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Quoted;
using testing::RunSegfeed;
using testing::TempDir;

// make-demo's trees, 12 pairs each (9 train, 3 val), made once.
class DatasetFlagsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    for (const char* name : {"voc", "cityscapes", "ade20k"}) {
      const CommandResult made = RunSegfeed("make-demo " + Quoted(*dir_ / name) + " --dataset " +
                                            name + " --count 12 --width 64 --height 48");
      ASSERT_EQ(made.exit_code, 0) << made.output;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static fs::path Root(const std::string& name) { return *dir_ / name; }
  static std::string Data(const std::string& name) {
    return "--data " + Quoted(Root(name)) + " --dataset " + name;
  }

  static TempDir* dir_;
};
TempDir* DatasetFlagsTest::dir_ = nullptr;

bool Has(const CommandResult& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

TEST_F(DatasetFlagsTest, CheckNamesTheRuleAndCountsEveryPreset) {
  // Cityscapes' colour maps, instance maps and polygons are ignored, not unpaired.
  const std::map<std::string, int> ignored = {{"voc", 0}, {"cityscapes", 27}, {"ade20k", 0}};
  for (const auto& [name, files] : ignored) {
    const CommandResult r = RunSegfeed("check " + Data(name));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Has(r, "  dataset          " + name)) << r.output;
    EXPECT_TRUE(Has(r, "  pairing          9 pairs, 0 unpaired images, 0 orphan masks, " +
                           std::to_string(files) + " ignored files\n"))
        << r.output;
    EXPECT_TRUE(Has(r, "clean: 0 problems in 9 pairs")) << r.output;
  }
  const CommandResult val = RunSegfeed("check " + Data("voc") + " --split val");
  EXPECT_TRUE(Has(val, "pairing          3 pairs")) << val.output;
  EXPECT_TRUE(Has(val, "ImageSets/Segmentation/val.txt")) << val.output;
}

TEST_F(DatasetFlagsTest, BenchAndPreviewRunOnEveryPresetTheSameOnOneAndTwoThreads) {
  for (const char* name : {"voc", "cityscapes", "ade20k"}) {
    std::string digests[2];
    for (int threads : {1, 2}) {
      const CommandResult r = RunSegfeed("bench " + Data(name) +
                                         " --epochs 1 --batch 3 --size 32x48 --digest --threads " +
                                         std::to_string(threads));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const size_t at = r.output.find("digest");
      ASSERT_NE(at, std::string::npos) << r.output;
      digests[threads - 1] = r.output.substr(at, r.output.find('\n', at) - at);
    }
    EXPECT_EQ(digests[0], digests[1]) << name;
    TempDir out;
    const CommandResult preview =
        RunSegfeed("preview " + Data(name) + " --count 4 --out " + Quoted(out / "grid.png"));
    EXPECT_EQ(preview.exit_code, 0) << preview.output;
    EXPECT_TRUE(fs::exists(out / "grid.png")) << name;
  }
}

// The value written out is the user's: the presets name only the value
// their files mark unlabelled pixels with (mask_ignore_value), so VOC's 255
// boundary and ADE20K's 0 become the user's -100 with no label_map; bench
// runs it, and preview draws it with the mask dtype bench would use
// (int64), its dump writing the -100 pixels as 255.
TEST_F(DatasetFlagsTest, TheUsersIgnoreIndexWinsOverThePresetsMaps) {
  const std::map<std::string, int> classes = {{"voc", 21}, {"cityscapes", 19}, {"ade20k", 150}};
  for (const auto& [name, num_classes] : classes) {
    for (const std::string dtype : {" --mask-dtype int64", " --mask-dtype int32", ""}) {
      const CommandResult bench = RunSegfeed(
          "bench " + Data(name) + " --epochs 1 --size 32x48 --ignore-index -100" + dtype);
      EXPECT_EQ(bench.exit_code, 0) << name << dtype << "\n" << bench.output;
    }
    TempDir out;
    const std::string preview_flags =
        "preview " + Data(name) + " --count 4 --no-augment --size 32x48 --ignore-index -100";
    const CommandResult preview = RunSegfeed(preview_flags + " --out " + Quoted(out / "grid.png"));
    ASSERT_EQ(preview.exit_code, 0) << name << "\n" << preview.output;
    EXPECT_TRUE(fs::exists(out / "grid.png")) << name;
    const CommandResult dump = RunSegfeed(preview_flags + " --dump " + Quoted(out / "dump"));
    ASSERT_EQ(dump.exit_code, 0) << name << "\n" << dump.output;
    int ignored = 0;
    // Cityscapes' masks lie in sub-folders (its cities).
    for (const fs::directory_entry& file : fs::recursive_directory_iterator(out / "dump")) {
      if (!file.path().string().ends_with("_mask.png")) continue;
      const cv::Mat mask = cv::imread(file.path().string(), cv::IMREAD_UNCHANGED);
      ASSERT_EQ(mask.type(), CV_8UC1) << file.path();
      for (auto it = mask.begin<uint8_t>(); it != mask.end<uint8_t>(); ++it) {
        EXPECT_TRUE(*it < num_classes || *it == 255) << file.path() << ": " << int{*it};
        ignored += *it == 255;
      }
    }
    // ADE20K's "other" (0) is everywhere between its objects, VOC's band
    // on every outline.
    if (name != "cityscapes") {
      EXPECT_GT(ignored, 0) << name;
    }
  }
  // uint8 cannot hold -100: both flags the user gave are named.
  const CommandResult uint8 =
      RunSegfeed("preview " + Data("ade20k") + " --ignore-index -100 --mask-dtype uint8 --out " +
                 Quoted(*dir_ / "never.png"));
  EXPECT_EQ(uint8.exit_code, 2) << uint8.output;
  EXPECT_TRUE(Has(uint8, "--ignore-index must be in [0, 255] for --mask-dtype uint8 (got -100)"))
      << uint8.output;
}

// A value a preset set is never blamed on a flag the user did not give:
// the message says it is the preset's.
TEST_F(DatasetFlagsTest, APresetsValueIsNamedAsThePresets) {
  for (const std::string command : {"bench", "check", "preview --out x.png", "plan"}) {
    const CommandResult r = RunSegfeed(command + " " + Data("cityscapes") + " --num-classes 10");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_TRUE(Has(r,
                    ": the cityscapes preset's --label-map must map to class ids in [0, 10) or "
                    "--ignore-index 255 (got "))
        << command << "\n"
        << r.output;
    EXPECT_FALSE(Has(r, ": --label-map:")) << r.output;
  }
  // The user's own --label-map is the user's.
  const CommandResult own =
      RunSegfeed("bench " + Data("cityscapes") + " --num-classes 10 --label-map 7:12");
  EXPECT_TRUE(Has(own,
                  "segfeed bench: --label-map must map to class ids in [0, 10) or "
                  "--ignore-index 255 (got 7:12)"))
      << own.output;
}

// --mask-ignore-value is the files' value: the user's wins over VOC's 255,
// a file value outside what a mask holds or one that is a class is refused
// in the flag's words, and another value leaves VOC's 255 out of range.
TEST_F(DatasetFlagsTest, TheUsersMaskIgnoreValueWinsOverThePresets) {
  const CommandResult range = RunSegfeed("bench " + Data("voc") + " --mask-ignore-value 65536");
  EXPECT_EQ(range.exit_code, 2) << range.output;
  EXPECT_TRUE(Has(range, "--mask-ignore-value must be in [0, 65535]")) << range.output;
  const CommandResult a_class = RunSegfeed("bench " + Data("voc") + " --mask-ignore-value 20");
  EXPECT_EQ(a_class.exit_code, 2) << a_class.output;
  EXPECT_TRUE(Has(a_class,
                  "--mask-ignore-value must not be a class id in [0, --num-classes = 21) "
                  "without a --label-map (got 20)"))
      << a_class.output;
  const CommandResult other =
      RunSegfeed("bench " + Data("voc") + " --epochs 1 --size 32x48 --mask-ignore-value 254");
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_TRUE(Has(other, "nor mask_ignore_value 254: 255 (")) << other.output;
}

TEST_F(DatasetFlagsTest, ListsOfKeysAndOfPaths) {
  TempDir dir;
  const fs::path voc = Root("voc");
  std::ifstream train(voc / "ImageSets" / "Segmentation" / "train.txt");
  std::string first, second;
  train >> first >> second;
  std::ofstream(dir / "keys.txt") << second << "\n# a comment\n" << first << "\nnope\n";
  const CommandResult keys =
      RunSegfeed("check --list " + Quoted(dir / "keys.txt") + " --images " +
                 Quoted(voc / "JPEGImages") + " --masks " + Quoted(voc / "SegmentationClass") +
                 " --mask-suffix= --mask-mode labels " + "--num-classes 21");
  EXPECT_EQ(keys.exit_code, 1) << keys.output;  // "nope" is not there
  EXPECT_TRUE(Has(keys, "pairing          2 pairs, 1 unpaired images")) << keys.output;
  EXPECT_TRUE(Has(keys, "no image with this key, listed on line 4 of")) << keys.output;
  EXPECT_TRUE(Has(keys, "[missing_image]")) << keys.output;

  std::ofstream(dir / "pairs.csv")
      << "JPEGImages/" << first << ".jpg,SegmentationClass/" << first << ".png\n";
  const CommandResult paths =
      RunSegfeed("bench --list " + Quoted(dir / "pairs.csv") + " --data " + Quoted(voc) +
                 " --epochs 1 --batch 1 --size 16 " + "--mask-mode labels --num-classes 21");
  EXPECT_EQ(paths.exit_code, 0) << paths.output;
  EXPECT_TRUE(Has(paths, "(1 pairs)")) << paths.output;
}

// A list under --data names the VOC tree by absolute paths: check names the
// line and goes on with the others, the loader refuses to start under
// --on-error fail, skips the line under skip, and --allow-outside-root
// takes it.
TEST_F(DatasetFlagsTest, AListNamingFilesOutsideItsRootIsRefusedUnlessAllowed) {
  TempDir dir;
  const fs::path voc = Root("voc");
  std::ifstream train(voc / "ImageSets" / "Segmentation" / "train.txt");
  std::string first, second;
  train >> first >> second;
  for (const auto& [folder, extension] :
       {std::pair{"JPEGImages", ".jpg"}, std::pair{"SegmentationClass", ".png"}}) {
    fs::create_directories(dir / "data" / folder);
    fs::copy_file(voc / folder / (first + extension), dir / "data" / folder / (first + extension));
  }
  const fs::path outside_image = voc / "JPEGImages" / (second + ".jpg");
  std::ofstream(dir / "data" / "pairs.csv")
      << outside_image.string() << ",SegmentationClass/" << first << ".png\n"
      << "JPEGImages/" << first << ".jpg,SegmentationClass/" << first << ".png\n";
  const std::string dataset = " --list " + Quoted(dir / "data" / "pairs.csv") + " --data " +
                              Quoted(dir / "data") + " --mask-mode labels --num-classes 21";

  const CommandResult check = RunSegfeed("check" + dataset);
  EXPECT_EQ(check.exit_code, 1) << check.output;
  EXPECT_TRUE(Has(check, outside_image.string() + ": image path '" + outside_image.string() +
                             "', listed on line 1 of " + (dir / "data" / "pairs.csv").string() +
                             ", is absolute, not under the dataset root " +
                             (dir / "data").string() +
                             ": refused, allow it with --allow-outside-root "
                             "(allow_outside_root=True) [outside_root]"))
      << check.output;
  EXPECT_TRUE(Has(check, "pairing          1 pairs")) << check.output;
  EXPECT_TRUE(Has(check, "outside_root 1")) << check.output;

  const std::string bench = "bench" + dataset + " --epochs 1 --batch 1 --size 16";
  const CommandResult fail = RunSegfeed(bench);
  EXPECT_EQ(fail.exit_code, 1) << fail.output;
  EXPECT_TRUE(Has(fail, "listed on line 1 of")) << fail.output;
  EXPECT_TRUE(Has(fail, "[outside_root]")) << fail.output;
  const CommandResult skip = RunSegfeed(bench + " --on-error skip");
  EXPECT_EQ(skip.exit_code, 0) << skip.output;
  EXPECT_TRUE(Has(skip, "(1 pairs)")) << skip.output;
  const CommandResult allowed = RunSegfeed(bench + " --allow-outside-root");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
  EXPECT_TRUE(Has(allowed, "(2 pairs)")) << allowed.output;
  const CommandResult clean = RunSegfeed("check" + dataset + " --allow-outside-root");
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  EXPECT_TRUE(Has(clean, "pairing          2 pairs")) << clean.output;
}

TEST_F(DatasetFlagsTest, AWrongLayoutExitsOneSayingWhatItFound) {
  const CommandResult carvana = RunSegfeed("check --data " + Quoted(Root("voc")));
  EXPECT_EQ(carvana.exit_code, 1) << carvana.output;
  EXPECT_TRUE(Has(carvana,
                  "found ImageSets/, JPEGImages/, SegmentationClass/: this looks like "
                  "the voc layout, try --dataset voc"))
      << carvana.output;
  const CommandResult split = RunSegfeed("bench " + Data("cityscapes") + " --split test");
  EXPECT_EQ(split.exit_code, 1) << split.output;
  EXPECT_TRUE(Has(split, "no split 'test': leftImg8bit/ has train/, val/")) << split.output;
}

TEST_F(DatasetFlagsTest, ContradictionsAreUsageErrorsInTheFlagsWords) {
  for (const auto& [arguments, message] : std::map<std::string, std::string>{
           {"--images x", "--images needs --masks"},
           {"--data x --dataset voc --images y", "--images does not go with --dataset voc"},
           {"--dataset voc", "the voc preset needs --data, the folder that holds its layout"},
           {"--data x --dataset pascal", "dataset must be one of carvana, voc, cityscapes, ade20k"},
           {"--data x --split val", "the carvana layout has no splits"},
           {"--images x --masks y --allow-outside-root",
            "--allow-outside-root does not go with --dataset folders"}}) {
    const CommandResult r = RunSegfeed("check " + arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.output;
    EXPECT_TRUE(Has(r, message)) << arguments << "\n" << r.output;
  }
  const CommandResult help = RunSegfeed("bench --help");
  for (const char* flag : {"--dataset", "--split", "--images", "--masks", "--image-suffix",
                           "--mask-suffix", "--image-ext", "--mask-ext", "--recursive", "--list",
                           "--list-root", "--allow-outside-root"}) {
    EXPECT_TRUE(Has(help, flag)) << flag;
  }
}

}  // namespace
}  // namespace segfeed
