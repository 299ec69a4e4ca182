// The acceptance test of shard datasets: folders packed into tar shards in
// listing order stream byte-identical batches to the folders (same options,
// seed, rank and world size), whichever way the shards are named, at any
// thread count, sharded by rank and resumed mid-epoch; and the shard
// dataset's own errors (a stale index, a bad member under skip).

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "demo/demo_layouts.h"
#include "segfeed/loader.h"
#include "segfeed/option_table.h"
#include "source/shard_packing.h"
#include "support/batch_bytes.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using testing::Remaining;

namespace fs = std::filesystem;
using segfeed::testing::PackIntoShards;
using segfeed::testing::TempDir;

// A Carvana tree of 13 pairs (binary GIF masks) and a VOC tree (palette
// PNG label maps, a split list), each packed into shards of 3 samples,
// written once for the suite.
class LoaderShardsTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    demo::DemoOptions demo;
    demo.count = 13;
    demo.width = 96;
    demo.height = 64;
    ASSERT_NO_FATAL_FAILURE(segfeed::testing::WriteDemoPairs(dir_->path() / "carvana", demo));
    ASSERT_TRUE(demo::WriteDemoLayout(dir_->path() / "voc", demo::DemoLayout::kVoc, demo, {}).ok());
    PackIntoShards(ListDataset(Carvana()).pairs, dir_->path() / "carvana-shards", 3);
    PackIntoShards(ListDataset(Voc()).pairs, dir_->path() / "voc-shards", 3);
    // As `segfeed pack` writes them: the preset's label options in the index.
    PackIntoShards(ListDataset(Voc()).pairs, dir_->path() / "voc-packed", 3, true,
                   segfeed::testing::TarFormat::kPax, Voc().options);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static fs::path Path(const std::string& name) { return dir_->path() / name; }
  static DatasetSpec Carvana() { return DatasetSpec::Carvana(Path("carvana")); }
  static DatasetSpec Voc() { return DatasetSpec::Voc(Path("voc"), "train"); }

  static LoaderOptions SmallOptions(int threads = 2) {
    LoaderOptions options;
    options.batch_size = 4;
    options.threads = threads;
    options.seed = 11;
    options.augment.output_width = 40;
    options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    return options;
  }

  static TempDir* dir_;
};
TempDir* LoaderShardsTest::dir_ = nullptr;

// Two epochs' batches.
std::vector<std::string> Stream(const DatasetSpec& spec, const LoaderOptions& options) {
  Loader loader(spec, options);
  std::vector<std::string> batches;
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    loader.StartEpoch(epoch);
    for (std::string& batch : Remaining(loader)) batches.push_back(std::move(batch));
  }
  return batches;
}

TEST_F(LoaderShardsTest, ShardsStreamTheFoldersBytesAtAnyThreadCount) {
  for (int threads : {1, 2}) {
    const std::vector<std::string> folders = Stream(Carvana(), SmallOptions(threads));
    ASSERT_EQ(folders.size(), 8u);
    EXPECT_TRUE(Stream(DatasetSpec::Shards(Path("carvana-shards")), SmallOptions(threads)) ==
                folders)
        << threads << " threads";
  }
}

TEST_F(LoaderShardsTest, EveryWayOfNamingTheShardsIsTheSameDataset) {
  const std::vector<std::string> folders = Stream(Carvana(), SmallOptions());
  const fs::path shards = Path("carvana-shards");
  std::vector<fs::path> tars;
  for (int i = 0; i < 5; ++i) tars.push_back(shards / ("train-00000" + std::to_string(i) + ".tar"));
  for (const DatasetSpec& spec : {DatasetSpec::Shards(shards / "index.sfidx"),
                                  DatasetSpec::Shards(shards / "train-{000000..000004}.tar"),
                                  DatasetSpec::Shards(tars), DatasetFromValues(shards, {})}) {
    EXPECT_EQ(ListDataset(spec).sample_count(), 13u) << DescribeDatasetRule(spec);
    EXPECT_TRUE(Stream(spec, SmallOptions()) == folders) << DescribeDatasetRule(spec);
  }
}

