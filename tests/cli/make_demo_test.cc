// Runs the segfeed binary itself: exit codes and messages of make-demo.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <opencv2/imgcodecs.hpp>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cli/python_checks.h"
#include "cli/run_segfeed.h"
#include "decode/gif_decoder.h"
#include "support/png_reader.h"
#include "temp_dir.h"

namespace {

using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

// Each (flags, message): make-demo exits 2 with the message and writes nothing.
template <size_t N>
void ExpectRefused(const std::pair<const char*, const char*> (&cases)[N]) {
  for (const auto& [flags, message] : cases) {
    TempDir dir;
    const auto r = RunSegfeed("make-demo '" + (dir / "d").string() + "' " + flags);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << flags << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "d")) << flags;
  }
}

TEST(MakeDemoTest, WritesPairsAndPrintsMeanSize) {
  TempDir dir;
  const auto r =
      RunSegfeed("make-demo '" + (dir / "demo").string() + "' --count 3 --width 200 --height 120");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 3 pairs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mean JPEG"), std::string::npos) << r.output;
}

std::vector<char> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The acceptance check, end to end through the command: two runs into
// fresh folders agree byte for byte, and libjpeg-turbo's own djpeg decodes
// every photo.
TEST(MakeDemoTest, TwoRunsAreByteIdenticalAndDjpegDecodesEveryPhoto) {
  TempDir dir;
  for (const char* name : {"a", "b"}) {
    const auto r = RunSegfeed("make-demo '" + (dir / name).string() + "' --count 20");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "a")) {
    if (!entry.is_regular_file()) continue;
    const auto relative = std::filesystem::relative(entry.path(), dir / "a");
    EXPECT_EQ(ReadBytes(entry.path()), ReadBytes(dir / "b" / relative)) << relative;
    ++files;
  }
  EXPECT_EQ(files, 40u);

  if (std::system("command -v djpeg >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "djpeg (libjpeg-turbo-progs) not installed";
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir / "a" / "train")) {
    const std::string command = "djpeg -outfile /dev/null '" + entry.path().string() + "' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << entry.path();
  }
}

// Photos and masks are files like any other the tools write: the same
// permissions for both, what the umask allows of 0666, and no temporary
// file left behind.
TEST(MakeDemoTest, PhotosAndMasksGetTheSameModeFromTheUmask) {
  TempDir dir;
  for (const char* mask : {"022", "002"}) {
    const auto out = dir / mask;
    const auto r = segfeed::testing::RunSegfeedScript(std::string("umask ") + mask +
                                                      "; \"$SEGFEED\" make-demo '" + out.string() +
                                                      "' --count 2 --width 64 --height 48 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const mode_t expected = 0666 & ~static_cast<mode_t>(std::stoi(mask, nullptr, 8));
    size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(out)) {
      if (entry.is_directory()) continue;
      struct stat info {};
      ASSERT_EQ(::stat(entry.path().c_str(), &info), 0);
      EXPECT_EQ(info.st_mode & 07777, expected) << entry.path() << " under umask " << mask;
      EXPECT_NE(entry.path().filename().string().front(), '.')
          << "temporary file left: " << entry.path();
      ++files;
    }
    EXPECT_EQ(files, 4u);
  }
}

// The folder's name is printed escaped, on stdout and in errors.
TEST(MakeDemoTest, OutDirNameIsPrintedEscaped) {
  TempDir dir;
  const auto out = dir / "demo \x1b[2J\n\xff";
  auto r = RunSegfeed("make-demo '" + out.string() + "' --count 1 --width 64 --height 48");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      r.output.find("wrote 1 pairs to " + dir.path().string() + "/demo \\x1b[2J\\n\\xff (train/"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(r.output, dir / "output.txt"), "");
  r = RunSegfeed("make-demo '" + out.string() +
                 "' --count 1 --width 64 --height 48");  // not empty now
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/demo \\x1b[2J\\n\\xff' is not empty"), std::string::npos) << r.output;
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(r.output, dir / "output.txt"), "");
}

TEST(MakeDemoTest, UnwritableOutDirIsAClearError) {
  TempDir dir;
  const auto blocker = dir / "a-file";
  std::ofstream(blocker) << "not a directory";
  const auto r = RunSegfeed("make-demo '" + (blocker / "demo").string() + "' --count 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find((blocker / "demo").string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot create directory"), std::string::npos) << r.output;
}

// A mistyped OUT_DIR must not mix demo files into a real dataset.
TEST(MakeDemoTest, RefusesANonEmptyFolderAndNamesWhatIsThere) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data" / "train");
  std::ofstream(dir / "data" / "notes.txt") << "mine";
  const auto r =
      RunSegfeed("make-demo '" + (dir / "data").string() + "' --count 2 --width 64 --height 48");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("OUT_DIR '" + (dir / "data").string() +
                          "' is not empty (2 entries: notes.txt, train/)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(dir / "data" / "train"));
  EXPECT_FALSE(std::filesystem::exists(dir / "data" / "train_masks"));

  // An empty folder is as good as a new one.
  std::filesystem::create_directory(dir / "empty");
  const auto empty =
      RunSegfeed("make-demo '" + (dir / "empty").string() + "' --count 2 --width 64 --height 48");
  EXPECT_EQ(empty.exit_code, 0) << empty.output;
}

