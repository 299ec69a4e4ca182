#include "source/shard_index.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "digest.h"
#include "fixtures/fixtures.h"
#include "source/shard_samples.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::File;
using testing::RandomBytes;
using testing::TarFormat;
using testing::TempDir;

class ShardIndexTest : public ::testing::Test {
 protected:
  ShardIndexTest() {
    std::filesystem::create_directories(dir_ / "shards");
    testing::WriteTar(
        shard(0), TarFormat::kPax,
        {File("train/a.jpg", RandomBytes(300, 1)), File("train/a.mask.png", RandomBytes(30, 2)),
         File("train/b.jpg", RandomBytes(400, 3))});
    testing::WriteTar(shard(1), TarFormat::kGnu,
                      {File("c.mask.gif", RandomBytes(50, 4)),
                       File("c.png", RandomBytes(60, 5)),
                       {"d.jpg", {}, testing::TarEntrySpec::Type::kSymlink},
                       File("d.mask.png", {})});
    listing_ = ScanShards({shard(0), shard(1)});
  }

  std::filesystem::path shard(int i) const {
    return dir_ / "shards" / ("data-00000" + std::to_string(i) + ".tar");
  }
  std::filesystem::path index() const { return dir_ / "shards" / kShardIndexFileName; }

  TempDir dir_;
  ShardListing listing_;
};

void ExpectSameCatalog(const ShardCatalog& read, const ShardCatalog& written) {
  ASSERT_EQ(read.sample_count(), written.sample_count());
  ASSERT_EQ(read.shards().size(), written.shards().size());
  for (size_t i = 0; i < read.shards().size(); ++i) {
    EXPECT_TRUE(std::filesystem::equivalent(read.shards()[i].path, written.shards()[i].path));
    EXPECT_EQ(read.shards()[i].bytes, written.shards()[i].bytes);
    EXPECT_EQ(read.shards()[i].digest, written.shards()[i].digest);
  }
  ASSERT_EQ(read.forms().size(), written.forms().size());
  for (size_t i = 0; i < read.forms().size(); ++i) {
    EXPECT_EQ(read.forms()[i].extension, written.forms()[i].extension);
    EXPECT_EQ(read.forms()[i].kind, written.forms()[i].kind);
  }
  for (SampleId id = 0; id < read.sample_count(); ++id) {
    EXPECT_EQ(read.Key(id), written.Key(id));
    EXPECT_EQ(std::memcmp(&read.record(id), &written.record(id), sizeof(SampleRecord)), 0) << id;
  }
}

template <typename T>
void Put(std::vector<uint8_t>* out, T value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  out->insert(out->end(), bytes, bytes + sizeof value);
}

void PutText(std::vector<uint8_t>* out, const std::string& text) {
  Put(out, static_cast<uint32_t>(text.size()));
  out->insert(out->end(), text.begin(), text.end());
}

// `catalog` as a version 1 or 2 index (48-byte records with both offsets
// and a plain key arena) beside its shards, as segfeed wrote it before
// version 3; version 2 with the dataset section `options`.
std::vector<uint8_t> IndexBeforeVersion3(
    const ShardCatalog& catalog, uint32_t version,
    const std::vector<std::pair<std::string, std::string>>& options = {}) {
  std::string arena;
  std::vector<uint8_t> records;
  for (SampleId id = 0; id < catalog.sample_count(); ++id) {
    const SampleRecord& record = catalog.record(id);
    for (const Member member : {Member::kImage, Member::kMask})
      Put(&records, record.form[MemberIndex(member)] ? catalog.MemberOffset(id, member) : 0);
    Put(&records, record.digest[0]);
    Put(&records, record.digest[1]);
    Put(&records, record.size[0]);
    Put(&records, record.size[1]);
    Put(&records, static_cast<uint32_t>(arena.size()));
    Put(&records, record.shard);
    Put(&records, record.form[0]);
    Put(&records, record.form[1]);
    arena += catalog.Key(id);
  }
  std::vector<uint8_t> out = {'S', 'F', 'S', 'H', 'A', 'R', 'D', 'S'};
  Put(&out, version);
  Put(&out, uint32_t{48});
  Put(&out, static_cast<uint32_t>(catalog.shards().size()));
  Put(&out, static_cast<uint32_t>(catalog.forms().size()));
  Put(&out, static_cast<uint64_t>(catalog.sample_count()));
  Put(&out, static_cast<uint64_t>(arena.size()));
  for (const ShardCatalog::Shard& shard : catalog.shards()) {
    PutText(&out, shard.path.filename().string());
    Put(&out, shard.bytes);
    Put(&out, shard.digest);
  }
  for (const ShardCatalog::MemberForm& form : catalog.forms()) {
    PutText(&out, form.extension);
    Put(&out, static_cast<uint8_t>(form.kind));
  }
  out.insert(out.end(), arena.begin(), arena.end());
  out.insert(out.end(), records.begin(), records.end());
  if (version == 2) {
    Put(&out, static_cast<uint32_t>(options.size()));
    for (const auto& [name, value] : options) {
      PutText(&out, name);
      PutText(&out, value);
    }
    Put(&out, uint64_t{0});
  }
  Digest digest;
  digest.Update(out.data(), out.size());
  Put(&out, digest.Value());
  return out;
}

