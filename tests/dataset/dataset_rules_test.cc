// The pairing rules beyond Carvana's folders: suffixes on both sides,
// recursive trees, lists of keys and of paths, the presets and the keywords
// that choose among them.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fixtures/fixtures.h"
#include "segfeed/dataset.h"
#include "segfeed/option_table.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  testing::WriteFile(path, {1, 2, 3});
}

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> Stems(const Dataset& dataset) {
  std::vector<std::string> stems;
  for (const auto& pair : dataset.pairs) stems.push_back(pair.stem);
  return stems;
}

std::vector<std::string> Kinds(const Dataset& dataset) {
  std::vector<std::string> kinds;
  for (const auto& problem : dataset.problems) kinds.emplace_back(ErrorKindName(problem.kind));
  return kinds;
}

using Values = std::vector<std::pair<std::string, std::string>>;

DatasetSpec Folders(const fs::path& images, const fs::path& masks) {
  DatasetSpec spec;
  spec.image_dir = images;
  spec.mask_dir = masks;
  spec.mask_suffix = "";
  return spec;
}

TEST(DatasetRulesTest, FoldersWithoutSuffixPairJpegWithPng) {
  TempDir dir;
  for (const char* name : {"abc.jpg", "def.jpg"}) Touch(dir / "images" / name);
  for (const char* name : {"abc.png", "xyz.png"}) Touch(dir / "labels" / name);
  const Dataset dataset = ListDataset(Folders(dir / "images", dir / "labels"));
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"abc"}));
  EXPECT_EQ(dataset.pairs[0].mask_path, dir / "labels" / "abc.png");
  EXPECT_EQ(Kinds(dataset), (std::vector<std::string>{"missing_mask", "orphan_mask"}));
}

TEST(DatasetRulesTest, ImageSuffixIsStrippedFromTheKey) {
  TempDir dir;
  Touch(dir / "img" / "a_rgb.png");
  Touch(dir / "img" / "b.png");  // no suffix: not an image by this rule
  Touch(dir / "lbl" / "a_seg.png");
  DatasetSpec spec = Folders(dir / "img", dir / "lbl");
  spec.image_suffix = "_rgb";
  spec.mask_suffix = "_seg";
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"a"}));
  EXPECT_EQ(dataset.pairs[0].image_path, dir / "img" / "a_rgb.png");
  EXPECT_EQ(dataset.pairs[0].mask_path, dir / "lbl" / "a_seg.png");
  ASSERT_EQ(dataset.ignored.size(), 1u);
  EXPECT_EQ(dataset.ignored[0].path, dir / "img" / "b.png");
}

// A Cityscapes-like tree: what the recursive rule pairs and what it ignores.
void WriteCityTree(const fs::path& root) {
  for (const char* city : {"aachen", "bochum"}) {
    for (const char* frame : {"000000_000019", "000001_000019"}) {
      const std::string key = std::string(city) + "_" + frame;
      Touch(root / "leftImg8bit" / "train" / city / (key + "_leftImg8bit.png"));
      for (const char* kind : {"_gtFine_labelIds.png", "_gtFine_color.png",
                               "_gtFine_instanceIds.png", "_gtFine_polygons.json"})
        Touch(root / "gtFine" / "train" / city / (key + kind));
    }
  }
}

TEST(DatasetRulesTest, RecursiveTreesPairBySubFolderAndIgnoreOtherFiles) {
  TempDir dir;
  WriteCityTree(dir.path());
  // One photo without its label map, one label map in a city with no photos.
  Touch(dir / "leftImg8bit" / "train" / "bochum" / "bochum_000002_000019_leftImg8bit.png");
  Touch(dir / "gtFine" / "train" / "cologne" / "cologne_000000_000019_gtFine_labelIds.png");
  const Dataset dataset = ListDataset(DatasetSpec::Cityscapes(dir.path(), "train"));
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{
                                "aachen/aachen_000000_000019", "aachen/aachen_000001_000019",
                                "bochum/bochum_000000_000019", "bochum/bochum_000001_000019"}));
  EXPECT_EQ(dataset.pairs[2].image_path,
            dir / "leftImg8bit/train/bochum/bochum_000000_000019_leftImg8bit.png");
  EXPECT_EQ(dataset.pairs[2].mask_path,
            dir / "gtFine/train/bochum/bochum_000000_000019_gtFine_labelIds.png");
  EXPECT_EQ(Kinds(dataset), (std::vector<std::string>{"missing_mask", "orphan_mask"}));
  EXPECT_EQ(dataset.problems[0].path,
            (dir / "leftImg8bit/train/bochum/bochum_000002_000019_leftImg8bit.png").string());
  EXPECT_EQ(dataset.ignored.size(), 12u);  // 4 x (color, instanceIds, polygons)
}

