// Runs `segfeed preview` itself: the grid's size, the dump's files and
// parameters (checked against a Loader with the same options), usage errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/preview_grid.h"
#include "cli/python_checks.h"
#include "demo/demo_dataset.h"
#include "demo/demo_layouts.h"
#include "run_segfeed.h"
#include "segfeed/loader.h"
#include "support/hostile_names.h"
#include "temp_dir.h"

namespace segfeed::cli {
namespace {

using segfeed::testing::Quoted;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

class PreviewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    demo::DemoOptions demo;
    demo.count = 7;
    demo.width = 160;
    demo.height = 106;
    ASSERT_TRUE(demo::WriteDemoDataset(dir_ / "data", demo, {}).ok());
    data_ = " --data " + Quoted((dir_ / "data").string());
  }
  TempDir dir_;
  std::string data_;
};

TEST_F(PreviewTest, WritesAGridOfTheExpectedSize) {
  const std::string out = (dir_ / "grid.png").string();
  const auto r = RunSegfeed("preview" + data_ + " --out " + Quoted(out) +
                            " --count 5 --size 96x64 --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find('\r'), std::string::npos)
      << "no progress line when stderr is not a terminal";
  const cv::Mat grid = cv::imread(out, cv::IMREAD_UNCHANGED);
  ASSERT_FALSE(grid.empty());
  EXPECT_EQ(grid.type(), CV_8UC3);
  // 5 samples: ceil(sqrt(5)) = 3 columns, 2 rows; 96 px images get the
  // minimum cell width.
  EXPECT_EQ(grid.cols, 3 * kPreviewMinCellWidth + 4 * kPreviewGap);
  EXPECT_EQ(grid.rows, 2 * (64 + kPreviewLabelHeight) + 3 * kPreviewGap);

  // More samples than the epoch has: all of them, and a grid to match.
  const auto all =
      RunSegfeed("preview" + data_ + " --out " + Quoted(out) + " --count 64 --size 256x128");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("only 7 samples"), std::string::npos) << all.output;
  const cv::Mat all_grid = cv::imread(out, cv::IMREAD_UNCHANGED);
  EXPECT_EQ(all_grid.cols, 3 * 256 + 4 * kPreviewGap);
  EXPECT_EQ(all_grid.rows, 3 * (128 + kPreviewLabelHeight) + 4 * kPreviewGap);
}

