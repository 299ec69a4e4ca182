#include "source/file_reader.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <fstream>

#include <filesystem>

#include "fixtures/fixtures.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::TempDir;

TEST(FileReaderTest, ReadsWholeFile) {
  TempDir dir;
  const auto bytes = testing::RandomBytes(100000, 1);
  testing::WriteFile(dir / "a.jpg", bytes);
  FileReader reader;
  auto read = reader.Read(dir / "a.jpg");
  ASSERT_TRUE(read.ok()) << read.error().Message();
  EXPECT_TRUE(std::equal(read.value().begin(), read.value().end(), bytes.begin(), bytes.end()));
}

TEST(FileReaderTest, ReusesBufferForSmallerFiles) {
  TempDir dir;
  testing::WriteFile(dir / "big", testing::RandomBytes(5000, 1));
  testing::WriteFile(dir / "small", testing::RandomBytes(100, 2));
  FileReader reader;
  ASSERT_TRUE(reader.Read(dir / "big").ok());
  const size_t capacity = reader.capacity_bytes();
  const uint8_t* data = reader.Read(dir / "big").value().data();
  auto small = reader.Read(dir / "small");
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small.value().size(), 100u);
  EXPECT_EQ(small.value().data(), data);
  EXPECT_EQ(reader.capacity_bytes(), capacity);
}

TEST(FileReaderTest, EmptyFileIsEmptyFile) {
  TempDir dir;
  testing::WriteFile(dir / "empty.jpg", {});
  FileReader reader;
  auto read = reader.Read(dir / "empty.jpg");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kEmptyFile);
  EXPECT_EQ(read.error().path, (dir / "empty.jpg").string());
}

TEST(FileReaderTest, MissingFileIsIoErrorNamingPath) {
  TempDir dir;
  FileReader reader;
  auto read = reader.Read(dir / "nope.jpg");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kIoError);
  EXPECT_EQ(read.error().path, (dir / "nope.jpg").string());
  EXPECT_NE(read.error().detail.find("No such file"), std::string::npos) << read.error().detail;
}

TEST(FileReaderTest, DanglingSymlinkIsIoError) {
  TempDir dir;
  std::filesystem::create_symlink(dir / "gone.jpg", dir / "link.jpg");
  FileReader reader;
  auto read = reader.Read(dir / "link.jpg");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kIoError);
}

TEST(FileReaderTest, FolderIsIoError) {
  TempDir dir;
  std::filesystem::create_directory(dir / "sub.jpg");
  FileReader reader;
  auto read = reader.Read(dir / "sub.jpg");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kIoError);
}

TEST(FileReaderTest, FifoIsIoErrorWithoutBlocking) {
  TempDir dir;
  const auto fifo = dir / "pipe.jpg";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  FileReader reader;
  auto bytes = reader.Read(fifo);  // must return, not wait for a writer
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().kind, ErrorKind::kIoError);
  EXPECT_EQ(bytes.error().detail, "not a regular file");
}

TEST(FileReaderTest, FileOverTheLimitIsTooLargeWithoutAllocating) {
  TempDir dir;
  const auto huge = dir / "huge.jpg";
  std::ofstream(huge) << "x";
  std::filesystem::resize_file(huge, int64_t{1} << 40);  // sparse: costs no disk
  FileReader reader(int64_t{1} << 20);
  auto bytes = reader.Read(huge);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().kind, ErrorKind::kTooLarge);
  EXPECT_NE(bytes.error().detail.find("max_file_bytes = 1048576"), std::string::npos)
      << bytes.error().detail;
  EXPECT_EQ(reader.capacity_bytes(), 0u);
}

}  // namespace
}  // namespace segfeed::source