TEST(DatasetRulesTest, RecursiveWalkSurvivesASymlinkLoop) {
  TempDir dir;
  Touch(dir / "img" / "sub" / "a.jpg");
  Touch(dir / "lbl" / "sub" / "a.png");
  fs::create_directory_symlink(dir / "img", dir / "img" / "sub" / "loop");
  DatasetSpec spec = Folders(dir / "img", dir / "lbl");
  spec.recursive = true;
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"sub/a"}));
}

TEST(DatasetRulesTest, AListOfKeysKeepsItsOrderAndReportsWhatIsMissing) {
  TempDir dir;
  for (const char* key : {"a", "b", "c", "d", "unlisted"})
    Touch(dir / "JPEGImages" / (std::string(key) + ".jpg"));
  for (const char* key : {"a", "b", "d", "unlisted"})
    Touch(dir / "SegmentationClass" / (std::string(key) + ".png"));
  // CRLF, a comment, a blank line and a byte order mark, as editors write them.
  WriteText(dir / "ImageSets/Segmentation/train.txt",
            "\xEF\xBB\xBF"
            "d\r\n# a comment\r\nb\r\n\r\nc\r\nnope\r\na\r\n");
  const Dataset dataset = ListDataset(DatasetSpec::Voc(dir.path(), "train"));
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"d", "b", "a"}));  // the file's order
  EXPECT_EQ(Kinds(dataset), (std::vector<std::string>{"missing_mask", "missing_image"}));
  EXPECT_NE(dataset.problems[0].detail.find("line 5"), std::string::npos)
      << dataset.problems[0].detail;
  EXPECT_NE(dataset.problems[1].detail.find("line 6"), std::string::npos);
  EXPECT_TRUE(dataset.ignored.empty());  // a list ignores what it does not name, silently
}

TEST(DatasetRulesTest, AListNamingAKeyTwiceNamesBothLines) {
  TempDir dir;
  Touch(dir / "JPEGImages" / "a.jpg");
  Touch(dir / "SegmentationClass" / "a.png");
  WriteText(dir / "ImageSets/Segmentation/train.txt", "a\nb\na\n");
  try {
    ListDataset(DatasetSpec::Voc(dir.path(), "train"));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: 'a' is listed again (first on line 1)"),
              std::string::npos)
        << e.what();
  }
}

