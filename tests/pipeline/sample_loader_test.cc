#include "pipeline/sample_loader.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "augment/sample_augmenter.h"
#include "fixtures/mixed_dataset.h"
#include "io/pair_reader.h"
#include "memory/batch_buffers.h"
#include "segfeed/dataset.h"
#include "segfeed/memory.h"
#include "source/files_source.h"
#include "temp_dir.h"

namespace segfeed::pipeline {
namespace {

using segfeed::testing::MixedDataset;
using segfeed::testing::MixedFile;
using segfeed::testing::TempDir;

constexpr int kGoodPairs = 6;
constexpr int kBatchSize = 4;
constexpr int64_t kEpoch = 3;
constexpr std::byte kUntouched{0x5A};

// One SampleLoader over the mixed dataset (every defect the readers know,
// among good pairs), with the buffers it fills and the epoch order it
// reads: position p holds pair p, so a task's position names its pair.
struct LoaderUnderTest {
  LoaderUnderTest(const LoaderOptions& options, const Dataset& dataset)
      : source(dataset.pairs),
        buffers(1, kBatchSize, options.output, options.augment.output_width,
                options.augment.output_height, options.pinned) {
    for (uint32_t id = 0; id < dataset.pairs.size(); ++id) ids.push_back(id);
    const MemoryPlan plan = PlanMemory(options, MixedDataset::kWidth, MixedDataset::kHeight);
    loader = std::make_unique<SampleLoader>(
        options, &source, ids, &buffers, /*workers=*/1, MixedDataset::kWidth, MixedDataset::kHeight,
        static_cast<int64_t>(plan.decode_budget_bytes_per_thread));
    loader->StartEpoch(kEpoch, &ids);
    std::memset(buffers.ImageSlot(0, 0), static_cast<int>(kUntouched), buffers.batch_bytes);
  }

  Status Load(uint32_t id, int slot) {
    SampleTask task;
    task.slot = slot;
    task.position = id;
    return loader->Load(task, /*worker=*/0);
  }

  // The image and mask bytes of `slot`.
  std::vector<std::byte> Slot(int slot) const {
    const std::byte* image = buffers.ImageSlot(0, slot);
    const std::byte* mask = buffers.MaskSlot(0, slot);
    std::vector<std::byte> bytes(image, image + buffers.image_bytes_per_sample);
    bytes.insert(bytes.end(), mask, mask + buffers.mask_bytes_per_sample);
    return bytes;
  }

  source::FilesSource source;
  std::vector<uint32_t> ids;
  memory::BatchBuffers buffers;
  std::unique_ptr<SampleLoader> loader;
};

class SampleLoaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    mixed_ = new MixedDataset(segfeed::testing::WriteMixedDataset(dir_->path(), kGoodPairs));
    dataset_ = new Dataset(ListDataset(DatasetSpec::Carvana(dir_->path())));
  }
  static void TearDownTestSuite() {
    delete dataset_;
    delete mixed_;
    delete dir_;
  }

  static LoaderOptions Options(OnBadFile on_bad_file) {
    LoaderOptions options;
    options.batch_size = kBatchSize;
    options.threads = 1;
    options.seed = 17;
    options.augment.output_width = 40;
    options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    options.on_bad_file = on_bad_file;
    return options;
  }

  // The pair whose image or mask is `path`.
  static uint32_t PairOf(const std::string& path) {
    for (uint32_t id = 0; id < dataset_->pairs.size(); ++id) {
      const SamplePair pair = dataset_->pairs[id];
      if (pair.image_path.string() == path || pair.mask_path.string() == path) return id;
    }
    ADD_FAILURE() << "no pair has " << path;
    return 0;
  }
  static uint32_t GoodPair(size_t index) {
    const std::string stem = mixed_->good_stems.at(index);
    for (uint32_t id = 0; id < dataset_->pairs.size(); ++id)
      if (dataset_->pairs[id].stem == stem) return id;
    ADD_FAILURE() << "no pair has the stem " << stem;
    return 0;
  }

  static TempDir* dir_;
  static MixedDataset* mixed_;
  static Dataset* dataset_;
};
TempDir* SampleLoaderTest::dir_ = nullptr;
MixedDataset* SampleLoaderTest::mixed_ = nullptr;
Dataset* SampleLoaderTest::dataset_ = nullptr;