TEST_F(ShardIndexTest, RoundTrip) {
  ASSERT_TRUE(listing_.errors.empty());
  ASSERT_EQ(listing_.catalog.sample_count(), 4u);
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index()).ok());
  for (ShardCheck check : {ShardCheck::kSizes, ShardCheck::kDigests}) {
    Result<ShardCatalog> read = ReadShardIndex(index(), check);
    ASSERT_TRUE(read.ok()) << read.error().Message();
    ExpectSameCatalog(read.value(), listing_.catalog);
    EXPECT_EQ(read.value().FormOf(3, Member::kImage)->kind, TarEntryKind::kLink);
  }
}

TEST_F(ShardIndexTest, TheFolderCanMoveAsAWhole) {
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index()).ok());
  std::filesystem::rename(dir_ / "shards", dir_ / "moved");
  Result<ShardCatalog> read = ReadShardIndex(dir_ / "moved" / kShardIndexFileName);
  ASSERT_TRUE(read.ok()) << read.error().Message();
  EXPECT_EQ(read.value().ShardOf(0).path, dir_ / "moved" / "data-000000.tar");
}

TEST_F(ShardIndexTest, AStaleIndexIsRefusedNamingTheShardAndTheCommand) {
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index()).ok());
  const auto expect_refused = [&](ShardCheck check, const std::string& detail) {
    Result<ShardCatalog> read = ReadShardIndex(index(), check);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().path, shard(1).string());
    EXPECT_NE(read.error().detail.find(detail), std::string::npos) << read.error().Message();
    EXPECT_NE(read.error().detail.find("segfeed index"), std::string::npos)
        << read.error().Message();
  };
  // Same size, other bytes: only the digest tells.
  std::vector<uint8_t> tar = testing::ReadAll(shard(1));
  tar[tar.size() / 3] ^= 1;
  testing::WriteAll(shard(1), tar);
  EXPECT_TRUE(ReadShardIndex(index(), ShardCheck::kSizes).ok());
  expect_refused(ShardCheck::kDigests, "digest");
  tar.resize(tar.size() + 512);
  testing::WriteAll(shard(1), tar);
  expect_refused(ShardCheck::kSizes, "bytes, indexed at");
  std::filesystem::remove(shard(1));
  expect_refused(ShardCheck::kSizes, "missing");
}

TEST_F(ShardIndexTest, ADamagedIndexIsRefused) {
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index()).ok());
  const std::vector<uint8_t> good = testing::ReadAll(index());
  for (size_t at : {size_t{3}, size_t{9}, good.size() / 2, good.size() - 1}) {
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0x10;
    testing::WriteAll(index(), bad);
    EXPECT_FALSE(ReadShardIndex(index()).ok()) << "byte " << at;
  }
  std::vector<uint8_t> short_index(good.begin(),
                                   good.begin() + static_cast<int64_t>(good.size()) - 60);
  testing::WriteAll(index(), short_index);
  EXPECT_FALSE(ReadShardIndex(index()).ok());
}

// `bytes` with the trailer digest made right again: a damaged index that
// its digest does not give away (a hostile one, or a writer's bug).
std::vector<uint8_t> Resealed(std::vector<uint8_t> bytes) {
  Digest digest;
  digest.Update(bytes.data(), bytes.size() - sizeof(uint64_t));
  const uint64_t trailer = digest.Value();
  std::memcpy(bytes.data() + bytes.size() - sizeof trailer, &trailer, sizeof trailer);
  return bytes;
}