std::string ListError(const DatasetSpec& spec) {
  try {
    const Dataset dataset = ListDataset(spec);
    return "no error: " + std::to_string(dataset.pairs.size()) + " pairs";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

// The list: the same two files again as "images/./a.jpg" and
// "images//b.jpg" made 4 pairs of 2 files, each streamed twice an epoch. A
// file is the same whatever the spelling ("./", "//", "x/../x" inside the
// root, a symbolic or hard link): listing an image again is the error
// README promises, naming both lines. A mask may be shared.
TEST(DatasetRulesTest, AListNamingAFileAgainUnderAnotherSpellingNamesBothLines) {
  TempDir dir;
  for (const char* key : {"a", "b"}) {
    Touch(dir / "images" / (std::string(key) + ".jpg"));
    Touch(dir / "masks" / (std::string(key) + ".png"));
  }
  Touch(dir / "images" / "c.jpg");
  Touch(dir / "masks" / "c.png");
  fs::create_hard_link(dir / "images" / "a.jpg", dir / "images" / "hard.jpg");
  fs::create_symlink("b.jpg", dir / "images" / "soft.jpg");
  fs::create_hard_link(dir / "masks" / "a.png", dir / "masks" / "hard.png");
  fs::create_directory_symlink("images", dir / "linked");
  DatasetSpec spec;
  spec.name = "list";
  spec.list_file = dir / "pairs.tsv";
  WriteText(spec.list_file,
            "images/a.jpg\tmasks/a.png\nimages/b.jpg\tmasks/b.png\n"
            "images/./a.jpg\tmasks/a.png\nimages//b.jpg\tmasks/b.png\n");
  EXPECT_NE(ListError(spec).find("line 3: 'images/./a.jpg' is listed again (first on line 1 as "
                                 "'images/a.jpg')"),
            std::string::npos)
      << ListError(spec);
  const std::pair<std::string, std::string> again[] = {
      {"images//a.jpg\tmasks/c.png", "'images//a.jpg' is listed again"},
      {"./images/a.jpg\tmasks/c.png", "'./images/a.jpg' is listed again"},
      {"images/../images/a.jpg\tmasks/c.png",
       "'images/../images/a.jpg' is the same file as 'images/a.jpg' on line 1"},
      {"images/hard.jpg\tmasks/c.png",
       "'images/hard.jpg' is the same file as 'images/a.jpg' on line 1"},
      {"linked/a.jpg\tmasks/c.png", "'linked/a.jpg' is the same file as 'images/a.jpg' on line 1"},
  };
  for (const auto& [line, words] : again) {
    WriteText(spec.list_file, "images/a.jpg\tmasks/a.png\n" + line + "\n");
    const std::string error = ListError(spec);
    EXPECT_NE(error.find(spec.list_file.string() + ": line 2: " + words), std::string::npos)
        << line << ": " << error;
  }
  WriteText(spec.list_file, "images/soft.jpg\tmasks/c.png\nimages/b.jpg\tmasks/b.png\n");
  EXPECT_NE(ListError(spec).find("line 2: 'images/b.jpg' is the same file as 'images/soft.jpg' "
                                 "on line 1"),
            std::string::npos)
      << ListError(spec);
  // Distinct files under odd spellings pair as before, and images may share
  // a mask, however it is spelled (a blank mask for every negative).
  WriteText(spec.list_file,
            "./images/a.jpg\tmasks//a.png\nimages/./b.jpg\tmasks/b.png\n"
            "images/c.jpg\tmasks/./a.png\nimages/soft.jpg\tmasks/hard.png\n");
  EXPECT_NE(ListError(spec).find("line 4: 'images/soft.jpg' is the same file as 'images/./b.jpg'"),
            std::string::npos)
      << ListError(spec);
  WriteText(spec.list_file,
            "./images/a.jpg\tmasks//a.png\nimages/./b.jpg\tmasks/b.png\n"
            "images/c.jpg\tmasks/./a.png\n");
  EXPECT_EQ(ListError(spec), "no error: 3 pairs");
}

// The same for a list of keys: "./a", "a//b" and "a/./b" are the keys "a"
// and "a/b" (found, not missing), and two keys whose images are one file
// through a link are the same sample.
TEST(DatasetRulesTest, AListOfKeysNamingAKeyAgainUnderAnotherSpellingNamesBothLines) {
  TempDir dir;
  for (const char* key : {"a", "b", "c", "city/x", "city/y"}) {
    Touch(dir / "images" / (std::string(key) + ".jpg"));
    Touch(dir / "masks" / (std::string(key) + ".png"));
  }
  fs::remove(dir / "images" / "b.jpg");
  fs::create_symlink("a.jpg", dir / "images" / "b.jpg");
  fs::remove(dir / "masks" / "c.png");
  fs::create_hard_link(dir / "masks" / "a.png", dir / "masks" / "c.png");
  DatasetSpec spec = Folders(dir / "images", dir / "masks");
  spec.name = "list";
  spec.recursive = true;
  spec.list_file = dir / "keys.txt";
  const std::pair<std::string, std::string> again[] = {
      {"a\n./a\n", "line 2: './a' is listed again (first on line 1 as 'a')"},
      {"city/x\ncity//x\n", "line 2: 'city//x' is listed again (first on line 1 as 'city/x')"},
      {"city/x\n./city/./x\n", "line 2: './city/./x' is listed again"},
      {"a\nb\n", "line 2: the image of 'b' is the same file as the image of 'a' on line 1"},
  };
  for (const auto& [text, words] : again) {
    WriteText(spec.list_file, text);
    const std::string error = ListError(spec);
    EXPECT_NE(error.find(words), std::string::npos) << text << ": " << error;
  }
  // c's mask is a's (a hard link): images may share a mask.
  WriteText(spec.list_file, "./city//y\ncity/./x\na\nc\n");
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"city/y", "city/x", "a", "c"}));
  EXPECT_TRUE(dataset.problems.empty()) << dataset.problems[0].Message();
}