TEST_F(PreviewTest, DumpWritesTheLoadersSamplesAndParameters) {
  const std::filesystem::path dump = dir_ / "dump";
  const auto r = RunSegfeed("preview" + data_ + " --dump " + Quoted(dump.string()) +
                            " --count 5 --seed 7 --epoch 1 --size 96x64 --batch 2 --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;

  cv::FileStorage params((dump / "params.json").string(),
                         cv::FileStorage::READ | cv::FileStorage::FORMAT_JSON);
  ASSERT_TRUE(params.isOpened()) << "params.json is not valid JSON";
  EXPECT_EQ(static_cast<int>(params["seed"]), 7);
  EXPECT_EQ(static_cast<int>(params["epoch"]), 1);
  const cv::FileNode samples = params["samples"];
  ASSERT_TRUE(samples.isSeq());
  ASSERT_EQ(samples.size(), 5u);

  // The same options in process: the dump must be exactly this stream.
  LoaderOptions options;
  options.batch_size = 2;
  options.threads = 1;
  options.seed = 7;
  options.augment.output_width = 96;
  options.augment.output_height = 64;
  options.output.image_dtype = ElementType::kUint8;
  options.output.mask_dtype = ElementType::kUint8;
  options.pinned = PinnedMode::kOff;
  Loader loader(DatasetSpec::Carvana(dir_ / "data"), options);
  loader.StartEpoch(1);
  int index = 0;
  while (index < 5) {
    std::optional<Lease> lease = loader.Next();
    ASSERT_TRUE(lease.has_value());
    for (int slot = 0; slot < lease->size() && index < 5; ++slot, ++index) {
      const cv::FileNode entry = samples[index];
      const uint32_t id = lease->sample_ids()[slot];
      const std::string stem = loader.dataset().pairs[id].stem;
      const AugmentParams& p = lease->params()[slot];
      EXPECT_EQ(static_cast<int>(entry["index"]), index);
      EXPECT_EQ(static_cast<int>(entry["sample_id"]), static_cast<int>(id));
      EXPECT_EQ(static_cast<std::string>(entry["stem"]), stem);
      EXPECT_EQ(static_cast<int>(entry["flip_lr"]) != 0, p.flip_lr);
      EXPECT_EQ(static_cast<int>(entry["flip_ud"]) != 0, p.flip_ud);
      // Exactly equal: the numbers are written to read back as the same doubles.
      EXPECT_EQ(static_cast<double>(entry["angle_deg"]), p.angle_deg);
      EXPECT_EQ(static_cast<double>(entry["contrast_factor"]), p.contrast_factor);
      EXPECT_EQ(static_cast<double>(entry["brightness_delta"]), p.brightness_delta);
      EXPECT_EQ(static_cast<double>(entry["saturation_factor"]), p.saturation_factor);
      EXPECT_EQ(static_cast<double>(entry["hue_delta"]), p.hue_delta);

      const cv::Mat bgr = cv::imread((dump / (stem + "_image.png")).string(), cv::IMREAD_UNCHANGED);
      ASSERT_EQ(bgr.type(), CV_8UC3) << stem;
      ASSERT_EQ(bgr.size(), cv::Size(96, 64));
      cv::Mat rgb;
      cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
      const auto* image = static_cast<const uint8_t*>(lease->images().data) +
                          slot * lease->images().strides_bytes[0];
      EXPECT_EQ(std::memcmp(rgb.data, image, 96 * 64 * 3), 0) << stem;

      const cv::Mat mask = cv::imread((dump / (stem + "_mask.png")).string(), cv::IMREAD_UNCHANGED);
      ASSERT_EQ(mask.type(), CV_8UC1) << stem;
      const auto* expected =
          static_cast<const uint8_t*>(lease->masks().data) + slot * lease->masks().strides_bytes[0];
      int foreground = 0;
      for (int i = 0; i < 96 * 64; ++i) {
        ASSERT_EQ(mask.data[i], expected[i] ? 255 : 0) << stem << " pixel " << i;
        foreground += expected[i];
      }
      EXPECT_GT(foreground, 0) << "the demo car is in every mask";
    }
  }
}

// A stem may take 246 bytes (its mask's name then takes all 255): the dump
// names fit anyway, and params.json keeps the whole stem, exact bytes
// included when they are not UTF-8.
TEST_F(PreviewTest, DumpWorksForTheLongestAndHostileStems) {
  demo::DemoOptions demo;
  demo.count = 2;
  demo.width = 64;
  demo.height = 48;
  const std::filesystem::path data = dir_ / "hostile";
  ASSERT_TRUE(demo::WriteDemoDataset(data, demo, {}).ok());
  const std::vector<std::string> stems = {
      segfeed::testing::LongStem("preview ", segfeed::testing::kLongestStemBytes),
      "esc\x1b[2J\n\xff"};
  for (int i = 0; i < 2; ++i) {
    std::filesystem::rename(data / "train" / (demo::DemoStem(0, i) + ".jpg"),
                            data / "train" / (stems[i] + ".jpg"));
    std::filesystem::rename(data / "train_masks" / (demo::DemoStem(0, i) + "_mask.gif"),
                            data / "train_masks" / (stems[i] + "_mask.gif"));
  }
  const std::filesystem::path dump = dir_ / "dump";
  const auto r = RunSegfeed("preview --data " + Quoted(data.string()) + " --dump " +
                            Quoted(dump.string()) + " --count 2 --size 32");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(segfeed::testing::RawControlOrNotUtf8(r.output, dir_ / "output.txt"), "");

  const auto params = segfeed::testing::ReadJsonStrings(dump / "params.json");
  ASSERT_TRUE(params.valid) << params.error;
  std::vector<std::string> dumped_stems = params.At("samples.stem");
  std::sort(dumped_stems.begin(), dumped_stems.end());
  EXPECT_EQ(dumped_stems, (std::vector<std::string>{stems[1], stems[0]}));
  size_t files = 1;  // params.json
  for (const char* key : {"samples.image", "samples.mask"}) {
    for (const std::string& name : params.At(key)) {
      EXPECT_LE(name.size(), 255u);
      EXPECT_TRUE(std::filesystem::is_regular_file(dump / name)) << name;
      ++files;
    }
  }
  EXPECT_EQ(files, 5u);
  size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dump))
    entries += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(entries, files) << "no temporary file left behind";
}

