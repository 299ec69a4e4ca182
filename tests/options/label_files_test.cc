// The files the label options read: a colour list for mask_colors
// (CamVid's label_colors.txt form) and a list of class names for
// class_names, and the "ignore" entry a colour may have.

#include "options/label_files.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/option_table.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;

std::string MessageOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

LoaderOptions Labels(int num_classes) {
  LoaderOptions options;
  FindOption("mask_mode")->Parse(options, "labels");
  FindOption("num_classes")->Parse(options, std::to_string(num_classes));
  FindOption("mask_dtype")->Parse(options, "int64");
  return options;
}

TEST(LabelFilesTest, AColourFileIsClassesInLineOrderItsVoidIgnored) {
  testing::TempDir dir;
  const fs::path file = dir / "label_colors.txt";
  std::ofstream(file) << "64 128 64\tAnimal\n# a comment\n\n0 0 0\t\tVoid\n128 0 0\t\tBuilding\n";
  LoaderOptions options = Labels(2);
  FindOption("mask_colors")->Parse(options, file.string());
  const std::vector<MaskColor> expected = {
      {{64, 128, 64}, 0, false}, {{0, 0, 0}, 0, true}, {{128, 0, 0}, 1, false}};
  EXPECT_EQ(options.decode.mask_colors, expected);
  EXPECT_EQ(options.decode.class_names, (std::vector<std::string>{"Animal", "Building"}));
  ValidateLoaderOptions(options);
  // The Void colour stays ignore whatever ignore_index becomes after it.
  FindOption("ignore_index")->Parse(options, "-100");
  ValidateLoaderOptions(options);
  EXPECT_EQ(FindOption("mask_colors")->Text(options), "#408040:0,#000000:ignore,#800000:1");
  // The text form takes "ignore" as well, and gives back what it took.
  LoaderOptions again = Labels(2);
  FindOption("mask_colors")->Parse(again, "#408040:0,#000000:ignore,#800000:1");
  EXPECT_EQ(again.decode.mask_colors, expected);
}

TEST(LabelFilesTest, AColourFileSaysWhichLineIsWrong) {
  testing::TempDir dir;
  std::ofstream(dir / "bad.txt") << "64 128 64 Animal\n300 0 0 Sky\n";
  LoaderOptions options = Labels(2);
  EXPECT_EQ(
      MessageOf([&] { FindOption("mask_colors")->Parse(options, (dir / "bad.txt").string()); }),
      "mask_colors file " + (dir / "bad.txt").string() +
          " line 2 must start with three levels R G B in [0, 255] (got '300 0 0 Sky')");
  const std::string missing = (dir / "missing.txt").string();
  EXPECT_EQ(MessageOf([&] { FindOption("mask_colors")->Parse(options, missing); }),
            "mask_colors cannot read '" + missing + "' (No such file or directory)");
}

TEST(LabelFilesTest, ClassNamesComeAsAListTextOrAFile) {
  testing::TempDir dir;
  std::ofstream(dir / "names.txt") << "road\n# skipped\n\n  car  \n";
  LoaderOptions options = Labels(2);
  const OptionSpec* names = FindOption("class_names");
  names->Parse(options, (dir / "names.txt").string());
  EXPECT_EQ(options.decode.class_names, (std::vector<std::string>{"road", "car"}));
  names->Parse(options, "sky, tree");
  EXPECT_EQ(options.decode.class_names, (std::vector<std::string>{"sky", "tree"}));
  EXPECT_EQ(names->Text(options), "sky,tree");
  names->Set(options, std::vector<OptionScalar>{std::string("a"), std::string("b")});
  EXPECT_EQ(options.decode.class_names, (std::vector<std::string>{"a", "b"}));
  ValidateLoaderOptions(options);
  EXPECT_FALSE(names->in_stream());  // names change no batch byte
  names->Parse(options, "a,b,c");
  EXPECT_EQ(MessageOf([&] { ValidateLoaderOptions(options); }),
            "class_names must name the num_classes = 2 classes, one name each (got 3 names)");
  EXPECT_EQ(MessageOf([&] { names->Parse(options, "a,,b"); }),
            "class_names must be names without commas, none empty (got '')");
  names->Parse(options, "none");
  EXPECT_TRUE(options.decode.class_names.empty());
  LoaderOptions binary;
  names->Parse(binary, "background,car");
  EXPECT_EQ(MessageOf([&] { ValidateLoaderOptions(binary); }),
            "class_names applies to label maps: set mask_mode='labels' (got 2 names with "
            "mask_mode='binary')");
}

}  // namespace
}  // namespace segfeed