TEST(DatasetRulesTest, AListLineThatCannotBeParsedNamesItsNumber) {
  TempDir dir;
  const fs::path list = dir / "list.txt";
  DatasetSpec spec;
  spec.name = "list";
  spec.list_file = list;
  for (const auto& [text, words] : std::vector<std::pair<std::string, std::string>>{
           {"a.jpg a.png\nb.jpg b.png extra\n", "line 2: expected a key, or an image path"},
           {"a.jpg,a.png\nb\n", "line 2: 1 field, but line 1 has 2"},
           {"a.jpg,,a.png\n", "line 1: expected a key"},
           {"# only comments\n\n", "names no pair"},
           {"key\n",
            "lists keys (line 1 has one field), which are looked up in the image and "
            "mask folders"},
           {std::string("a\0b\n", 4), "line 1: a NUL byte in a name"}}) {
    WriteText(list, text);
    try {
      ListDataset(spec);
      ADD_FAILURE() << "expected ConfigError for " << text;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

TEST(DatasetRulesTest, ATwoColumnListPairsPathsUnderItsRoot) {
  TempDir dir;
  Touch(dir / "photos" / "x 1.jpg");
  Touch(dir / "photos" / "y.jpg");
  Touch(dir / "photos" / "z.jpg");
  Touch(dir / "masks" / "m-x.png");
  Touch(dir / "masks" / "m-z.png");
  WriteText(dir / "lists" / "pairs.tsv",
            "photos/z.jpg\tmasks/m-z.png\n"
            "photos/x 1.jpg\tmasks/m-x.png\n"
            "photos/y.jpg\tmasks/m-y.png\n"
            "photos/w.jpg\tmasks/m-w.png\n");
  DatasetSpec spec;
  spec.name = "list";
  spec.list_file = dir / "lists" / "pairs.tsv";
  spec.list_root = dir.path();
  const Dataset dataset = ListDataset(spec);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"photos/z", "photos/x 1"}));
  EXPECT_EQ(dataset.pairs[1].image_path, dir / "photos" / "x 1.jpg");
  EXPECT_EQ(dataset.pairs[1].mask_path, dir / "masks" / "m-x.png");
  EXPECT_EQ(Kinds(dataset), (std::vector<std::string>{"missing_mask", "missing_image"}));
  EXPECT_EQ(dataset.problems[1].path, (dir / "photos" / "w.jpg").string());

  // Commas and white space separate too; the default root is the list's folder.
  WriteText(dir / "pairs.csv", "photos/z.jpg, masks/m-z.png\n");
  WriteText(dir / "pairs.txt", "photos/z.jpg   masks/m-z.png\n");
  for (const char* name : {"pairs.csv", "pairs.txt"}) {
    spec.list_file = dir / name;
    spec.list_root.clear();
    const Dataset other = ListDataset(spec);
    ASSERT_EQ(other.pairs.size(), 1u) << name;
    EXPECT_TRUE(fs::exists(other.pairs[0].mask_path)) << other.pairs[0].mask_path;
  }
}

// The lines of the issue: a list may not name files outside its root; each
// refused line is a problem naming the list, the line, the path as written,
// why and the option, and the lines around it pair as before.
class ListOutsideRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* key : {"a", "b", "c", "d", "e"}) {
      Touch(dir_ / "data" / "photos" / (std::string(key) + ".jpg"));
      Touch(dir_ / "data" / "masks" / (std::string(key) + ".png"));
    }
    Touch(dir_ / "elsewhere" / "photos" / "x.jpg");
    Touch(dir_ / "elsewhere" / "photos" / "y.jpg");
    Touch(dir_ / "elsewhere" / "masks" / "x.png");
    // Not line 1's x.jpg: with the option, that would be one image twice.
    fs::create_symlink(dir_ / "elsewhere" / "photos" / "y.jpg", dir_ / "data" / "photos" / "x.jpg");
    fs::create_directory_symlink(dir_ / "elsewhere" / "masks", dir_ / "data" / "more");
    fs::create_symlink(dir_ / "data" / "photos" / "c.jpg", dir_ / "data" / "photos" / "alias.jpg");
    const std::string outside = (dir_ / "elsewhere").string();
    WriteText(dir_ / "data" / "pairs.tsv",
              outside +
                  "/photos/x.jpg\tmasks/a.png\n"              // 1: absolute
                  "photos/a.jpg\tmasks/a.png\n"               // 2
                  "photos/b.jpg\t../elsewhere/masks/x.png\n"  // 3: ".."
                  "# a comment\n"                             // 4
                  "photos/x.jpg\tmasks/b.png\n"               // 5: a linked file
                  "photos/d.jpg\tmore/x.png\n"                // 6: a linked folder
                  "photos/alias.jpg\tmasks/c.png\n"           // 7: a link inside
                  "photos/e.jpg\tmasks/e.png\n");             // 8
    spec_.name = "list";
    spec_.list_file = dir_ / "data" / "pairs.tsv";
  }
  std::string List() const { return (dir_ / "data" / "pairs.tsv").string(); }
  std::string Root() const { return (dir_ / "data").string(); }

  TempDir dir_;
  DatasetSpec spec_;
};