// Every file params.json names, checked to be a PNG of the dump's size
// under `dump`; and nothing else was written beside `dump`.
void ExpectDumpedFiles(const std::filesystem::path& dump, size_t samples, const std::string& what) {
  const auto params = segfeed::testing::ReadJsonStrings(dump / "params.json");
  ASSERT_TRUE(params.valid) << what << ": " << params.error;
  size_t files = 0;
  for (const char* key : {"samples.image", "samples.mask"}) {
    for (const std::string& name : params.At(key)) {
      const cv::Mat png = cv::imread((dump / name).string(), cv::IMREAD_UNCHANGED);
      EXPECT_EQ(png.size(), cv::Size(32, 32)) << what << ": " << name;
      EXPECT_EQ(std::filesystem::weakly_canonical(dump / name)
                    .string()
                    .rfind(std::filesystem::weakly_canonical(dump).string() + "/", 0),
                0u)
          << what << ": " << name << " is inside the dump";
      ++files;
    }
  }
  EXPECT_EQ(files, 2 * samples) << what;
  size_t written = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dump))
    written += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(written, files + 1) << what << ": the images, the masks and params.json only";
}

// Cityscapes' keys hold a city folder ("aachen/aachen_000000_000019"), and
// so do the keys of --recursive trees and of lists: the dump makes the
// sub-folders inside DIR, for every preset.
TEST_F(PreviewTest, DumpWritesEveryPresetsSamplesIntoSubFolders) {
  const std::pair<const char*, demo::DemoLayout> presets[] = {
      {"carvana", demo::DemoLayout::kCarvana},
      {"voc", demo::DemoLayout::kVoc},
      {"cityscapes", demo::DemoLayout::kCityscapes},
      {"ade20k", demo::DemoLayout::kAde20k}};
  demo::DemoOptions demo;
  demo.count = 4;
  demo.width = 64;
  demo.height = 48;
  for (const auto& [name, layout] : presets) {
    const std::filesystem::path data = dir_ / name;
    ASSERT_TRUE(demo::WriteDemoLayout(data, layout, demo, {}).ok()) << name;
    const std::filesystem::path dump = dir_ / (std::string(name) + "-dump");
    const auto r = RunSegfeed("preview --data " + Quoted(data.string()) + " --dataset " + name +
                              " --dump " + Quoted(dump.string()) + " --count 3 --size 32");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.output;
    ExpectDumpedFiles(dump, 3, name);
  }
  // Cityscapes' own tree, paired by the folders rule with --recursive.
  const std::filesystem::path cityscapes = dir_ / "cityscapes";
  const auto r = RunSegfeed(
      "preview --images " + Quoted((cityscapes / "leftImg8bit" / "train").string()) + " --masks " +
      Quoted((cityscapes / "gtFine" / "train").string()) +
      " --recursive --image-suffix _leftImg8bit --mask-suffix _gtFine_labelIds --mask-ext .png"
      " --mask-mode labels --num-classes 34 --dump " +
      Quoted((dir_ / "recursive-dump").string()) + " --count 2 --size 32");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ExpectDumpedFiles(dir_ / "recursive-dump", 2, "--recursive");
}