TEST(MakeDemoTest, ForceWritesIntoANonEmptyFolderAndKeepsOtherFiles) {
  TempDir dir;
  std::filesystem::create_directories(dir / "data");
  std::ofstream(dir / "data" / "notes.txt") << "mine";
  const auto r = RunSegfeed("make-demo '" + (dir / "data").string() +
                            "' --count 2 --width 64 --height 48 --force");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 2 pairs"), std::string::npos) << r.output;
  EXPECT_EQ(ReadBytes(dir / "data" / "notes.txt"), (std::vector<char>{'m', 'i', 'n', 'e'}));
  const auto again = RunSegfeed("make-demo '" + (dir / "data").string() +
                                "' --count 2 --width 64 --height 48 --force");
  EXPECT_EQ(again.exit_code, 0) << again.output;
}

TEST(MakeDemoTest, HelpDocumentsForce) {
  const auto r = RunSegfeed("make-demo --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
}

TEST(MakeDemoTest, HelpListsTheLabelMapFlagsWithTheirDefaults) {
  const auto r = RunSegfeed("make-demo --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* expected :
       {"--classes", "(default 0)", "--mask-format", "one of palette, grey (default palette)",
        "--image-format", "one of jpeg, png (default jpeg)", "--threads", "--dataset NAME",
        "(default carvana)", "OUT_DIR/ImageSets/Segmentation/{train,val,trainval}.txt",
        "OUT_DIR/gtFine/<split>/<city>/", "OUT_DIR/annotations/training/ADE_train_00000001.png"}) {
    EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
  }
}

// --classes 5 through the command: VOC-style palette label maps beside PNG
// photos, every class somewhere in the set, and the same bytes on one
// thread as on four.
TEST(MakeDemoTest, ClassesWritesPaletteLabelMapsTheSameOnAnyThreadCount) {
  TempDir dir;
  for (const char* threads : {"1", "4"}) {
    const auto r = RunSegfeed("make-demo '" + (dir / threads).string() +
                              "' --count 6 --width 200 --height 140 --classes 5 "
                              "--image-format png --threads " +
                              threads);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("5 classes, mean PNG"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("mean palette PNG"), std::string::npos) << r.output;
  }
  std::set<int> indices;
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "1")) {
    if (!entry.is_regular_file()) continue;
    const auto relative = std::filesystem::relative(entry.path(), dir / "1");
    EXPECT_EQ(ReadBytes(entry.path()), ReadBytes(dir / "4" / relative)) << relative;
    ++files;
    const std::string name = entry.path().filename().string();
    if (name.ends_with("_mask.png")) {
      const segfeed::testing::DecodedPng png = segfeed::testing::ReadPng(entry.path());
      ASSERT_EQ(png.error, "");
      ASSERT_EQ(png.color_type, 3) << name;
      indices.insert(png.samples.begin(), png.samples.end());
    } else {
      EXPECT_TRUE(name.ends_with(".png")) << name;
      const cv::Mat photo = cv::imread(entry.path().string(), cv::IMREAD_UNCHANGED);
      EXPECT_EQ(photo.type(), CV_8UC3) << name;
      EXPECT_EQ(photo.cols, 200) << name;
    }
  }
  EXPECT_EQ(files, 12u);
  EXPECT_EQ(indices, (std::set<int>{0, 1, 2, 3, 4, 255}));
}

TEST(MakeDemoTest, GreyLabelMapsHoldClassIdsOnly) {
  TempDir dir;
  const auto r = RunSegfeed("make-demo '" + dir.path().string() +
                            "/g' --count 4 --width 160 --height 100 --classes 3 "
                            "--mask-format grey");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mean JPEG"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mean grey PNG"), std::string::npos) << r.output;
  std::set<int> values;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "g" / "train_masks")) {
    const cv::Mat mask = cv::imread(entry.path().string(), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(mask.type(), CV_8UC1) << entry.path();
    for (int y = 0; y < mask.rows; ++y)
      for (int x = 0; x < mask.cols; ++x) values.insert(mask.at<uint8_t>(y, x));
  }
  EXPECT_EQ(values, (std::set<int>{0, 1, 2}));
  EXPECT_TRUE(std::filesystem::is_directory(dir / "g" / "train"));
}

// The flags that only apply to one form of dataset say so instead of being
// ignored.
TEST(MakeDemoTest, LabelMapFlagsThatDoNotApplyAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"--classes 1", "--classes must be 0 (binary masks) or in [2, 255] (got 1)"},
      {"--classes 256", "--classes must be in [0, 255] (got 256)"},
      {"--mask-format grey", "--mask-format applies to label maps: give --classes N too"},
      {"--classes 4 --mask-rows interlaced", "--mask-rows applies to GIF masks"},
      {"--image-format png --quality 80", "--quality applies to JPEG photos"},
      {"--classes 4 --mask-format rgb", "--mask-format must be one of palette, grey (got 'rgb')"},
  };
  ExpectRefused(cases);
}

