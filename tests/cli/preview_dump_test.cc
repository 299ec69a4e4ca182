// PreviewDumpName: dump file names always fit in a file name, stay unique
// and keep whole characters. WritePreviewDump: a key with sub-folders is
// dumped into sub-folders of the dump folder, and nowhere else.
#include "cli/preview_dump.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "output/utf8.h"
#include "support/hostile_names.h"
#include "temp_dir.h"

namespace segfeed::cli {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::LongStem;
using segfeed::testing::TempDir;

std::vector<PreviewSample> SamplesWithStems(const std::vector<std::string>& stems) {
  std::vector<PreviewSample> samples;
  for (const std::string& stem : stems) {
    PreviewSample sample;
    sample.sample_id = static_cast<uint32_t>(samples.size());
    sample.stem = stem;
    sample.width = 2;
    sample.height = 2;
    sample.rgb.assign(2 * 2 * 3, 128);
    sample.mask.assign(2 * 2, 1);
    samples.push_back(std::move(sample));
  }
  return samples;
}

// Every regular file under `top`, relative to it, temporary files included.
std::set<std::string> FilesUnder(const fs::path& top) {
  std::set<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(top)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), top).string());
  }
  return files;
}

TEST(PreviewDumpTest, StemsThatFitAreKept) {
  EXPECT_EQ(PreviewDumpName("0cdf5b5d_01"), "0cdf5b5d_01");
  const std::string longest = LongStem("a", 255 - std::string("_image.png").size());
  EXPECT_EQ(PreviewDumpName(longest), longest);
}

TEST(PreviewDumpTest, LongStemsAreCutAtACharacterAndTaggedWithADigest) {
  for (size_t bytes : {246u, 247u, 300u, 1000u}) {
    for (const std::string prefix : {"a", "ab"}) {  // both parities of the cut
      const std::string stem = LongStem(prefix, bytes);
      const std::string name = PreviewDumpName(stem);
      EXPECT_LE(name.size() + std::string("_image.png").size(), 255u) << bytes;
      EXPECT_TRUE(output::IsValidUtf8(name)) << bytes << " " << prefix;
      const size_t tilde = name.rfind('~');
      ASSERT_NE(tilde, std::string::npos) << name;
      EXPECT_EQ(name.size() - tilde, 9u) << name;
      EXPECT_EQ(stem.compare(0, tilde, name, 0, tilde), 0) << "a prefix of the stem";
      EXPECT_EQ(PreviewDumpName(stem), name) << "the same every run";
    }
  }
}

TEST(PreviewDumpTest, StemsSharingALongPrefixGetDifferentNames) {
  const std::string prefix = LongStem("p", 400);
  EXPECT_NE(PreviewDumpName(prefix + "_01"), PreviewDumpName(prefix + "_02"));
}

TEST(PreviewDumpTest, ParamsJsonKeepsTheWholeStemAndNamesTheFiles) {
  PreviewSample sample;
  sample.stem = LongStem("s", 300);
  sample.width = 1;
  sample.height = 1;
  const PreviewSample samples[] = {sample};
  const std::string json = PreviewParamsJson(samples, 0, 0);
  EXPECT_NE(json.find("\"stem\":\"" + sample.stem + "\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"image\":\"" + PreviewDumpName(sample.stem) + "_image.png\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"mask\":\"" + PreviewDumpName(sample.stem) + "_mask.png\""),
            std::string::npos)
      << json;
}

// Cityscapes' keys, --recursive trees and lists name sub-folders: each
// sample goes into the same sub-folder of the dump, and params.json names
// the files by their path under it.
TEST(PreviewDumpTest, KeysWithSubFoldersAreDumpedIntoSubFolders) {
  TempDir dir;
  const std::vector<PreviewSample> samples =
      SamplesWithStems({"aachen/aachen_000000_000019", "bochum/bochum_000000_000313", "top",
                        "a/b/c/deep", "non-utf8 \xff\xfe/key \xc3"});
  const Status status = WritePreviewDump(dir / "dump", samples, 0, 0);
  ASSERT_TRUE(status.ok()) << status.error().Message();
  EXPECT_EQ(FilesUnder(dir / "dump"),
            (std::set<std::string>{
                "aachen/aachen_000000_000019_image.png", "aachen/aachen_000000_000019_mask.png",
                "bochum/bochum_000000_000313_image.png", "bochum/bochum_000000_000313_mask.png",
                "top_image.png", "top_mask.png", "a/b/c/deep_image.png", "a/b/c/deep_mask.png",
                "non-utf8 \xff\xfe/key \xc3_image.png", "non-utf8 \xff\xfe/key \xc3_mask.png",
                "params.json"}));
  const std::string json = PreviewParamsJson(samples, 0, 0);
  EXPECT_NE(json.find("\"image\":\"aachen/aachen_000000_000019_image.png\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"mask\":\"a/b/c/deep_mask.png\""), std::string::npos) << json;
}

// A stem made from a list's path may climb (`../x`, with
// --allow-outside-root), be absolute or hold empty and "." parts: its files
// still land inside the dump folder, each sample under a name of its own.
TEST(PreviewDumpTest, StemsThatWouldLeaveTheFolderStayInside) {
  TempDir dir;
  const std::vector<std::string> stems = {"../escaped",
                                          "../../escaped",
                                          "a/../../escaped",
                                          "/tmp/absolute",
                                          "tmp/absolute",
                                          "a//b",
                                          "a/b",
                                          "./c",
                                          "c",
                                          "a/./b",
                                          "..",
                                          "x/.."};
  const std::vector<PreviewSample> samples = SamplesWithStems(stems);
  const Status status = WritePreviewDump(dir / "out" / "dump", samples, 0, 0);
  ASSERT_TRUE(status.ok()) << status.error().Message();
  EXPECT_EQ(FilesUnder(dir.path()).size(), 2 * stems.size() + 1)
      << "every sample has two files of its own, all under the dump folder";
  std::set<std::string> names;
  for (const std::string& stem : stems) {
    const std::string name = PreviewDumpPath(stem);
    EXPECT_TRUE(names.insert(name).second) << stem << " -> " << name;
    EXPECT_TRUE(fs::is_regular_file(dir / "out" / "dump" / (name + "_image.png"))) << name;
    const fs::path image(name + "_image.png");
    for (const auto& part : image) EXPECT_TRUE(part != ".." && part != ".") << name;
    EXPECT_FALSE(image.is_absolute()) << name;
  }
}

// A sub-folder of the dump that is a link (left there by someone else) is
// not written through: it could lead anywhere, the dataset included.
TEST(PreviewDumpTest, ASubFolderThatIsALinkIsNotWrittenThrough) {
  TempDir dir;
  fs::create_directories(dir / "dump");
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "dump" / "aachen");
  const Status status =
      WritePreviewDump(dir / "dump", SamplesWithStems({"aachen/aachen_000000_000019"}), 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().path, (dir / "dump" / "aachen").string());
  EXPECT_NE(status.error().detail.find("symbolic link"), std::string::npos)
      << status.error().detail;
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere"));
}

}  // namespace
}  // namespace segfeed::cli