// Every prefix of a small index, as it is and resealed: refused naming the
// file, never a crash (run under the asan preset too).
TEST_F(ShardIndexTest, AnIndexCutAtAnyLengthIsRefused) {
  ASSERT_TRUE(
      WriteShardIndex(listing_.catalog, index(), {{{"num_classes", "21"}}, {{2, "c.v2"}}}).ok());
  const std::vector<uint8_t> good = testing::ReadAll(index());
  for (size_t length = 0; length < good.size(); ++length) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
    for (const bool reseal : {false, true}) {
      if (reseal && length < 8 + sizeof(uint64_t)) continue;
      testing::WriteAll(index(), reseal ? Resealed(cut) : cut);
      const Result<ShardCatalog> read = ReadShardIndex(index());
      ASSERT_FALSE(read.ok()) << "cut at " << length << (reseal ? ", resealed" : "");
      EXPECT_EQ(read.error().path, index().string());
    }
  }
}

// Each count field set to values up to 2^32 - 1 (and 2^64 - 1 for the
// 64-bit ones) under a right digest: refused before a table of that size
// is made, naming the file.
TEST_F(ShardIndexTest, ACountTheFileCannotHoldIsRefusedBeforeAllocating) {
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index()).ok());
  const std::vector<uint8_t> good = testing::ReadAll(index());
  // magic, version, record bytes, then the counts; the dataset section
  // (empty: two zero counts) ends before the trailer.
  struct Field {
    const char* name;
    size_t offset, bytes;
  };
  const size_t section = good.size() - sizeof(uint64_t) - 12;
  const Field fields[] = {{"shard_count", 16, 4},       {"form_count", 20, 4},
                          {"sample_count", 24, 8},      {"key_bytes", 32, 8},
                          {"option_count", section, 4}, {"original_key_count", section + 4, 8}};
  for (const Field& field : fields) {
    for (const uint64_t value : {uint64_t{0xFFFFFFFF}, uint64_t{0x80000000}, uint64_t{65535},
                                 uint64_t{1} << 20, uint64_t{1000}, ~uint64_t{0}}) {
      std::vector<uint8_t> bad = good;
      std::memcpy(bad.data() + field.offset, &value, field.bytes);
      testing::WriteAll(index(), Resealed(bad));
      const Result<ShardCatalog> read = ReadShardIndex(index());
      ASSERT_FALSE(read.ok()) << field.name << " = " << value;
      EXPECT_EQ(read.error().path, index().string());
    }
  }
  // The header's counts are weighed against the file's size.
  std::vector<uint8_t> bad = good;
  const uint64_t samples = 50000000;
  std::memcpy(bad.data() + 24, &samples, sizeof samples);
  testing::WriteAll(index(), Resealed(bad));
  const Result<ShardCatalog> read = ReadShardIndex(index());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().detail.find("claims 50000000 samples"), std::string::npos)
      << read.error().Message();
  EXPECT_NE(read.error().detail.find("bytes can hold"), std::string::npos);
}

// The catalog's memory at 100k samples: at most 48 bytes per sample held,
// the key text included (40 bytes of record, the keys front-coded).
TEST(ShardCatalogMemoryTest, AtMost48BytesPerSampleKeysIncluded) {
  constexpr size_t kSamples = 100000;
  std::vector<TarScan> scans(1);
  scans[0].shard = "big.tar";
  scans[0].bytes = int64_t{1} << 40;
  size_t key_text = 0;
  for (size_t i = 0; i < kSamples; ++i) {
    const std::string key = "train/city_" + std::to_string(i);
    key_text += key.size();
    scans[0].members.push_back({key + ".jpg", TarEntryKind::kRegular, int64_t(i) * 4096, 1000, i});
    scans[0].members.push_back(
        {key + ".mask.png", TarEntryKind::kRegular, int64_t(i) * 4096 + 2048, 100, i});
  }
  const ShardListing listing = ListShardSamples(scans);
  ASSERT_EQ(listing.catalog.sample_count(), kSamples);
  const ShardCatalog& catalog = listing.catalog;
  // Per sample: its record and its share of the keys.
  const size_t per_sample_bytes =
      catalog.records().capacity() * sizeof(SampleRecord) + catalog.keys().held_bytes();
  const double per_sample = static_cast<double>(per_sample_bytes) / kSamples;
  // Per dataset: the tables of shards and member forms.
  const size_t tables = catalog.held_bytes() - per_sample_bytes;
  std::printf(
      "catalog: %zu bytes for %zu samples: %.2f bytes per sample (%zu of key text stored in "
      "%zu), %zu of tables\n",
      catalog.held_bytes(), kSamples, per_sample, key_text, catalog.keys().arena().size(), tables);
  EXPECT_LE(per_sample, 48.0);
  EXPECT_LE(tables, 1024u);
  for (const size_t id : {size_t{0}, size_t{15}, size_t{16}, size_t{12345}, kSamples - 1})
    EXPECT_EQ(catalog.Key(static_cast<SampleId>(id)), "train/city_" + std::to_string(id));
}

