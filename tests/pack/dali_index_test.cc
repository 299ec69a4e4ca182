#include "pack/dali_index.h"

#include <gtest/gtest.h>

#include <string>

#include "fixtures/fixtures.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::pack {
namespace {

using segfeed::testing::File;
using segfeed::testing::RandomBytes;
using segfeed::testing::TarFormat;
using segfeed::testing::TempDir;

TEST(DaliIndexTest, OneLinePerSampleWithEachMembersOffsetAndSize) {
  TempDir dir;
  segfeed::testing::WriteTar(dir / "s.tar", TarFormat::kUstar,
                             {File("a/k.jpg", RandomBytes(700, 1)),
                              File("a/k.mask.png", RandomBytes(30, 2)),
                              File("a/k.json", RandomBytes(5, 3)),
                              File("b.jpg", RandomBytes(10, 4)),
                              {"folder", {}, segfeed::testing::TarEntrySpec::Type::kFolder},
                              File("b.mask.gif", RandomBytes(20, 5))});
  const source::TarScan scan = source::ScanTar(dir / "s.tar");
  Result<std::string> text = DaliIndexText(scan);
  ASSERT_TRUE(text.ok()) << text.error().Message();
  // ustar: a 512-byte header before each member, data padded to 512.
  EXPECT_EQ(text.value(),
            "v1.2 2\n"
            "jpg 512 700 a/k.jpg mask.png 2048 30 a/k.mask.png json 3072 5 a/k.json\n"
            "jpg 4096 10 b.jpg mask.gif 5632 20 b.mask.gif\n");
}

TEST(DaliIndexTest, RefusesANameWithWhitespaceAndADamagedShard) {
  TempDir dir;
  segfeed::testing::WriteTar(dir / "s.tar", TarFormat::kUstar,
                             {File("a b.jpg", RandomBytes(7, 1))});
  Result<std::string> text = DaliIndexText(source::ScanTar(dir / "s.tar"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().Message().find("s.tar:a b.jpg"), std::string::npos);
  std::vector<uint8_t> tar = segfeed::testing::ReadAll(dir / "s.tar");
  tar.resize(600);
  segfeed::testing::WriteAll(dir / "s.tar", tar);
  EXPECT_FALSE(DaliIndexText(source::ScanTar(dir / "s.tar")).ok());
}

}  // namespace
}  // namespace segfeed::pack