TEST_F(LoaderShardsTest, ShardsWithoutAnIndexAreScannedSayingHowLongItTook) {
  TempDir copy;
  for (const auto& entry : fs::directory_iterator(Path("carvana-shards"))) {
    if (entry.path().extension() == ".tar") fs::copy(entry.path(), copy / entry.path().filename());
  }
  ::testing::internal::CaptureStderr();
  const std::vector<std::string> scanned =
      Stream(DatasetSpec::Shards(copy / "train-{000000..000004}.tar"), SmallOptions());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(scanned == Stream(Carvana(), SmallOptions()));
  EXPECT_NE(said.find("no index for 5 shards; scanned them in"), std::string::npos) << said;
  EXPECT_NE(said.find("(13 samples)"), std::string::npos) << said;
  EXPECT_EQ(said.find("scanned", said.find("scanned") + 1), std::string::npos) << "said once";
  // A folder without an index is not a shard dataset.
  EXPECT_THROW(DatasetSpec::Shards(copy.path()), ConfigError);
}

TEST_F(LoaderShardsTest, LabelMapsStreamTheFoldersBytesWithThePresetsOptionsGiven) {
  const DatasetSpec folders = Voc();
  ASSERT_FALSE(folders.options.empty());
  for (int threads : {1, 2}) {
    LoaderOptions options = SmallOptions(threads);
    ApplyDatasetOptions(folders, options);  // the index records none: the user gives them
    options.output.mask_dtype = ElementType::kUint8;
    ASSERT_EQ(options.decode.mask_mode, MaskMode::kLabels);
    const std::vector<std::string> expected = Stream(folders, options);
    ASSERT_FALSE(expected.empty());
    EXPECT_TRUE(Stream(DatasetSpec::Shards(Path("voc-shards")), options) == expected)
        << threads << " threads";
  }
}

TEST_F(LoaderShardsTest, LabelOptionsRecordedInTheIndexAreTheDatasets) {
  const DatasetSpec shards = DatasetSpec::Shards(Path("voc-packed"));
  EXPECT_EQ(shards.options, Voc().options);
  EXPECT_TRUE(DatasetSpec::Shards(Path("voc-shards")).options.empty()) << "segfeed index: none";
  LoaderOptions from_folders = SmallOptions();
  ApplyDatasetOptions(Voc(), from_folders);
  from_folders.output.mask_dtype = ElementType::kUint8;
  LoaderOptions from_index = SmallOptions();
  ApplyDatasetOptions(shards, from_index);
  from_index.output.mask_dtype = ElementType::kUint8;
  EXPECT_EQ(from_index.decode.num_classes, 21);
  EXPECT_TRUE(Stream(shards, from_index) == Stream(Voc(), from_folders));
}

TEST_F(LoaderShardsTest, EachRankStreamsTheFoldersShard) {
  for (int rank : {0, 1}) {
    LoaderOptions options = SmallOptions();
    options.rank = rank;
    options.world_size = 2;
    const std::vector<std::string> folders = Stream(Carvana(), options);
    ASSERT_FALSE(folders.empty());
    EXPECT_TRUE(Stream(DatasetSpec::Shards(Path("carvana-shards")), options) == folders) << rank;
  }
}

TEST_F(LoaderShardsTest, AStateResumesMidEpochWithTheFoldersBytes) {
  LoaderOptions options = SmallOptions();
  options.rank = 1;
  options.world_size = 2;
  Loader folders(Carvana(), options);
  folders.StartEpoch(1);
  const std::vector<std::string> epoch = Remaining(folders);
  ASSERT_EQ(epoch.size(), 2u);

  const DatasetSpec shards = DatasetSpec::Shards(Path("carvana-shards"));
  std::string saved;
  {
    Loader loader(shards, options);
    loader.StartEpoch(1);
    ASSERT_TRUE(loader.Next().has_value());
    saved = loader.State().Serialize();
  }
  options.threads = 1;  // threads do not change the stream
  Loader resumed(shards, options);
  resumed.Restore(LoaderState::Parse(saved));
  EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{1, 1}));
  const std::vector<std::string> rest = Remaining(resumed);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_TRUE(rest[0] == epoch[1]);
}

