// Runs `segfeed pack` itself on make-demo trees and reads its shards back
// with the source stage's scan and index: every member holds the source
// file's bytes, the output is the same for any thread count, bad pairs are
// left out or stop the run, and DALI's index matches the offsets.
#include <gtest/gtest.h>
#include <cstring>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_segfeed.h"
#include "pack/member_key.h"
#include "segfeed/dataset.h"
#include "segfeed/loader.h"
#include "segfeed/option_table.h"
#include "source/shard_index.h"
#include "source/shard_samples.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::cli {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::Quoted;
using segfeed::testing::ReadAll;
using segfeed::testing::RunSegfeed;
using segfeed::testing::TempDir;

// The bytes of `member` in its shard, read at the catalog's offset.
std::vector<uint8_t> MemberBytes(const source::ShardCatalog& catalog, source::SampleId id,
                                 source::Member member) {
  const std::vector<uint8_t> shard = ReadAll(catalog.ShardOf(id).path);
  const size_t i = source::MemberIndex(member);
  const auto begin = shard.begin() + static_cast<std::ptrdiff_t>(catalog.MemberOffset(id, member));
  return {begin, begin + catalog.record(id).size[i]};
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class PackCommandTest : public ::testing::Test {
 protected:
  void MakeDemo(const std::string& options) {
    const auto made =
        RunSegfeed("make-demo " + Quoted(data_) + " --count 5 --width 96 --height 64 " + options);
    ASSERT_EQ(made.exit_code, 0) << made.output;
  }
  testing::CommandResult Pack(const std::string& options, const fs::path& out) {
    return RunSegfeed("pack --data " + Quoted(data_) + " --output " + Quoted(out) + " " + options);
  }
  // Reads the index at `out` (every shard's digest checked) and compares
  // each sample's members with the files of the dataset listed by `spec`.
  source::ShardIndexDataset ExpectSourceBytes(const fs::path& out, const DatasetSpec& spec) {
    source::ShardIndexDataset dataset;
    auto catalog = source::ReadShardIndex(out / source::kShardIndexFileName,
                                          source::ShardCheck::kDigests, &dataset);
    EXPECT_TRUE(catalog.ok()) << catalog.error().Message();
    if (!catalog.ok()) return dataset;
    const Dataset listed = ListDataset(spec);
    EXPECT_EQ(catalog.value().sample_count(), listed.pairs.size());
    for (source::SampleId id = 0; id < catalog.value().sample_count(); ++id) {
      const SamplePair pair = listed.pairs[id];
      EXPECT_EQ(catalog.value().Key(id), pack::MemberKeyOf(pair.stem));
      EXPECT_EQ(MemberBytes(catalog.value(), id, source::Member::kImage), ReadAll(pair.image_path))
          << pair.stem;
      EXPECT_EQ(MemberBytes(catalog.value(), id, source::Member::kMask), ReadAll(pair.mask_path))
          << pair.stem;
    }
    return dataset;
  }

  TempDir dir_;
  fs::path data_ = dir_ / "data";
  fs::path out_ = dir_ / "shards";
};

TEST_F(PackCommandTest, BinaryMasksEveryMemberHoldsTheSourceBytes) {
  MakeDemo("");
  const auto packed = Pack("--samples-per-shard 2", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  EXPECT_NE(packed.output.find("packed 5 of 5 pairs into 3 shards"), std::string::npos)
      << packed.output;
  EXPECT_NE(packed.output.find("MB/s"), std::string::npos);
  const source::ShardIndexDataset dataset = ExpectSourceBytes(out_, DatasetSpec::Carvana(data_));
  const std::map<std::string, std::string> options(dataset.options.begin(), dataset.options.end());
  EXPECT_EQ(options.at("mask_mode"), "binary");
  EXPECT_EQ(options.size(), 8u);  // every mask option, defaults included
  EXPECT_TRUE(dataset.original_keys.empty());
  // Three members a sample: the photo, the mask and the .json.
  const source::ShardListing listing = source::ScanShards(
      {out_ / "train-000000.tar", out_ / "train-000001.tar", out_ / "train-000002.tar"});
  EXPECT_EQ(listing.catalog.sample_count(), 5u);
  EXPECT_EQ(listing.extra_members, 5);
  EXPECT_EQ(listing.catalog.FormOf(0, source::Member::kMask)->extension, "mask.gif");
}

TEST_F(PackCommandTest, LabelMapsAndTheirOptionsAreRecorded) {
  MakeDemo("--classes 5");
  const auto packed = Pack("--mask-mode labels --num-classes 5 --ignore-index 250", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  DatasetSpec spec = DatasetSpec::Carvana(data_);
  const source::ShardIndexDataset dataset = ExpectSourceBytes(out_, spec);
  const std::map<std::string, std::string> options(dataset.options.begin(), dataset.options.end());
  EXPECT_EQ(options.at("mask_mode"), "labels");
  EXPECT_EQ(options.at("num_classes"), "5");
  EXPECT_EQ(options.at("mask_ignore_value"), "255");  // the default, recorded too
  EXPECT_EQ(options.at("ignore_index"), "250");
}

TEST_F(PackCommandTest, APresetsLabelOptionsAreRecorded) {
  const auto made = RunSegfeed("make-demo " + Quoted(data_) + " --dataset voc --count 4");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const auto packed = Pack("--dataset voc --split train", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  const source::ShardIndexDataset dataset =
      ExpectSourceBytes(out_, DatasetSpec::Voc(data_, "train"));
  const std::map<std::string, std::string> options(dataset.options.begin(), dataset.options.end());
  EXPECT_EQ(options.at("mask_mode"), "labels");
  EXPECT_EQ(options.at("num_classes"), "21");
}

// The index records the preset's class names with its label options: a
// Loader over the shards names the classes as one over the folders does.
// An index without them (written before they were recorded) still loads,
// with no names.
TEST_F(PackCommandTest, APresetsClassNamesAreTheLoadersOverTheShards) {
  for (const char* layout : {"voc", "cityscapes"}) {
    SCOPED_TRACE(layout);
    TempDir dir;
    const fs::path data = dir / "data", out = dir / "shards";
    const auto made = RunSegfeed("make-demo " + Quoted(data) + " --dataset " + layout +
                                 " --count 3 --width 96 --height 64");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto packed = RunSegfeed("pack --data " + Quoted(data) + " --dataset " + layout +
                                   " --output " + Quoted(out));
    ASSERT_EQ(packed.exit_code, 0) << packed.output;
    LoaderOptions options;
    options.batch_size = 2;
    options.pinned = PinnedMode::kOff;
    options.output.mask_dtype = ElementType::kUint8;
    const DatasetSpec folders_spec = DatasetPreset(layout, data, "");
    LoaderOptions folders_options = options;
    ApplyDatasetOptions(folders_spec, folders_options);
    const Loader folders(folders_spec, folders_options);
    const DatasetSpec shards_spec = DatasetSpec::Shards(out);
    LoaderOptions shards_options = options;
    ApplyDatasetOptions(shards_spec, shards_options);
    const Loader shards(shards_spec, shards_options);
    EXPECT_EQ(shards.class_names().size(), folders_spec.name == "voc" ? 21u : 19u);
    EXPECT_EQ(shards.class_names(), folders.class_names());

    source::ShardIndexDataset recorded;
    auto catalog = source::ReadShardIndex(out / source::kShardIndexFileName,
                                          source::ShardCheck::kSizes, &recorded);
    ASSERT_TRUE(catalog.ok());
    std::erase_if(recorded.options,
                  [](const auto& option) { return option.first == "class_names"; });
    ASSERT_TRUE(
        source::WriteShardIndex(catalog.value(), out / source::kShardIndexFileName, recorded).ok());
    const DatasetSpec unnamed_spec = DatasetSpec::Shards(out);
    LoaderOptions unnamed_options = options;
    ApplyDatasetOptions(unnamed_spec, unnamed_options);
    const Loader unnamed(unnamed_spec, unnamed_options);
    EXPECT_TRUE(unnamed.class_names().empty());
    EXPECT_EQ(unnamed.dataset().sample_count(), folders.dataset().sample_count());
  }
}

TEST_F(PackCommandTest, NestedKeysBecomeMemberPaths) {
  const auto made = RunSegfeed("make-demo " + Quoted(data_) +
                               " --dataset cityscapes --count 4 --width 128 --height 64");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const auto packed = Pack("--dataset cityscapes --split train", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  const source::ShardIndexDataset dataset =
      ExpectSourceBytes(out_, DatasetSpec::Cityscapes(data_, "train"));
  const std::map<std::string, std::string> options(dataset.options.begin(), dataset.options.end());
  EXPECT_EQ(options.at("num_classes"), "19");
  EXPECT_NE(options.at("label_map"), "");
  const source::TarScan scan = source::ScanTar(out_ / "train-000000.tar");
  ASSERT_FALSE(scan.members.empty());
  EXPECT_EQ(scan.members[0].name, "aachen/aachen_000000_000019.png");
  EXPECT_EQ(scan.members[1].name, "aachen/aachen_000000_000019.mask.png");
}

TEST_F(PackCommandTest, SameBytesForAnyThreadCount) {
  MakeDemo("");
  ASSERT_EQ(Pack("--threads 1 --shard-size 8KiB", dir_ / "one").exit_code, 0);
  ASSERT_EQ(Pack("--threads 3 --shard-size 8KiB", dir_ / "three").exit_code, 0);
  const std::vector<fs::path> one = FilesIn(dir_ / "one");
  const std::vector<fs::path> three = FilesIn(dir_ / "three");
  ASSERT_EQ(one.size(), three.size());
  EXPECT_GT(one.size(), 4u);  // shards, their .idx and the index
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].filename(), three[i].filename());
    EXPECT_EQ(ReadAll(one[i]), ReadAll(three[i])) << one[i];
  }
}

TEST_F(PackCommandTest, DaliIndexesMatchTheShards) {
  MakeDemo("");
  ASSERT_EQ(Pack("--samples-per-shard 3", out_).exit_code, 0);
  for (const char* shard : {"train-000000", "train-000001"}) {
    const source::TarScan scan = source::ScanTar(out_ / (std::string(shard) + ".tar"));
    const std::vector<uint8_t> text = ReadAll(out_ / (std::string(shard) + ".idx"));
    std::istringstream lines(std::string(text.begin(), text.end()));
    std::string version;
    size_t samples = 0;
    lines >> version >> samples;
    EXPECT_EQ(version, "v1.2");
    EXPECT_EQ(samples * 3, scan.members.size());
    for (const source::TarMember& member : scan.members) {
      std::string extension, name;
      int64_t offset = 0, size = 0;
      lines >> extension >> offset >> size >> name;
      EXPECT_EQ(name, member.name);
      EXPECT_EQ(extension, source::SplitMemberName(member.name).second);
      EXPECT_EQ(offset, member.data_offset);
      EXPECT_EQ(size, member.size);
    }
  }
}

TEST_F(PackCommandTest, AShardWithASpaceInANameHasNoDaliIndex) {
  MakeDemo("");
  const Dataset listed = ListDataset(DatasetSpec::Carvana(data_));
  fs::rename(listed.pairs[4].image_path, data_ / "train" / "last one.jpg");
  fs::rename(listed.pairs[4].mask_path, data_ / "train_masks" / "last one_mask.gif");
  const auto packed = Pack("--samples-per-shard 2", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  EXPECT_NE(packed.output.find("no DALI index: " + (out_ / "train-000002.tar").string() +
                               ":last one.jpg"),
            std::string::npos)
      << packed.output;
  EXPECT_TRUE(fs::exists(out_ / "train-000001.idx"));
  EXPECT_FALSE(fs::exists(out_ / "train-000002.idx"));
  ExpectSourceBytes(out_, DatasetSpec::Carvana(data_));
}

TEST_F(PackCommandTest, ABadPairIsLeftOutAndListedOrStopsTheRun) {
  MakeDemo("");
  const Dataset listed = ListDataset(DatasetSpec::Carvana(data_));
  const fs::path bad = listed.pairs[2].image_path;
  std::vector<uint8_t> photo = ReadAll(bad);
  photo.resize(photo.size() / 2);
  segfeed::testing::WriteAll(bad, photo);

  auto packed = Pack("", out_);
  EXPECT_EQ(packed.exit_code, 1) << packed.output;
  EXPECT_NE(packed.output.find("left out: " + bad.string()), std::string::npos) << packed.output;
  EXPECT_NE(packed.output.find("packed 4 of 5 pairs"), std::string::npos) << packed.output;
  auto catalog = source::ReadShardIndex(out_ / source::kShardIndexFileName);
  ASSERT_TRUE(catalog.ok());
  EXPECT_EQ(catalog.value().sample_count(), 4u);
  EXPECT_EQ(catalog.value().Key(2), listed.pairs[3].stem);

  packed = Pack("--on-error fail", dir_ / "failed");
  EXPECT_EQ(packed.exit_code, 1) << packed.output;
  EXPECT_NE(packed.output.find("error: " + bad.string()), std::string::npos) << packed.output;
  EXPECT_FALSE(fs::exists(dir_ / "failed" / source::kShardIndexFileName));
  for (const fs::path& file : FilesIn(dir_ / "failed"))
    EXPECT_EQ(file.filename().string().find(".partial"), std::string::npos) << file;
}

TEST_F(PackCommandTest, AShardThatCannotBeWrittenLeavesNoHalfShardAndNoIndex) {
  MakeDemo("");
  // The second shard's temporary name is taken by a folder that cannot be
  // removed in its place.
  fs::create_directories(out_ / ".train-000001.tar.partial" / "in-the-way");
  const auto packed = Pack("--samples-per-shard 2", out_);
  EXPECT_EQ(packed.exit_code, 1) << packed.output;
  EXPECT_NE(packed.output.find("error: " + (out_ / ".train-000001.tar.partial").string() +
                               ": cannot create"),
            std::string::npos)
      << packed.output;
  EXPECT_NE(packed.output.find("stopped: 2 pairs in 1 whole shards, no index written"),
            std::string::npos)
      << packed.output;
  EXPECT_TRUE(fs::exists(out_ / "train-000000.tar"));
  EXPECT_FALSE(fs::exists(out_ / "train-000001.tar"));
  EXPECT_FALSE(fs::exists(out_ / source::kShardIndexFileName));
}

TEST_F(PackCommandTest, AFullDiskSaysWhyAndLeavesNoHalfShard) {
  MakeDemo("");
  // A file-size limit of 16 blocks (8 or 16 KiB) stands in for a full disk: the first shard's
  // writes fail (EFBIG) part way, as they would with ENOSPC.
  const auto packed =
      segfeed::testing::RunSegfeedScript("trap '' XFSZ; ulimit -f 16; \"$SEGFEED\" pack --data " +
                                         Quoted(data_) + " --output " + Quoted(out_) + " 2>&1");
  EXPECT_EQ(packed.exit_code, 1) << packed.output;
  EXPECT_NE(packed.output.find("cannot write its bytes: Write error (" +
                               std::string(std::strerror(EFBIG)) + ")"),
            std::string::npos)
      << packed.output;
  EXPECT_NE(packed.output.find("no index written"), std::string::npos) << packed.output;
  EXPECT_TRUE(FilesIn(out_).empty());
}

TEST_F(PackCommandTest, AMaskNoReaderWouldTakeAsAMaskIsABadPair) {
  MakeDemo("");
  const Dataset listed = ListDataset(DatasetSpec::Carvana(data_));
  // A two-column list names any files: a GIF mask under another extension
  // decodes, but its member would not read back as a mask.
  fs::copy_file(listed.pairs[1].mask_path, data_ / "odd.dat");
  std::string list;
  for (size_t i = 0; i < 3; ++i) {
    list += fs::relative(listed.pairs[i].image_path, data_).string() + " " +
            (i == 1 ? std::string("odd.dat")
                    : fs::relative(listed.pairs[i].mask_path, data_).string()) +
            "\n";
  }
  segfeed::testing::WriteAll(data_ / "pairs.txt", std::vector<uint8_t>(list.begin(), list.end()));
  const auto packed =
      RunSegfeed("pack --list " + Quoted(data_ / "pairs.txt") + " --output " + Quoted(out_));
  EXPECT_EQ(packed.exit_code, 1) << packed.output;
  EXPECT_NE(packed.output.find("its mask is " + (data_ / "odd.dat").string()), std::string::npos)
      << packed.output;
  EXPECT_NE(packed.output.find("packed 2 of 3 pairs"), std::string::npos) << packed.output;
}

TEST_F(PackCommandTest, AKeyWithADotRoundTrips) {
  MakeDemo("");
  const Dataset listed = ListDataset(DatasetSpec::Carvana(data_));
  const SamplePair pair = listed.pairs[0];
  fs::rename(pair.image_path, data_ / "train" / "scan.v2.jpg");
  fs::rename(pair.mask_path, data_ / "train_masks" / "scan.v2_mask.gif");
  const auto packed = Pack("", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  const source::ShardIndexDataset dataset = ExpectSourceBytes(out_, DatasetSpec::Carvana(data_));
  const Dataset relisted = ListDataset(DatasetSpec::Carvana(data_));
  source::SampleId dotted = 0;
  while (relisted.pairs[dotted].stem != "scan.v2") ++dotted;
  ASSERT_EQ(dataset.original_keys.size(), 1u);
  EXPECT_EQ(dataset.original_keys[0].first, dotted);
  EXPECT_EQ(dataset.original_keys[0].second, "scan.v2");
  const source::TarScan scan = source::ScanTar(out_ / "train-000000.tar");
  std::vector<std::string> names;
  for (const source::TarMember& member : scan.members) names.push_back(member.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "scan%2Ev2.jpg"), names.end());
  const source::TarMember& json = scan.members[3 * dotted + 2];
  EXPECT_EQ(json.name, "scan%2Ev2.json");
  const std::vector<uint8_t> shard = ReadAll(out_ / "train-000000.tar");
  const std::string text(shard.begin() + json.data_offset,
                         shard.begin() + json.data_offset + json.size);
  EXPECT_NE(text.find("\"key\":\"scan.v2\""), std::string::npos) << text;
}

// The packed dataset speaks of its samples by the dataset's own keys (a
// dot, a '%'), of its members by the tar's names.
TEST_F(PackCommandTest, TheShardsKeepTheDatasetsKeysAndTheTarsMemberNames) {
  MakeDemo("");
  const Dataset listed = ListDataset(DatasetSpec::Carvana(data_));
  for (const auto& [from, to] : {std::pair{0, "scan.v2"}, std::pair{1, "50%.a.b"}}) {
    fs::rename(listed.pairs[from].image_path, data_ / "train" / (std::string(to) + ".jpg"));
    fs::rename(listed.pairs[from].mask_path,
               data_ / "train_masks" / (std::string(to) + "_mask.gif"));
  }
  const auto packed = Pack("", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  const Dataset folders = ListDataset(DatasetSpec::Carvana(data_));
  const Dataset shards = ListDataset(DatasetSpec::Shards(out_));
  ASSERT_EQ(shards.sample_count(), folders.sample_count());
  size_t encoded = 0;
  for (size_t id = 0; id < folders.sample_count(); ++id) {
    EXPECT_EQ(shards.SampleKey(id), folders.SampleKey(id));
    const std::string member = pack::MemberKeyOf(folders.SampleKey(id));
    encoded += member != folders.SampleKey(id) ? 1 : 0;
    EXPECT_EQ(shards.SampleNames(id).first,
              (out_ / "train-000000.tar").string() + ":" + member + ".jpg");
  }
  EXPECT_EQ(encoded, 2u);
}

TEST_F(PackCommandTest, NestedKeysAreTheDatasetsKeys) {
  const auto made = RunSegfeed("make-demo " + Quoted(data_) +
                               " --dataset cityscapes --count 4 --width 128 --height 64");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  ASSERT_EQ(Pack("--dataset cityscapes --split train", out_).exit_code, 0);
  const Dataset folders = ListDataset(DatasetSpec::Cityscapes(data_, "train"));
  const Dataset shards = ListDataset(DatasetSpec::Shards(out_));
  ASSERT_EQ(shards.sample_count(), folders.sample_count());
  EXPECT_EQ(shards.SampleKey(0), "aachen/aachen_000000_000019");
  for (size_t id = 0; id < folders.sample_count(); ++id)
    EXPECT_EQ(shards.SampleKey(id), folders.SampleKey(id));
  EXPECT_EQ(shards.SampleNames(0).second,
            (out_ / "train-000000.tar").string() + ":aachen/aachen_000000_000019.mask.png");
}

TEST_F(PackCommandTest, RefusesAnOutputInsideTheDatasetOrHoldingShards) {
  MakeDemo("");
  auto packed = Pack("", data_ / "train" / "shards");
  EXPECT_EQ(packed.exit_code, 2) << packed.output;
  EXPECT_FALSE(fs::exists(data_ / "train" / "shards"));
  EXPECT_EQ(RunSegfeed("pack --data " + Quoted(data_)).exit_code, 2);  // no --output

  ASSERT_EQ(Pack("--samples-per-shard 1", out_).exit_code, 0);
  packed = Pack("--samples-per-shard 2", out_);
  EXPECT_EQ(packed.exit_code, 2) << packed.output;
  EXPECT_NE(packed.output.find("--force"), std::string::npos) << packed.output;
  packed = Pack("--samples-per-shard 2 --force", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  // The first run's shards 3 and 4 are gone: only this run's remain.
  EXPECT_FALSE(fs::exists(out_ / "train-000003.tar"));
  EXPECT_FALSE(fs::exists(out_ / "train-000004.idx"));
  ExpectSourceBytes(out_, DatasetSpec::Carvana(data_));
  EXPECT_EQ(Pack("--shard-size 12XB", dir_ / "x").exit_code, 2);
  // Shards as the input: refused, not packed as a dataset of no pairs.
  const auto repacked =
      RunSegfeed("pack --data " + Quoted(out_) + " --output " + Quoted(dir_ / "again"));
  EXPECT_EQ(repacked.exit_code, 2) << repacked.output;
  EXPECT_NE(repacked.output.find("already tar shards"), std::string::npos) << repacked.output;
  EXPECT_FALSE(fs::exists(dir_ / "again" / source::kShardIndexFileName));
}

TEST_F(PackCommandTest, JpegReencodeReportsPsnrAndTheIndexRecordsIt) {
  MakeDemo("--image-format png");
  const auto packed = Pack("--photo-codec jpeg --photo-quality 90", out_);
  ASSERT_EQ(packed.exit_code, 0) << packed.output;
  EXPECT_NE(packed.output.find("5 photos re-encoded as JPEG, PSNR "), std::string::npos)
      << packed.output;
  source::ShardIndexDataset dataset;
  auto catalog = source::ReadShardIndex(out_ / source::kShardIndexFileName,
                                        source::ShardCheck::kDigests, &dataset);
  ASSERT_TRUE(catalog.ok()) << catalog.error().Message();
  const std::map<std::string, std::string> options(dataset.options.begin(), dataset.options.end());
  EXPECT_EQ(options.at("photo_codec"), "jpeg");
  EXPECT_EQ(options.at("photo_quality"), "90");
  const Dataset listed = ListDataset(DatasetSpec::Carvana(data_));
  for (source::SampleId id = 0; id < catalog.value().sample_count(); ++id) {
    EXPECT_EQ(catalog.value().FormOf(id, source::Member::kImage)->extension, "jpg");
    const std::vector<uint8_t> photo = MemberBytes(catalog.value(), id, source::Member::kImage);
    ASSERT_GT(photo.size(), 2u);
    EXPECT_EQ(photo[0], 0xFF);
    EXPECT_EQ(photo[1], 0xD8);
    // Masks are never re-encoded.
    EXPECT_EQ(MemberBytes(catalog.value(), id, source::Member::kMask),
              ReadAll(listed.pairs[id].mask_path));
  }
}

}  // namespace
}  // namespace segfeed::cli