// A two-column list's paths make the stems: sub-folders, a name that is
// not UTF-8, and (allowed outside the root) paths that climb out of it or
// are absolute. Each sample's files land inside DIR, under names of their
// own; nothing is written where the paths point.
TEST_F(PreviewTest, DumpOfAListKeepsEveryStemInsideTheFolder) {
  const std::filesystem::path root = dir_ / "listed";
  const std::filesystem::path train = dir_ / "data" / "train";
  const std::filesystem::path masks = dir_ / "data" / "train_masks";
  const std::vector<std::string> folders = {"a/b", "sub \xff\xfe"};
  for (const std::string& folder : folders) std::filesystem::create_directories(root / folder);
  const std::string stem0 = demo::DemoStem(0, 0), stem1 = demo::DemoStem(0, 1),
                    stem2 = demo::DemoStem(0, 2);
  std::filesystem::copy_file(train / (stem0 + ".jpg"), root / "a/b" / (stem0 + ".jpg"));
  std::filesystem::copy_file(masks / (stem0 + "_mask.gif"), root / "a/b" / (stem0 + "_mask.gif"));
  std::filesystem::copy_file(train / (stem1 + ".jpg"), root / folders[1] / (stem1 + ".jpg"));
  std::filesystem::copy_file(masks / (stem1 + "_mask.gif"),
                             root / folders[1] / (stem1 + "_mask.gif"));
  const std::filesystem::path list = root / "pairs.tsv";
  {
    std::ofstream out(list);
    out << "a/b/" << stem0 << ".jpg\ta/b/" << stem0 << "_mask.gif\n"
        << folders[1] << "/" << stem1 << ".jpg\t" << folders[1] << "/" << stem1 << "_mask.gif\n"
        << "../data/train/" << stem2 << ".jpg\t../data/train_masks/" << stem2 << "_mask.gif\n"
        << train.string() << "/" << demo::DemoStem(0, 3) << ".jpg\t" << masks.string() << "/"
        << demo::DemoStem(0, 3) << "_mask.gif\n";
  }
  const std::filesystem::path dump = dir_ / "out" / "dump";
  const auto r =
      RunSegfeed("preview --list " + Quoted(list.string()) + " --allow-outside-root --dump " +
                 Quoted(dump.string()) + " --count 4 --size 32");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ExpectDumpedFiles(dump, 4, "list");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_ / "out"),
                          std::filesystem::directory_iterator()),
            1)
      << "nothing beside the dump folder";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(train),
                          std::filesystem::directory_iterator()),
            7)
      << "nothing written into the dataset";
}

TEST_F(PreviewTest, ADumpFolderLinkedIntoTheDatasetIsRefused) {
  std::filesystem::create_directory_symlink(dir_ / "data" / "train_masks", dir_ / "dump");
  const std::string dump = (dir_ / "dump").string();
  for (const std::string& folder : {dump, dump + "/sub"}) {
    const auto r = RunSegfeed("preview" + data_ + " --count 2 --out " +
                              Quoted((dir_ / "grid.png").string()) + " --dump " + Quoted(folder));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--dump '" + folder + "': is inside the dataset folder"),
              std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "data" / "train_masks" / "sub"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "grid.png"));
}

TEST_F(PreviewTest, OutputsInsideTheDatasetAreRefusedBeforeRunning) {
  const std::string train = (dir_ / "data" / "train").string();
  auto r = RunSegfeed("preview" + data_ + " --out " + Quoted(train + "/grid.png"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--out '" + train + "/grid.png': is inside the dataset folder"),
            std::string::npos)
      << r.output;
  r = RunSegfeed("preview" + data_ + " --dump " +
                 Quoted((dir_ / "data" / "train_masks" / "dump").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is inside the dataset folder"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(train + "/grid.png"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "data" / "train_masks" / "dump"));
  r = RunSegfeed("preview" + data_ + " --out " + Quoted((dir_ / "no" / "grid.png").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
}

TEST_F(PreviewTest, HelpExitsZero) {
  const auto r = RunSegfeed("preview --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--dump DIR"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--no-color"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"path_bytes_hex\""), std::string::npos) << r.output;
}

TEST_F(PreviewTest, UsageErrorsExitTwoAndNameTheOption) {
  const std::string out = " --out " + Quoted((dir_ / "g.png").string());
  const std::pair<std::string, std::string> cases[] = {
      {"preview" + data_, "--out"},
      {"preview" + out, "--data"},
      {"preview" + data_ + out + " --count 0", "--count"},
      {"preview" + data_ + out + " --epoch -1", "--epoch"},
      {"preview" + data_ + out + " --dtype float32", "--dtype"},
      {"preview" + data_ + out + " --layout nchw", "--layout"},
      {"preview" + data_ + " --out " + Quoted((dir_ / "g.jpg").string()), "--out"},
      {"preview" + data_ + out + " --batch 0", "--batch"},
      {"preview" + data_ + out + " --size 0", "--size"},
      {"preview" + data_ + out + " --colour", "--colour"},
  };
  for (const auto& [arguments, option] : cases) {
    const auto r = RunSegfeed(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(option), std::string::npos) << arguments << "\n" << r.output;
  }
}

TEST_F(PreviewTest, MissingDatasetIsAnErrorNamingIt) {
  const std::string missing = (dir_ / "nowhere").string();
  const auto r = RunSegfeed("preview --data " + Quoted(missing) + " --out " +
                            Quoted((dir_ / "g.png").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
}

}  // namespace
}  // namespace segfeed::cli