TEST_F(SampleLoaderTest, LoadsAGoodPairIntoItsSlotOnly) {
  const LoaderOptions options = Options(OnBadFile::kFail);
  LoaderUnderTest under_test(options, *dataset_);
  const uint32_t id = GoodPair(1);
  const Status status = under_test.Load(id, /*slot=*/2);
  ASSERT_TRUE(status.ok()) << status.error().Message();

  // What reading the pair and augmenting it with its parameters gives.
  AugmentParams params = DrawAugmentParams(options.augment, options.seed, kEpoch, id);
  io::PairReader reader(options.decode);
  source::FilesSource files(dataset_->pairs);
  const Status read =
      reader.Read(files, id, options.augment.output_width, options.augment.output_height);
  ASSERT_TRUE(read.ok()) << read.error().Message();
  augment::WarpSource source;
  const decode::DecodedImage& image = reader.image();
  const decode::MaskImage& mask = reader.mask();
  // The batch's parameters say what geometry was applied to this photo.
  SetAppliedGeometry(options.augment, mask.width, mask.height, &params);
  EXPECT_EQ(params.source_width, mask.width);
  source.image = {image.pixels.data(), image.width, image.height, 3, ptrdiff_t{image.width} * 3};
  source.mask = {mask.pixels.data(), mask.width, mask.height, 1, ptrdiff_t{mask.width}};
  source.image_scale = static_cast<double>(reader.image_scale().num) / reader.image_scale().denom;
  augment::SampleAugmenter augmenter(options.augment, options.output);
  std::vector<std::byte> expected(under_test.buffers.image_bytes_per_sample +
                                  under_test.buffers.mask_bytes_per_sample);
  const augment::OutputConverter& converter = augmenter.converter();
  augmenter.Run(params, source,
                converter.DenseImage(expected.data(), options.augment.output_width,
                                     options.augment.output_height),
                converter.DenseMask(expected.data() + under_test.buffers.image_bytes_per_sample,
                                    options.augment.output_width));
  EXPECT_TRUE(under_test.Slot(2) == expected);

  const memory::BatchMeta& meta = under_test.buffers.meta[0];
  EXPECT_EQ(meta.sample_ids[2], id);
  EXPECT_EQ(meta.params[2], params);
  // The other slots keep what they held.
  for (int slot : {0, 1, 3}) {
    for (std::byte b : under_test.Slot(slot)) ASSERT_EQ(b, kUntouched) << "slot " << slot;
  }
  LoaderStats stats;
  under_test.loader->AddStats(&stats);
  EXPECT_EQ(stats.samples_loaded, 1);
  EXPECT_EQ(stats.samples_skipped, 0);
}

// Every bad file followed by the same good pair on the same loader and
// worker: the good pair's bytes are those a fresh loader gives it, so no
// decoder or scratch state survives an error.
TEST_F(SampleLoaderTest, GoodPairAfterABadFileHasTheBytesOfAFreshLoader) {
  const LoaderOptions options = Options(OnBadFile::kFail);
  const uint32_t good = GoodPair(0);
  LoaderUnderTest fresh(options, *dataset_);
  ASSERT_TRUE(fresh.Load(good, 0).ok());
  const std::vector<std::byte> expected = fresh.Slot(0);

  LoaderUnderTest used(options, *dataset_);
  ASSERT_FALSE(mixed_->bad_files.empty());
  for (const MixedFile& bad : mixed_->bad_files) {
    SCOPED_TRACE(bad.path);
    EXPECT_FALSE(used.Load(PairOf(bad.path), 1).ok());
    const Status status = used.Load(good, 0);
    ASSERT_TRUE(status.ok()) << status.error().Message();
    EXPECT_TRUE(used.Slot(0) == expected);
  }
}

TEST_F(SampleLoaderTest, ErrorsNameTheFileAndWhatIsWrongWithIt) {
  LoaderUnderTest under_test(Options(OnBadFile::kFail), *dataset_);
  for (const MixedFile& bad : mixed_->bad_files) {
    SCOPED_TRACE(bad.path);
    const Status status = under_test.Load(PairOf(bad.path), 0);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().path, bad.path);
    EXPECT_EQ(status.error().kind, bad.kind) << status.error().Message();
    EXPECT_NE(status.error().Message().find(bad.path), std::string::npos);
    EXPECT_FALSE(status.error().detail.empty());
  }
}