TEST_F(ListOutsideRootTest, RefusedLinesAreProblemsAndTheOthersPair) {
  const Dataset dataset = ListDataset(spec_);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"photos/a", "photos/alias", "photos/e"}));
  EXPECT_EQ(dataset.pairs[1].image_path, dir_ / "data" / "photos" / "alias.jpg");
  EXPECT_EQ(Kinds(dataset), (std::vector<std::string>(4, "outside_root")));
  ASSERT_EQ(dataset.problems.size(), 4u);
  const std::string elsewhere = fs::canonical(dir_ / "elsewhere").string();
  const std::string how = ": refused, allow it with --allow-outside-root (allow_outside_root=True)";
  EXPECT_EQ(dataset.problems[0].path, (dir_ / "elsewhere" / "photos" / "x.jpg").string());
  EXPECT_EQ(dataset.problems[0].detail, "image path '" + (dir_ / "elsewhere").string() +
                                            "/photos/x.jpg', listed on line 1 of " + List() +
                                            ", is absolute, not under the dataset root " + Root() +
                                            how);
  EXPECT_EQ(dataset.problems[1].path, Root() + "/../elsewhere/masks/x.png");
  EXPECT_EQ(dataset.problems[1].detail,
            "mask path '../elsewhere/masks/x.png', listed on line 3 of " + List() +
                ", leaves the dataset root " + Root() + how);
  EXPECT_EQ(dataset.problems[2].detail,
            "image path 'photos/x.jpg', listed on line 5 of " + List() + ", is a symlink to " +
                elsewhere + "/photos/y.jpg, outside the dataset root " + Root() + how);
  EXPECT_EQ(dataset.problems[3].detail, "mask path 'more/x.png', listed on line 6 of " + List() +
                                            ", goes through more, a " + "symlink to " + elsewhere +
                                            "/masks, outside the dataset root " + Root() + how);
  EXPECT_EQ(dataset.problems[3].Message().substr(0, Root().size() + 12), Root() + "/more/x.png:");
}

TEST_F(ListOutsideRootTest, BothPathsOfALineAreNamed) {
  WriteText(spec_.list_file, "../a.jpg\t/b.png\nphotos/a.jpg\tmasks/a.png\n");
  const Dataset dataset = ListDataset(spec_);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"photos/a"}));
  ASSERT_EQ(dataset.problems.size(), 1u);
  EXPECT_NE(dataset.problems[0].detail.find("image path '../a.jpg', listed on line 1 of " + List() +
                                            ", leaves the dataset root " + Root() +
                                            "; the mask path '/b.png' is absolute"),
            std::string::npos)
      << dataset.problems[0].detail;
}

TEST_F(ListOutsideRootTest, TheOptionAllowsThem) {
  spec_.allow_outside_root = true;
  const Dataset dataset = ListDataset(spec_);
  EXPECT_TRUE(dataset.problems.empty()) << dataset.problems[0].Message();
  ASSERT_EQ(dataset.pairs.size(), 7u);
  EXPECT_EQ(dataset.pairs[0].image_path, dir_ / "elsewhere" / "photos" / "x.jpg");
  EXPECT_TRUE(fs::exists(dataset.pairs[1].mask_path)) << dataset.pairs[1].mask_path;
  EXPECT_EQ(dataset.pairs[3].image_path, dir_ / "data" / "photos" / "x.jpg");
  // Through the keywords, as the CLI and Python give it.
  const DatasetSpec given = DatasetFromValues(
      "", Values{{"list_file", List()}, {"root", Root()}, {"allow_outside_root", "true"}});
  EXPECT_TRUE(given.allow_outside_root);
  EXPECT_EQ(ListDataset(given).pairs.size(), 7u);
  EXPECT_FALSE(DatasetFromValues("", Values{{"list_file", List()}}).allow_outside_root);
}

TEST_F(ListOutsideRootTest, AnExplicitRootIsTheOneChecked) {
  // Under the list root --list-root names, "../elsewhere" is inside.
  WriteText(dir_ / "lists" / "pairs.tsv",
            "data/photos/a.jpg\telsewhere/masks/x.png\n../data/photos/b.jpg\tdata/masks/b.png\n");
  spec_.list_file = dir_ / "lists" / "pairs.tsv";
  spec_.list_root = dir_.path();
  const Dataset dataset = ListDataset(spec_);
  EXPECT_EQ(Stems(dataset), (std::vector<std::string>{"data/photos/a"}));
  ASSERT_EQ(Kinds(dataset), (std::vector<std::string>{"outside_root"}));
  EXPECT_NE(dataset.problems[0].detail.find("line 2"), std::string::npos);
}