TEST_F(LoaderShardsTest, TheShardBlockShuffleResumesMidEpochAndEvensTheRanks) {
  LoaderOptions options = SmallOptions();
  options.shuffle = Shuffle::kShards;
  options.shard_window = 2;
  options.world_size = 2;
  const DatasetSpec shards = DatasetSpec::Shards(Path("carvana-shards"));
  std::vector<std::string> epoch;
  for (int rank : {0, 1}) {
    options.rank = rank;
    Loader loader(shards, options);
    loader.StartEpoch(1);
    const std::vector<std::string> batches = Remaining(loader);
    EXPECT_EQ(loader.samples_per_epoch(), 7) << "13 samples padded to 14, 7 a rank";
    if (rank == 1) epoch = batches;
  }
  ASSERT_EQ(epoch.size(), 2u);
  EXPECT_FALSE(epoch == Stream(shards, SmallOptions())) << "another order than the global one";
  std::string saved;
  {
    Loader loader(shards, options);
    loader.StartEpoch(1);
    ASSERT_TRUE(loader.Next().has_value());
    saved = loader.State().Serialize();
  }
  Loader resumed(shards, options);
  resumed.Restore(LoaderState::Parse(saved));
  EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{1, 1}));
  const std::vector<std::string> rest = Remaining(resumed);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_TRUE(rest[0] == epoch[1]);
  // A state of the block shuffle is not one of the global shuffle.
  options.shuffle = Shuffle::kGlobal;
  options.shard_window = 0;
  Loader global(shards, options);
  EXPECT_THROW(global.Restore(LoaderState::Parse(saved)), ConfigError);
  // Files have no shards to read a window of.
  options.shuffle = Shuffle::kShards;
  EXPECT_THROW(Loader(Carvana(), options), ConfigError);
}

TEST_F(LoaderShardsTest, AShardChangedSinceIndexingIsRefusedNamingItAndTheCommand) {
  TempDir copy;
  fs::copy(Path("carvana-shards"), copy.path(), fs::copy_options::recursive);
  std::ofstream(copy / "train-000002.tar", std::ios::binary | std::ios::app) << "grown";
  try {
    Loader loader(DatasetSpec::Shards(copy.path()), SmallOptions());
    FAIL() << "a stale index was read";
  } catch (const FileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("train-000002.tar"), std::string::npos) << message;
    EXPECT_NE(message.find("segfeed index"), std::string::npos) << message;
  }
}

TEST_F(LoaderShardsTest, ABadMemberIsSkippedNamedAsShardAndMember) {
  TempDir copy;
  fs::copy(Path("carvana-shards"), copy.path(), fs::copy_options::recursive);
  const std::string key = ListDataset(Carvana()).pairs[4].stem;  // the second shard's second
  // The photo's bytes zeroed in place: the shard keeps its size, so only
  // its digest (unchecked at open) changes.
  const fs::path tar = copy / "train-000001.tar";
  std::vector<uint8_t> bytes = segfeed::testing::ReadAll(tar);
  const std::string name = key + ".jpg";
  const auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end());
  const size_t data = (static_cast<size_t>(at - bytes.begin()) / 512 + 1) * 512;
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(data),
            bytes.begin() + static_cast<std::ptrdiff_t>(data + 64), 0);
  segfeed::testing::WriteAll(tar, bytes);

  LoaderOptions options = SmallOptions();
  options.on_bad_file = OnBadFile::kSkip;
  Loader loader(DatasetSpec::Shards(copy.path()), options);
  loader.StartEpoch(0);
  Remaining(loader);
  const LoaderStats stats = loader.stats();
  EXPECT_EQ(stats.samples_skipped, 1);
  ASSERT_EQ(stats.skipped_files.size(), 1u);
  EXPECT_EQ(stats.skipped_files[0].path, tar.string() + ":" + name);
  // The photo's head is no longer a JPEG's.
  EXPECT_EQ(stats.skipped_files[0].kind, ErrorKind::kUnsupportedFormat);
}