// A source that is not FilesSource, as far as the loader can tell: it reads
// the same files but names every member (and every error) its own way, and
// records what was announced.
class RenamingSource final : public source::SampleSource {
 public:
  explicit RenamingSource(const PairList& pairs) : files_(pairs) {}
  size_t sample_count() const override { return files_.sample_count(); }
  std::string Key(source::SampleId id) const override { return files_.Key(id); }
  std::string MemberName(source::SampleId id, source::Member member) const override {
    return "renamed:" + files_.MemberName(id, member);
  }
  std::optional<int64_t> MemberSize(source::SampleId id, source::Member member) const override {
    return files_.MemberSize(id, member);
  }
  void Prefetch(std::span<const source::SampleId> upcoming) override {
    announced.emplace_back(upcoming.begin(), upcoming.end());
  }
  Result<std::span<const uint8_t>> Read(source::SampleId id, source::Member member,
                                        source::ReadBuffer* into,
                                        const source::HeadCheck* head) override {
    auto read = files_.Read(id, member, into, head);
    if (read.ok()) return read;
    Error error = read.error();
    error.path = "renamed:" + error.path;
    return error;
  }

  std::vector<std::vector<source::SampleId>> announced;

 private:
  source::FilesSource files_;
};

// The loader knows its source only through SampleSource: the same bytes
// whatever the source, errors named by the source's names, and each epoch's
// order announced when the epoch starts.
TEST_F(SampleLoaderTest, ReadsThroughItsSourceOnly) {
  const LoaderOptions options = Options(OnBadFile::kFail);
  LoaderUnderTest files(options, *dataset_);
  RenamingSource renaming(dataset_->pairs);
  memory::BatchBuffers buffers(1, kBatchSize, options.output, options.augment.output_width,
                               options.augment.output_height, options.pinned);
  const MemoryPlan plan = PlanMemory(options, MixedDataset::kWidth, MixedDataset::kHeight);
  SampleLoader loader(options, &renaming, files.ids, &buffers, /*workers=*/1, MixedDataset::kWidth,
                      MixedDataset::kHeight,
                      static_cast<int64_t>(plan.decode_budget_bytes_per_thread));
  ASSERT_TRUE(renaming.announced.empty());
  loader.StartEpoch(kEpoch, &files.ids);
  ASSERT_EQ(renaming.announced.size(), 1u);
  EXPECT_EQ(renaming.announced[0], files.ids);

  SampleTask task;
  task.slot = 0;
  task.position = GoodPair(0);
  ASSERT_TRUE(loader.Load(task, 0).ok());
  ASSERT_TRUE(files.Load(GoodPair(0), 0).ok());
  const std::byte* image = buffers.ImageSlot(0, 0);
  const std::byte* mask = buffers.MaskSlot(0, 0);
  std::vector<std::byte> slot(image, image + buffers.image_bytes_per_sample);
  slot.insert(slot.end(), mask, mask + buffers.mask_bytes_per_sample);
  EXPECT_TRUE(slot == files.Slot(0));

  for (const MixedFile& bad : mixed_->bad_files) {
    SCOPED_TRACE(bad.path);
    task.position = PairOf(bad.path);
    const Status status = loader.Load(task, 0);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().path, "renamed:" + bad.path) << status.error().Message();
    EXPECT_EQ(status.error().kind, bad.kind) << status.error().Message();
  }
}

// Under kSkip a bad pair's slot gets a good replacement, and the file is
// listed once however often the pair comes up.
TEST_F(SampleLoaderTest, SkipFillsTheSlotWithAGoodPairAndListsTheBadFileOnce) {
  LoaderUnderTest under_test(Options(OnBadFile::kSkip), *dataset_);
  const MixedFile& bad = mixed_->bad_files.front();
  const uint32_t bad_id = PairOf(bad.path);
  for (int slot : {0, 1}) {
    const Status status = under_test.Load(bad_id, slot);
    ASSERT_TRUE(status.ok()) << status.error().Message();
    EXPECT_NE(under_test.buffers.meta[0].sample_ids[slot], bad_id);
  }
  LoaderStats stats;
  under_test.loader->AddStats(&stats);
  EXPECT_EQ(stats.samples_skipped, 2);
  EXPECT_EQ(stats.samples_replaced, 2);
  std::set<std::string> listed;
  for (const Error& error : stats.skipped_files)
    EXPECT_TRUE(listed.insert(error.path).second) << error.path << " listed twice";
  EXPECT_EQ(listed.count(bad.path), 1u);
}

}  // namespace
}  // namespace segfeed::pipeline