TEST(DatasetRulesTest, PresetsSetTheirLabelOptions) {
  LoaderOptions voc;
  ApplyDatasetOptions(DatasetSpec::Voc("root", "train"), voc);
  EXPECT_EQ(voc.decode.mask_mode, MaskMode::kLabels);
  EXPECT_EQ(voc.decode.num_classes, 21);
  EXPECT_EQ(voc.decode.mask_ignore_value, 255);
  // What is written out is the user's: no preset sets it.
  for (const DatasetSpec& spec :
       {DatasetSpec::Voc("root", "train"), DatasetSpec::Cityscapes("root", "train"),
        DatasetSpec::Ade20k("root", "train")}) {
    for (const auto& [name, text] : spec.options) EXPECT_NE(name, "ignore_index") << spec.name;
  }
  LoaderOptions city;
  ApplyDatasetOptions(DatasetSpec::Cityscapes("root", "train"), city);
  EXPECT_EQ(city.decode.num_classes, 19);
  ASSERT_EQ(city.decode.label_map.size(), 19u);
  EXPECT_EQ(city.decode.label_map.front(), (LabelMapEntry{7, 0}));
  EXPECT_EQ(city.decode.label_map.back(), (LabelMapEntry{33, 18}));
  LoaderOptions ade;
  ApplyDatasetOptions(DatasetSpec::Ade20k("root", "val"), ade);
  EXPECT_EQ(ade.decode.num_classes, 150);
  // ADE20K's 0 ("other") is its files' unlabelled value, not a map entry.
  EXPECT_EQ(ade.decode.mask_ignore_value, 0);
  ASSERT_EQ(ade.decode.label_map.size(), 150u);
  EXPECT_EQ(ade.decode.label_map[0], (LabelMapEntry{1, 0}));
  EXPECT_EQ(ade.decode.label_map[149], (LabelMapEntry{150, 149}));
  EXPECT_EQ(DatasetSpec::Ade20k("root", "val").image_dir, fs::path("root/images/validation"));
  EXPECT_TRUE(DatasetSpec::Carvana("root").options.empty());
}

std::string LayoutError(const DatasetSpec& spec) {
  try {
    ListDataset(spec);
  } catch (const FileError& e) {
    return e.error().detail;
  }
  return "no error";
}

TEST(DatasetRulesTest, APresetOnAnotherLayoutSaysWhatItFound) {
  TempDir dir;
  Touch(dir / "train" / "a.jpg");
  Touch(dir / "train_masks" / "a_mask.gif");
  const std::string voc = LayoutError(DatasetSpec::Voc(dir.path(), "train"));
  EXPECT_NE(voc.find("no JPEGImages/ here"), std::string::npos) << voc;
  EXPECT_NE(voc.find("found train/, train_masks/"), std::string::npos) << voc;
  EXPECT_NE(voc.find("this looks like the carvana layout, try --dataset carvana"),
            std::string::npos)
      << voc;

  // VOCdevkit/VOC2012 given as VOCdevkit: one level down.
  TempDir devkit;
  Touch(devkit / "VOC2012" / "JPEGImages" / "a.jpg");
  Touch(devkit / "VOC2012" / "SegmentationClass" / "a.png");
  const std::string down = LayoutError(DatasetSpec::Voc(devkit.path(), "train"));
  EXPECT_NE(down.find("one level down, try --data " + (devkit / "VOC2012").string()),
            std::string::npos)
      << down;

  // The right layout, a split that is not there.
  WriteText(devkit / "VOC2012/ImageSets/Segmentation/train.txt", "a\n");
  const std::string split = LayoutError(DatasetSpec::Voc(devkit / "VOC2012", "test"));
  EXPECT_NE(split.find("no split 'test'"), std::string::npos) << split;
  EXPECT_NE(split.find("train.txt"), std::string::npos) << split;
  WriteCityTree(dir.path());
  const std::string city = LayoutError(DatasetSpec::Cityscapes(dir.path(), "val"));
  EXPECT_NE(city.find("no split 'val': leftImg8bit/ has train/"), std::string::npos) << city;

  // A folder of tar shards without an index: how to read them.
  TempDir tars;
  Touch(tars / "train-000000.tar");
  const std::string shards = LayoutError(DatasetSpec::Carvana(tars.path()));
  EXPECT_NE(shards.find("tar shards without an index"), std::string::npos) << shards;
  EXPECT_NE(shards.find("segfeed index " + (tars / "*.tar").string()), std::string::npos) << shards;
}