TEST_F(ShardIndexTest, RecordsTheDatasetBesideTheCatalog) {
  ShardIndexDataset dataset;
  dataset.options = {{"mask_mode", "labels"}, {"num_classes", "21"}, {"label_map", "{1: 0}"}};
  dataset.original_keys = {{2, "c.v2"}};
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index(), dataset).ok());
  ShardIndexDataset read_dataset;
  Result<ShardCatalog> read = ReadShardIndex(index(), ShardCheck::kSizes, &read_dataset);
  ASSERT_TRUE(read.ok()) << read.error().Message();
  ExpectSameCatalog(read.value(), listing_.catalog);
  EXPECT_EQ(read_dataset.options, dataset.options);
  EXPECT_EQ(read_dataset.original_keys, dataset.original_keys);
  // Without the argument the dataset section is read past.
  EXPECT_TRUE(ReadShardIndex(index()).ok());
}

TEST_F(ShardIndexTest, ReadsVersionsOneAndTwo) {
  // Version 1: no dataset section.
  testing::WriteAll(index(), IndexBeforeVersion3(listing_.catalog, 1));
  ShardIndexDataset dataset{{{"stale", "x"}}, {}};
  Result<ShardCatalog> read = ReadShardIndex(index(), ShardCheck::kSizes, &dataset);
  ASSERT_TRUE(read.ok()) << read.error().Message();
  ExpectSameCatalog(read.value(), listing_.catalog);
  EXPECT_TRUE(dataset.options.empty());
  // Version 2: the options too (a pack before class_names was recorded).
  testing::WriteAll(index(), IndexBeforeVersion3(listing_.catalog, 2, {{"num_classes", "21"}}));
  read = ReadShardIndex(index(), ShardCheck::kSizes, &dataset);
  ASSERT_TRUE(read.ok()) << read.error().Message();
  ExpectSameCatalog(read.value(), listing_.catalog);
  EXPECT_EQ(dataset.options,
            (std::vector<std::pair<std::string, std::string>>{{"num_classes", "21"}}));
  // Written again, it is version 3, and reads back the same.
  ASSERT_TRUE(WriteShardIndex(read.value(), index(), dataset).ok());
  const std::vector<uint8_t> bytes = testing::ReadAll(index());
  EXPECT_EQ(bytes[8], 3);
  read = ReadShardIndex(index());
  ASSERT_TRUE(read.ok()) << read.error().Message();
  ExpectSameCatalog(read.value(), listing_.catalog);
}

TEST_F(ShardIndexTest, ADatasetSectionNamingAMissingSampleIsRefused) {
  ASSERT_TRUE(WriteShardIndex(listing_.catalog, index(), {{}, {{99, "x.y"}}}).ok());
  const Result<ShardCatalog> read = ReadShardIndex(index());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().detail.find("dataset section"), std::string::npos)
      << read.error().Message();
}

// Members more than 2 GiB apart cannot be one record: refused, naming the
// sample, when the catalog is built (the index cannot hold it).
TEST(ShardCatalogTest, APhotoAndMaskOver2GiBApartAreRefused) {
  ShardCatalog catalog;
  ASSERT_TRUE(catalog.AddShard({"big.tar", int64_t{1} << 40, 0}).ok());
  const ShardCatalog::MemberEntry photo{"jpg", TarEntryKind::kRegular, 512, 100, 1};
  ShardCatalog::MemberEntry mask{"mask.png", TarEntryKind::kRegular, 1024, 100, 2};
  ASSERT_TRUE(catalog.AddSample("near", 0, photo, mask).ok());
  mask.offset = 512 + (int64_t{1} << 31) + 512;
  const Status far = catalog.AddSample("far", 0, photo, mask);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().path, "big.tar:far");
  EXPECT_NE(far.error().detail.find("apart"), std::string::npos) << far.error().Message();
  // The mask before the photo is fine: a negative distance.
  mask.offset = 0;
  ASSERT_TRUE(catalog.AddSample("before", 0, photo, mask).ok());
  EXPECT_EQ(catalog.MemberOffset(1, Member::kMask), 0u);
  EXPECT_EQ(catalog.MemberOffset(1, Member::kImage), 512u);
  EXPECT_EQ(catalog.sample_count(), 2u);
}

}  // namespace
}  // namespace segfeed::source