// A dataset layout fixes its classes and formats: the flags that would
// change them are refused, not ignored, and nothing is written.
TEST(MakeDemoTest, DatasetLayoutsRefuseTheFlagsTheyFix) {
  const std::pair<const char*, const char*> cases[] = {
      {"--dataset voc --classes 21",
       "--classes cannot be combined with --dataset voc, which writes that dataset's own classes "
       "and file formats"},
      {"--dataset cityscapes --mask-format grey",
       "--mask-format cannot be combined with --dataset cityscapes"},
      {"--dataset ade20k --image-format png",
       "--image-format cannot be combined with --dataset ade20k"},
      {"--dataset voc --mask-rows interlaced", "--mask-rows cannot be combined with --dataset voc"},
      {"--dataset cityscapes --quality 80", "--quality applies to JPEG photos"},
      {"--dataset voc --count 1", "--dataset voc needs --count 2 or more"},
      {"--dataset coco",
       "--dataset must be one of carvana, voc, cityscapes, ade20k, camvid, camvid32, coco_stuff, "
       "mapillary, mapillary_v2, bdd100k, loveda (got 'coco')"},
  };
  ExpectRefused(cases);
}

// The summary names the layout's folders and splits; carvana's stays as it was.
TEST(MakeDemoTest, DatasetLayoutsNameTheirFoldersInTheSummary) {
  const std::pair<const char*, const char*> cases[] = {
      {"voc",
       "wrote 8 pairs to %s (JPEGImages/, SegmentationClass/, "
       "ImageSets/Segmentation/{train,val,trainval}.txt): 6 train, 2 val, 2 photos without labels, "
       "64x48, mean JPEG"},
      {"cityscapes",
       "wrote 8 pairs to %s (leftImg8bit/{train,val}/<city>/, gtFine/{train,val}/<city>/): 6 "
       "train, 2 val, 64x48, mean PNG"},
      {"ade20k",
       "wrote 8 pairs to %s (images/{training,validation}/, annotations/{training,validation}/): 6 "
       "train, 2 val, 64x48, mean JPEG"},
      {"carvana", "wrote 8 pairs to %s (train/, train_masks/): 64x48, mean JPEG"},
  };
  for (const auto& [layout, pattern] : cases) {
    TempDir dir;
    const std::string out = (dir / layout).string();
    const auto r =
        RunSegfeed("make-demo '" + out + "' --count 8 --width 64 --height 48 --dataset " + layout);
    ASSERT_EQ(r.exit_code, 0) << layout << "\n" << r.output;
    std::string expected = pattern;
    expected.replace(expected.find("%s"), 2, out);
    EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
  }
}

TEST(MakeDemoTest, UsageErrorsExitTwoAndNameTheOption) {
  auto r = RunSegfeed("make-demo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("missing OUT_DIR"), std::string::npos) << r.output;
  r = RunSegfeed("make-demo out --cout 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--cout"), std::string::npos) << r.output;
  r = RunSegfeed("make-demo out --quality 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--quality must be in [1, 100] (got 0)"), std::string::npos) << r.output;
}

std::span<const uint8_t> AsBytes(const std::vector<char>& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

// --mask-rows interlaced / mixed write the same masks with their rows in
// GIF's four interlaced passes (every other one for mixed): other bytes,
// the same pixels.
TEST(MakeDemoTest, InterlacedMasksHoldTheSamePixels) {
  TempDir dir;
  for (const char* rows : {"sequential", "interlaced", "mixed"}) {
    const auto r = RunSegfeed("make-demo '" + (dir / rows).string() +
                              "' --count 4 --width 90 --height 61 --mask-rows " + rows);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  segfeed::decode::GifDecoder decoder({});
  for (const auto& entry :
       std::filesystem::directory_iterator(dir / "sequential" / "train_masks")) {
    const std::string name = entry.path().filename().string();
    const std::vector<char> sequential = ReadBytes(entry.path());
    segfeed::decode::MaskImage reference;
    ASSERT_TRUE(decoder.Decode(AsBytes(sequential), name, &reference).ok());
    for (const char* rows : {"interlaced", "mixed"}) {
      const std::vector<char> other = ReadBytes(dir / rows / "train_masks" / name);
      segfeed::decode::MaskImage mask;
      ASSERT_TRUE(decoder.Decode(AsBytes(other), name, &mask).ok());
      EXPECT_TRUE(mask.pixels == reference.pixels) << rows << " " << name;
      if (std::string(rows) == "interlaced") {
        EXPECT_NE(other, sequential) << name;
      }
    }
  }
  const auto r = RunSegfeed("make-demo '" + (dir / "x").string() + "' --mask-rows diagonal");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(
      r.output.find("--mask-rows must be one of sequential, interlaced, mixed (got 'diagonal')"),
      std::string::npos)
      << r.output;
}

}  // namespace