// A split that is there but is not a list file (a FIFO, a device, a
// folder) is not "missing": the message says what it is, as the readers of
// images and masks do ("not a regular file"), and never reads it. A split
// folder of Cityscapes or ADE20K that is a file likewise.
TEST(DatasetRulesTest, ASplitThatIsNotARegularFileSaysWhatItIs) {
  TempDir dir;
  Touch(dir / "JPEGImages" / "a.jpg");
  Touch(dir / "SegmentationClass" / "a.png");
  const fs::path sets = dir / "ImageSets" / "Segmentation";
  WriteText(sets / "train.txt", "a\n");
  ASSERT_EQ(mkfifo((sets / "fifo.txt").c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", sets / "zero.txt");
  fs::create_directory(sets / "folder.txt");
  const std::pair<std::string, std::string> cases[] = {
      {"fifo", "a FIFO"}, {"zero", "a character device"}, {"folder", "a folder"}};
  for (const auto& [split, what] : cases) {
    const std::string error = LayoutError(DatasetSpec::Voc(dir.path(), split));
    EXPECT_NE(error.find("no split '" + split + "': " + (sets / (split + ".txt")).string() +
                         " is not a regular file (" + what + ")"),
              std::string::npos)
        << error;
    EXPECT_EQ(error.find("no " + split + ".txt in"), std::string::npos) << error;
  }

  TempDir city;
  WriteCityTree(city.path());
  Touch(city / "leftImg8bit" / "val");
  const std::string error = LayoutError(DatasetSpec::Cityscapes(city.path(), "val"));
  EXPECT_NE(error.find("no split 'val': " + (city / "leftImg8bit" / "val").string() +
                       " is not a folder (a regular file)"),
            std::string::npos)
      << error;
}

// What a folder holds is listed up to 8 entries, and a cut list says how
// many it left out.
TEST(DatasetRulesTest, AListingOfWhatIsThereSaysHowManyItLeftOut) {
  TempDir dir;
  Touch(dir / "JPEGImages" / "a.jpg");
  Touch(dir / "SegmentationClass" / "a.png");
  for (const char* name : {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10"})
    WriteText(dir / "ImageSets/Segmentation" / (std::string(name) + ".txt"), "a\n");
  const std::string error = LayoutError(DatasetSpec::Voc(dir.path(), "train"));
  EXPECT_NE(
      error.find("s0.txt, s1.txt, s10.txt, s2.txt, s3.txt, s4.txt, s5.txt, s6.txt and 3 more"),
      std::string::npos)
      << error;
  TempDir other;
  for (const char* name : {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"})
    fs::create_directory(other / name);
  const std::string root = LayoutError(DatasetSpec::Voc(other.path(), "train"));
  EXPECT_NE(root.find("found f0/, f1/, f2/, f3/, f4/, f5/, f6/, f7/ and 1 more"), std::string::npos)
      << root;
}

// A list file that is a FIFO, a device or a folder is refused by what it
// is, without waiting for a writer or reading the device.
TEST(DatasetRulesTest, AListFileThatIsNotARegularFileSaysWhatItIs) {
  TempDir dir;
  Touch(dir / "images" / "a.jpg");
  Touch(dir / "masks" / "a.png");
  ASSERT_EQ(mkfifo((dir / "fifo.txt").c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", dir / "zero.txt");
  fs::create_directory(dir / "folder.txt");
  const std::pair<std::string, std::string> cases[] = {
      {"fifo.txt", "a FIFO"}, {"zero.txt", "a character device"}, {"folder.txt", "a folder"}};
  for (const auto& [name, what] : cases) {
    DatasetSpec spec = Folders(dir / "images", dir / "masks");
    spec.name = "list";
    spec.list_file = dir / name;
    try {
      ListDataset(spec);
      ADD_FAILURE() << "expected FileError for " << name;
    } catch (const FileError& e) {
      EXPECT_EQ(e.error().path, (dir / name).string());
      EXPECT_EQ(e.error().detail, "cannot read list file: not a regular file (" + what + ")");
    }
  }
}

// A two-column list's line naming a folder: the folder is there, so the
// problem says it is not a regular file rather than "no such image".
TEST(DatasetRulesTest, AListLineNamingAFolderSaysItIsNotARegularFile) {
  TempDir dir;
  Touch(dir / "photos" / "a.jpg");
  Touch(dir / "masks" / "a.png");
  fs::create_directories(dir / "photos" / "b.jpg");
  WriteText(dir / "pairs.tsv", "photos/b.jpg\tmasks/a.png\nphotos/a.jpg\tmasks\n");
  DatasetSpec spec;
  spec.name = "list";
  spec.list_file = dir / "pairs.tsv";
  const Dataset dataset = ListDataset(spec);
  ASSERT_EQ(Kinds(dataset), (std::vector<std::string>{"missing_image", "missing_mask"}));
  EXPECT_EQ(dataset.problems[0].detail,
            "not a regular file (a folder), listed on line 1 of " + spec.list_file.string());
  EXPECT_EQ(dataset.problems[1].detail, "the mask " + (dir / "masks").string() +
                                            " is not a regular file (a folder), listed on line 2 "
                                            "of " +
                                            spec.list_file.string());
}

TEST(DatasetRulesTest, KeywordsChooseTheRule) {
  EXPECT_EQ(DatasetFromValues("root", {}).name, "carvana");
  const DatasetSpec voc = DatasetFromValues("root", Values{{"dataset", "voc"}, {"split", "val"}});
  EXPECT_EQ(voc.list_file, fs::path("root/ImageSets/Segmentation/val.txt"));
  const DatasetSpec folders = DatasetFromValues("root", Values{{"images", "img"},
                                                               {"masks", "/abs/lbl"},
                                                               {"mask_suffix", ""},
                                                               {"image_extensions", "png,.JPG"}});
  EXPECT_EQ(folders.name, "folders");
  EXPECT_EQ(folders.image_dir, fs::path("root/img"));
  EXPECT_EQ(folders.mask_dir, fs::path("/abs/lbl"));
  EXPECT_EQ(folders.mask_suffix, "");
  EXPECT_EQ(folders.image_extensions, (std::vector<std::string>{".png", ".JPG"}));
  const DatasetSpec list = DatasetFromValues("", Values{{"list_file", "l.txt"}, {"root", "r"}});
  EXPECT_EQ(list.name, "list");
  EXPECT_EQ(list.list_root, fs::path("r"));
  EXPECT_TRUE(DatasetFromValues("", Values{{"images", "i"}, {"masks", "m"}, {"recursive", "true"}})
                  .recursive);

  for (const auto& [values, words] : std::vector<std::pair<Values, std::string>>{
           {{}, "no dataset"},
           {{{"images", "i"}}, "images needs masks"},
           {{{"dataset", "voc"}, {"images", "i"}}, "images does not go with dataset voc"},
           {{{"dataset", "pascal"}}, "dataset must be one of carvana, voc"},
           {{{"split", "train"}}, "the carvana layout has no splits"},
           {{{"dataset", "voc"}, {"split", "../x"}}, "split must be a name"},
           {{{"recursive", "yes"}}, "recursive must be true or false"},
           {{{"list_file", "l"}, {"allow_outside_root", "maybe"}},
            "allow_outside_root must be true or false"},
           {{{"images", "i"}, {"masks", "m"}, {"allow_outside_root", "true"}},
            "allow_outside_root does not go with dataset folders"},
           {{{"colour", "red"}}, "unknown dataset keyword 'colour'"}}) {
    const fs::path data = words == "no dataset" || words == "images needs masks" ? "" : "root";
    try {
      DatasetFromValues(data, values);
      ADD_FAILURE() << "expected ConfigError: " << words;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

TEST(DatasetRulesTest, PairListCostsLittlePerPairAndStoresEachFolderOnce) {
  PairList keyed("img", "lbl", "_leftImg8bit", "_gtFine_labelIds");
  const uint32_t folder = keyed.AddFolder("train/aachen");
  constexpr int kPairs = 1000;
  for (int i = 0; i < kPairs; ++i)
    keyed.AddKeyed(folder, "aachen_" + std::to_string(100000 + i), ".png", ".png");
  EXPECT_EQ(keyed[7].image_path, fs::path("img/train/aachen/aachen_100007_leftImg8bit.png"));
  EXPECT_EQ(keyed[7].stem, "train/aachen/aachen_100007");
  // 16 bytes of indices per pair, its 13-byte key, and vector slack.
  EXPECT_LE(keyed.memory_bytes(), kPairs * (16 + 13) * 2u);
}

// The listing builds each pair's paths as strings; they must be what
// std::filesystem's operator/ gives, for every shape of folder.
TEST(DatasetRulesTest, PairPathsAreWhatOperatorSlashJoins) {
  for (const fs::path& root : {fs::path("data"), fs::path("data/"), fs::path("/"), fs::path(""),
                               fs::path("/abs/root"), fs::path("rel//double")}) {
    PairList keyed(root / "img", root / "lbl", "", "_mask");
    const uint32_t top = keyed.AddFolder("");
    const uint32_t nested = keyed.AddFolder("a/b");
    keyed.AddKeyed(top, "k1", ".jpg", ".gif");
    keyed.AddKeyed(nested, "k2", ".JPEG", ".png");
    EXPECT_EQ(keyed[0].image_path, root / "img" / "k1.jpg") << root;
    EXPECT_EQ(keyed[0].mask_path, root / "lbl" / "k1_mask.gif") << root;
    EXPECT_EQ(keyed[1].image_path, root / "img" / "a/b" / "k2.JPEG") << root;
    EXPECT_EQ(keyed[1].mask_path, root / "lbl" / "a/b" / "k2_mask.png") << root;
    EXPECT_EQ(keyed[1].image_path.native(), (root / "img" / "a/b" / "k2.JPEG").native()) << root;
    EXPECT_EQ(keyed[1].stem, "a/b/k2");
  }
  PairList bare("", "", "", "");
  bare.AddKeyed(bare.AddFolder(""), "k", ".jpg", ".gif");
  EXPECT_EQ(bare[0].image_path.native(), "k.jpg");
  PairList trailing("img/", "lbl/", "", "");
  trailing.AddKeyed(trailing.AddFolder("sub"), "k", ".jpg", ".gif");
  EXPECT_EQ(trailing[0].image_path.native(), "img/sub/k.jpg");
}

}  // namespace
}  // namespace segfeed