// The carvana shards copied into `to` without their index (the dataset is
// then scanned), in order.
std::vector<fs::path> UnindexedCopy(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive);
  fs::remove(to / "index.sfidx");
  std::vector<fs::path> tars;
  for (const fs::directory_entry& entry : fs::directory_iterator(to)) tars.push_back(entry.path());
  std::sort(tars.begin(), tars.end());
  return tars;
}

// Cuts the ustar shard 10 bytes into member `name`'s data.
void CutInside(const fs::path& tar, const std::string& name) {
  const std::vector<uint8_t> bytes = segfeed::testing::ReadAll(tar);
  const auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end()) << name;
  const size_t header = static_cast<size_t>(at - bytes.begin()) / 512 * 512;
  fs::resize_file(tar, header + 512 + 10);
}

// Shards without an index, one damaged (first, or between good ones) or
// missing: under skip the samples read before the damage and every good
// shard's stream, the lost ones are listed naming shard and member; under
// fail the loader refuses, naming them.
TEST_F(LoaderShardsTest, ADamagedOrMissingShardLosesOnlyItsOwnSamplesUnderSkip) {
  const Dataset folders = ListDataset(Carvana());
  for (const size_t bad : {0u, 1u, 2u}) {
    SCOPED_TRACE("bad shard " + std::to_string(bad));
    TempDir copy;
    const std::vector<fs::path> tars = UnindexedCopy(Path("carvana-shards"), copy.path());
    ASSERT_EQ(tars.size(), 5u);
    const bool missing = bad == 2;
    // Cut inside the photo of the shard's second sample: its first is
    // whole, the second lost, the third unknown.
    const std::string member = folders.SampleKey(3 * bad + 1) + ".jpg";
    if (missing) {
      fs::remove(tars[bad]);
    } else {
      ASSERT_NO_FATAL_FAILURE(CutInside(tars[bad], member));
    }
    const DatasetSpec spec = DatasetSpec::Shards(tars);

    LoaderOptions options = SmallOptions();
    options.on_bad_file = OnBadFile::kSkip;
    Loader loader(spec, options);
    // Shards of 3: a cut one keeps its first sample, a missing one none.
    const size_t kept = missing ? 0 : 1;
    ASSERT_EQ(loader.dataset().sample_count(), 13u - 3u + kept);
    for (size_t id = 0; id < loader.dataset().sample_count(); ++id) {
      const size_t folder_id = id < 3 * bad + kept ? id : id + 3 - kept;
      EXPECT_EQ(loader.dataset().SampleKey(id), folders.SampleKey(folder_id)) << id;
    }
    loader.StartEpoch(0);
    Remaining(loader);
    const LoaderStats stats = loader.stats();
    EXPECT_EQ(stats.samples_skipped, 0);
    std::string listed;
    for (const Error& error : stats.unpaired_files) listed += error.Message() + "\n";
    if (missing) {
      EXPECT_NE(listed.find(tars[bad].string() + ": nothing in the shard could be read"),
                std::string::npos)
          << listed;
    } else {
      EXPECT_NE(listed.find(tars[bad].string() + ":" + member + ": sample '"), std::string::npos)
          << listed;
      EXPECT_NE(listed.find(tars[bad].string() + ": reading stopped at byte offset"),
                std::string::npos)
          << listed;
    }

    options.on_bad_file = OnBadFile::kFail;
    try {
      Loader refused(spec, options);
      FAIL() << "a damaged shard streamed under fail";
    } catch (const FileError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(tars[bad].string() + (missing ? "" : ":" + member)), std::string::npos)
          << message;
    }
  }
}

}  // namespace
}  // namespace segfeed
