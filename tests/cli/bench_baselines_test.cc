// The naive baseline of `segfeed bench` on bad files: an error naming the
// file, never a crash or a wait for a writer that never comes.
#include "cli/bench_baselines.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "demo/demo_dataset.h"
#include "source/files_source.h"
#include "temp_dir.h"

namespace segfeed::cli {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

// Three small clean pairs, listed as the loader lists them.
PairList CleanPairs(const fs::path& root) {
  demo::DemoOptions demo;
  demo.count = 3;
  demo.width = 64;
  demo.height = 48;
  EXPECT_TRUE(demo::WriteDemoDataset(root, demo, {}).ok());
  return ListDataset(DatasetSpec::Carvana(root)).pairs;
}

void KeepFirstBytes(const fs::path& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  in.close();
  content.resize(std::min(bytes, content.size()));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

LoaderOptions SmallOutput() {
  LoaderOptions options;
  options.augment.output_width = options.augment.output_height = 32;
  return options;
}

TEST(BenchBaselinesTest, CleanPairsGiveARate) {
  TempDir dir;
  const PairList pairs = CleanPairs(dir / "data");
  source::FilesSource files(pairs);
  const auto measured = NaiveBaselinePairsPerSecond(files, SmallOutput(), 40);
  ASSERT_TRUE(measured.ok()) << measured.error().Message();
  EXPECT_GT(measured.value(), 0.0);
}

// Without a writer, opening a FIFO the way cv::imread and
// DGifOpenFileName do blocks forever.
TEST(BenchBaselinesTest, FifoImageOrMaskIsAnErrorNamingIt) {
  for (const bool image : {true, false}) {
    TempDir dir;
    const PairList pairs = CleanPairs(dir / "data");
    const fs::path& fifo = image ? pairs[1].image_path : pairs[2].mask_path;
    fs::remove(fifo);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    source::FilesSource files(pairs);
    const auto measured = NaiveBaselinePairsPerSecond(files, SmallOutput(), 40);
    ASSERT_FALSE(measured.ok()) << fifo;
    EXPECT_EQ(measured.error().path, fifo.string());
    EXPECT_EQ(measured.error().kind, ErrorKind::kIoError);
    EXPECT_NE(measured.error().detail.find("not a regular file"), std::string::npos)
        << measured.error().detail;
  }
}

// Cut in the screen descriptor, giflib gives no error code, and
// GifErrorString(0) is NULL; cut in the pixel data, DGifSlurp fails.
TEST(BenchBaselinesTest, TruncatedGifMaskIsAnErrorNamingIt) {
  for (size_t kept : {size_t{6}, size_t{40}}) {
    TempDir dir;
    const PairList pairs = CleanPairs(dir / "data");
    KeepFirstBytes(pairs[1].mask_path, kept);
    source::FilesSource files(pairs);
    const auto measured = NaiveBaselinePairsPerSecond(files, SmallOutput(), 40);
    ASSERT_FALSE(measured.ok()) << kept;
    EXPECT_EQ(measured.error().path, pairs[1].mask_path.string());
    EXPECT_EQ(measured.error().kind, ErrorKind::kCorruptMask);
    EXPECT_NE(measured.error().detail.find("truncated GIF"), std::string::npos)
        << measured.error().detail;
  }
}

TEST(BenchBaselinesTest, UndecodableImageIsAnErrorNamingIt) {
  TempDir dir;
  const PairList pairs = CleanPairs(dir / "data");
  std::ofstream(pairs[0].image_path, std::ios::binary | std::ios::trunc) << "not a photo at all";
  source::FilesSource files(pairs);
  const auto measured = NaiveBaselinePairsPerSecond(files, SmallOutput(), 40);
  ASSERT_FALSE(measured.ok());
  EXPECT_EQ(measured.error().path, pairs[0].image_path.string());
  EXPECT_EQ(measured.error().kind, ErrorKind::kCorruptImage);
}

}  // namespace
}  // namespace segfeed::cli
