#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "segfeed/loader.h"
#include "segfeed/option_table.h"
#include "support/batch_bytes.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

using testing::BatchBytes;
using testing::Remaining;

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

// 13 small pairs, written once for the whole suite: 4 batches of 4 an epoch,
// the last one short.
class LoaderStateTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    demo::DemoOptions demo;
    demo.count = 13;
    demo.width = 96;
    demo.height = 64;
    ASSERT_NO_FATAL_FAILURE(segfeed::testing::WriteDemoPairs(dir_->path(), demo));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static DatasetSpec Spec() { return DatasetSpec::Carvana(dir_->path()); }

  static LoaderOptions SmallOptions() {
    LoaderOptions options;
    options.batch_size = 4;
    options.threads = 2;
    options.seed = 11;
    options.augment.output_width = 40;
    options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    return options;
  }

  static TempDir* dir_;
};
TempDir* LoaderStateTest::dir_ = nullptr;

std::vector<std::string> Uninterrupted(int64_t epoch) {
  Loader loader(LoaderStateTest::Spec(), LoaderStateTest::SmallOptions());
  loader.StartEpoch(epoch);
  return Remaining(loader);
}

// The message of the ConfigError `run` throws; fails the test if none.
std::string ConfigErrorOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError";
  return "";
}

void CopyTree(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive);
}

TEST_F(LoaderStateTest, AFreshLoaderRestoredMidEpochContinuesWithIdenticalBytes) {
  const std::vector<std::string> epoch1 = Uninterrupted(1);
  const std::vector<std::string> epoch2 = Uninterrupted(2);
  ASSERT_EQ(epoch1.size(), 4u);
  std::string saved;
  {
    Loader loader(Spec(), SmallOptions());
    loader.StartEpoch(1);
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(loader.Next().has_value());
    EXPECT_EQ(loader.position(), (LoaderPosition{1, 2}));
    saved = loader.State().Serialize();
  }  // the interrupted process ends mid-epoch

  // Threads and prefetch do not change the stream, so they may differ.
  LoaderOptions options = SmallOptions();
  options.threads = 1;
  options.prefetch_batches = 3;
  Loader resumed(Spec(), options);
  resumed.Restore(LoaderState::Parse(saved));
  EXPECT_EQ(resumed.position(), (LoaderPosition{1, 2}));
  EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{1, 2}));
  const std::vector<std::string> rest = Remaining(resumed);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_TRUE(rest[0] == epoch1[2]);
  EXPECT_TRUE(rest[1] == epoch1[3]);
  EXPECT_EQ(resumed.position(), (LoaderPosition{2, 0}));
  EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{2, 0}));
  EXPECT_TRUE(Remaining(resumed) == epoch2);
}

TEST_F(LoaderStateTest, PositionIsWhereAResumedLoaderContinues) {
  Loader loader(Spec(), SmallOptions());
  EXPECT_EQ(loader.position(), (LoaderPosition{0, 0}));
  EXPECT_EQ(loader.StartNextEpoch(), (LoaderPosition{0, 0}));
  for (int64_t batch = 1; batch < 4; ++batch) {
    ASSERT_TRUE(loader.Next().has_value());
    EXPECT_EQ(loader.position(), (LoaderPosition{0, batch}));
  }
  ASSERT_TRUE(loader.Next().has_value());  // the last batch: the epoch is done
  EXPECT_EQ(loader.position(), (LoaderPosition{1, 0}));
  EXPECT_FALSE(loader.Next().has_value());

  // Abandoning mid-epoch moves on to the next epoch and ends this one.
  loader.StartEpoch(5, 1);
  ASSERT_TRUE(loader.Next().has_value());
  EXPECT_EQ(loader.position(), (LoaderPosition{5, 2}));
  loader.AbandonEpoch();
  EXPECT_EQ(loader.position(), (LoaderPosition{6, 0}));
  EXPECT_FALSE(loader.Next().has_value());
  EXPECT_EQ(loader.StartNextEpoch(), (LoaderPosition{6, 0}));
  EXPECT_TRUE(Remaining(loader) == Uninterrupted(6));
  loader.AbandonEpoch();  // after the end: nothing to abandon
  EXPECT_EQ(loader.position(), (LoaderPosition{7, 0}));
}

TEST_F(LoaderStateTest, APausedEpochContinuesFromItsNextBatch) {
  const std::vector<std::string> epoch2 = Uninterrupted(2);
  Loader loader(Spec(), SmallOptions());
  loader.StartEpoch(2);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(loader.Next().has_value());
  loader.PauseEpoch();
  EXPECT_EQ(loader.position(), (LoaderPosition{2, 2}));
  EXPECT_FALSE(loader.Next().has_value());
  EXPECT_EQ(loader.State().next_batch, 2);
  EXPECT_EQ(loader.StartNextEpoch(), (LoaderPosition{2, 2}));
  EXPECT_TRUE(Remaining(loader) == std::vector<std::string>(epoch2.begin() + 2, epoch2.end()));
  loader.PauseEpoch();  // after the end: nothing to pause
  EXPECT_EQ(loader.position(), (LoaderPosition{3, 0}));
}

TEST_F(LoaderStateTest, ABatchGivenBackIsHandedOutAgainAndNotCounted) {
  const std::vector<std::string> epoch0 = Uninterrupted(0);
  Loader loader(Spec(), SmallOptions());
  loader.StartEpoch(0);
  std::optional<Lease> first = loader.Next();
  std::optional<Lease> second = loader.Next();
  ASSERT_TRUE(first && second);
  EXPECT_THROW(loader.GiveBack(std::move(*first)), std::logic_error);  // not the last one
  EXPECT_EQ(loader.stats().outstanding_leases, 1);
  loader.GiveBack(std::move(*second));
  EXPECT_EQ(loader.stats().outstanding_leases, 0);
  EXPECT_EQ(loader.stats().batches_delivered, 1);
  EXPECT_EQ(loader.position(), (LoaderPosition{0, 1}));
  EXPECT_EQ(loader.State().next_batch, 1);
  std::optional<Lease> again = loader.Next();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->batch_index(), 1);
  EXPECT_TRUE(BatchBytes(*again) == epoch0[1]);
  loader.GiveBack(std::move(*again));
  loader.PauseEpoch();  // the given-back buffer goes back to the pool
  EXPECT_EQ(loader.position(), (LoaderPosition{0, 1}));
  EXPECT_EQ(loader.StartNextEpoch(), (LoaderPosition{0, 1}));
  EXPECT_TRUE(Remaining(loader) == std::vector<std::string>(epoch0.begin() + 1, epoch0.end()));
}

TEST_F(LoaderStateTest, RestoreEndsTheEpochBeingStreamed) {
  Loader loader(Spec(), SmallOptions());
  loader.StartEpoch(0);
  ASSERT_TRUE(loader.Next().has_value());
  LoaderState state = loader.State();
  state.epoch = 3;
  state.next_batch = 4;  // the end of epoch 3: nothing left of it
  loader.Restore(state);
  EXPECT_FALSE(loader.Next().has_value());
  EXPECT_EQ(loader.position(), (LoaderPosition{3, 4}));
  EXPECT_EQ(loader.StartNextEpoch(), (LoaderPosition{3, 4}));
  EXPECT_FALSE(loader.Next().has_value());
  EXPECT_EQ(loader.position(), (LoaderPosition{4, 0}));
}

TEST_F(LoaderStateTest, StateNamesWhatMakesTheStream) {
  Loader loader(Spec(), SmallOptions());
  const LoaderState state = loader.State();
  EXPECT_EQ(state.version, LoaderState::kVersion);
  EXPECT_EQ(state.seed, 11u);
  EXPECT_EQ((std::pair{state.rank, state.world_size}), (std::pair{0, 1}));
  EXPECT_EQ(state.batches_per_epoch, 4);
  EXPECT_EQ(state.options_digest, StreamOptionsDigest(SmallOptions()));
  EXPECT_EQ(state.listing_digest.size(), 16u);
  bool has_seed = false, has_threads = false;
  for (const auto& [name, text] : state.options) {
    has_seed |= name == "seed" && text == "11";
    has_threads |= name == "threads";
  }
  EXPECT_TRUE(has_seed);
  EXPECT_FALSE(has_threads);  // not in the stream
}

TEST_F(LoaderStateTest, OtherStreamOptionsAreRefusedNamingThem) {
  const LoaderState state = Loader(Spec(), SmallOptions()).State();
  LoaderOptions options = SmallOptions();
  options.seed = 12;
  options.output.layout = Layout::kNCHW;
  options.augment.rotation_fraction = 0.1;
  Loader other(Spec(), options);
  const std::string message = ConfigErrorOf([&] { other.Restore(state); });
  EXPECT_EQ(message,
            "the checkpoint was made with other options (layout 'nhwc' -> 'nchw', "
            "rotation_fraction 0.2 -> 0.1, seed 11 -> 12): resuming would not give the same "
            "batches");
}

// One delivered sample: its id and every byte of its image and mask.
struct Sample {
  uint32_t id = 0;
  std::string bytes;
};

// The samples of up to `batches` more batches (all that are left with -1).
std::vector<Sample> TakeSamples(Loader& loader, int batches = -1) {
  std::vector<Sample> samples;
  for (int taken = 0; batches < 0 || taken < batches; ++taken) {
    std::optional<Lease> lease = loader.Next();
    if (!lease) break;
    const size_t count = lease->sample_ids().size();
    const size_t image_bytes = lease->images().bytes() / count;
    const size_t mask_bytes = lease->masks().bytes() / count;
    for (size_t i = 0; i < count; ++i) {
      Sample sample{lease->sample_ids()[i], ""};
      sample.bytes.assign(static_cast<const char*>(lease->images().data) + i * image_bytes,
                          image_bytes);
      sample.bytes.append(static_cast<const char*>(lease->masks().data) + i * mask_bytes,
                          mask_bytes);
      samples.push_back(std::move(sample));
    }
  }
  return samples;
}

LoaderOptions ShardOptions(int rank, int world_size) {
  LoaderOptions options = LoaderStateTest::SmallOptions();
  options.batch_size = 2;
  options.rank = rank;
  options.world_size = world_size;
  return options;
}

// Each sample's bytes in epoch 0 of an unsharded loader: a sample's
// augmentation depends on its id, not on the shard that loads it.
std::map<uint32_t, std::string> ReferenceBytes() {
  Loader loader(LoaderStateTest::Spec(), ShardOptions(0, 1));
  loader.StartEpoch(0);
  std::map<uint32_t, std::string> bytes;
  for (Sample& sample : TakeSamples(loader)) bytes[sample.id] = std::move(sample.bytes);
  return bytes;
}

// The rest of epoch 0 at world size `world_size`, every rank restored from
// `state`: what the new ranks deliver, all together.
std::vector<Sample> RestOfTheEpoch(const LoaderState& state, int world_size,
                                   int64_t expected_global_position) {
  std::vector<Sample> delivered;
  for (int rank = 0; rank < world_size; ++rank) {
    Loader loader(LoaderStateTest::Spec(), ShardOptions(rank, world_size));
    loader.Restore(state);
    EXPECT_EQ(loader.position(), (LoaderPosition{0, 0, expected_global_position}));
    EXPECT_EQ(loader.StartNextEpoch(), (LoaderPosition{0, 0, expected_global_position}));
    const int64_t rest = 13 - expected_global_position;
    const int64_t per_rank = (rest + world_size - 1) / world_size;
    EXPECT_EQ(loader.batches_in_epoch(), (per_rank + 1) / 2) << "world size " << world_size;
    for (Sample& sample : TakeSamples(loader)) delivered.push_back(std::move(sample));
    EXPECT_EQ(loader.position(), (LoaderPosition{1, 0, 0}));
    EXPECT_EQ(loader.batches_in_epoch(), (per_rank + 1) / 2);
  }
  return delivered;
}

// Over the old ranks and the new, each sample of the epoch once, with the
// bytes it has in an uninterrupted run; the new ranks' padding (the first
// samples of the rest, repeated up to a multiple of their world size) aside.
void ExpectEachSampleOnce(const std::vector<Sample>& before, const std::vector<Sample>& after,
                          int new_world_size) {
  static const std::map<uint32_t, std::string> reference = ReferenceBytes();
  ASSERT_EQ(reference.size(), 13u);
  std::map<uint32_t, int> before_count, after_count;
  for (const Sample& sample : before) ++before_count[sample.id];
  for (const Sample& sample : after) ++after_count[sample.id];
  for (const auto& [id, count] : before_count) {
    EXPECT_EQ(count, 1) << "sample " << id << " before the resume";
    EXPECT_EQ(after_count.count(id), 0u) << "sample " << id << " delivered again after the resume";
  }
  const size_t rest = 13 - before.size();
  const size_t padded = (rest + new_world_size - 1) / new_world_size * new_world_size;
  EXPECT_EQ(after_count.size(), rest);
  EXPECT_EQ(after.size(), padded);
  EXPECT_EQ(before_count.size() + after_count.size(), 13u);
  for (const std::vector<Sample>* part : {&before, &after}) {
    for (const Sample& sample : *part) {
      EXPECT_TRUE(sample.bytes == reference.at(sample.id)) << "sample " << sample.id;
    }
  }
}

// Under skip, a resume on another world size re-shards the rest of the
// epoch: the slot of a bad pair is another position than in the
// uninterrupted run and draws another replacement (README, "Resuming on
// another number of ranks"). What holds: each good sample of the epoch
// arrives once with its bytes, the bad pair never, and every slot is filled.
TEST_F(LoaderStateTest, UnderSkipAResumeOnAnotherWorldSizeDeliversEachGoodSampleOnce) {
  TempDir copy;
  CopyTree(dir_->path(), copy.path());
  const DatasetSpec spec = DatasetSpec::Carvana(copy.path());
  const auto options = [](int rank, int world_size) {
    LoaderOptions skip = ShardOptions(rank, world_size);
    skip.on_bad_file = OnBadFile::kSkip;
    return skip;
  };
  // The epoch's permutation and each sample's bytes, while all pairs are good.
  std::vector<uint32_t> order;
  std::map<uint32_t, std::string> reference;
  {
    Loader loader(spec, options(0, 1));
    loader.StartEpoch(0);
    for (Sample& sample : TakeSamples(loader)) {
      order.push_back(sample.id);
      reference[sample.id] = std::move(sample.bytes);
    }
  }
  ASSERT_EQ(order.size(), 13u);
  // Two ranks take a batch of 2 each: positions 0 to 3. Position 6 is in the rest.
  const uint32_t bad = order[6];
  const fs::path victim = Loader(spec, options(0, 1)).dataset().pairs[bad].image_path;
  std::ofstream(victim, std::ios::binary | std::ios::trunc) << "not a JPEG";

  std::vector<Sample> delivered;
  LoaderState state;
  for (int rank = 0; rank < 2; ++rank) {
    Loader loader(spec, options(rank, 2));
    loader.StartEpoch(0);
    for (Sample& sample : TakeSamples(loader, 1)) delivered.push_back(std::move(sample));
    state = loader.State();
  }
  EXPECT_EQ(state.global_position, 4);
  Loader resumed(spec, options(0, 1));
  resumed.Restore(state);
  resumed.StartNextEpoch();
  for (Sample& sample : TakeSamples(resumed)) delivered.push_back(std::move(sample));

  EXPECT_EQ(delivered.size(), 13u);  // every slot filled
  std::map<uint32_t, int> planned;
  int replacements = 0;
  for (const Sample& sample : delivered) {
    EXPECT_NE(sample.id, bad);
    // A replacement has augmentation of its own, not its pair's.
    if (sample.bytes == reference.at(sample.id)) {
      ++planned[sample.id];
    } else {
      ++replacements;
    }
  }
  EXPECT_EQ(replacements, 1);
  EXPECT_EQ(planned.size(), 12u);
  for (const auto& [id, count] : planned) EXPECT_EQ(count, 1) << "sample " << id;
}

// World size 2 (13 samples, batches of 2: 7 per rank in 4 batches) stops
// after 2 batches a rank, 8 samples in all; its state resumes at world size
// 1 (the 5 left, 3 batches) and 3 (2 each, one of them padding).
TEST_F(LoaderStateTest, AStateResumesOnAnotherWorldSizeWithTheRestOfTheEpochOnce) {
  std::vector<Sample> before;
  std::vector<LoaderState> states;
  for (int rank = 0; rank < 2; ++rank) {
    Loader loader(Spec(), ShardOptions(rank, 2));
    loader.StartEpoch(0);
    for (Sample& sample : TakeSamples(loader, 2)) before.push_back(std::move(sample));
    states.push_back(loader.State());
    EXPECT_EQ(states.back().global_position, 8);
    EXPECT_EQ(states.back().shard_start, 0);
  }
  // Through the text a checkpoint holds; either rank's state will do.
  const LoaderState from_rank0 = LoaderState::Parse(states[0].Serialize());
  const LoaderState from_rank1 = LoaderState::Parse(states[1].Serialize());
  ExpectEachSampleOnce(before, RestOfTheEpoch(from_rank0, 1, 8), 1);
  ExpectEachSampleOnce(before, RestOfTheEpoch(from_rank1, 3, 8), 3);

  // The epoch after the resumed one is the new world size's own, in full.
  Loader resumed(Spec(), ShardOptions(1, 3));
  resumed.Restore(from_rank0);
  resumed.StartNextEpoch();
  TakeSamples(resumed);
  EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{1, 0, 0}));
  Loader fresh(Spec(), ShardOptions(1, 3));
  fresh.StartEpoch(1);
  EXPECT_TRUE(Remaining(resumed) == Remaining(fresh));
}

// 2 ranks take 1 batch each (4 samples), then 3 ranks 1 batch each of the
// 9 left (6 more: 10 in all), then 1 rank the last 3.
TEST_F(LoaderStateTest, AnEpochReshardedTwiceStillDeliversEachSampleOnce) {
  std::vector<Sample> before;
  LoaderState state;
  for (int rank = 0; rank < 2; ++rank) {
    Loader loader(Spec(), ShardOptions(rank, 2));
    loader.StartEpoch(0);
    for (Sample& sample : TakeSamples(loader, 1)) before.push_back(std::move(sample));
    state = loader.State();
  }
  for (int rank = 0; rank < 3; ++rank) {
    Loader loader(Spec(), ShardOptions(rank, 3));
    loader.Restore(state);
    loader.StartNextEpoch();
    EXPECT_EQ(loader.batches_in_epoch(), 2);  // 3 samples a rank: 2 and 1
    for (Sample& sample : TakeSamples(loader, 1)) before.push_back(std::move(sample));
    const LoaderState at_three = loader.State();
    EXPECT_EQ(
        (std::vector<int64_t>{at_three.next_batch, at_three.shard_start, at_three.global_position}),
        (std::vector<int64_t>{1, 4, 10}));
    if (rank == 2) state = at_three;
  }
  ExpectEachSampleOnce(before, RestOfTheEpoch(LoaderState::Parse(state.Serialize()), 1, 10), 1);
}

// Ranks checkpoint in step, so at the same world size any rank's state
// continues this rank's own stream, byte for byte.
TEST_F(LoaderStateTest, AStateOfTheSameWorldSizeContinuesAnyRankByteForByte) {
  Loader other_rank(Spec(), ShardOptions(1, 2));
  other_rank.StartEpoch(0);
  TakeSamples(other_rank, 1);
  const LoaderState state = other_rank.State();

  Loader uninterrupted(Spec(), ShardOptions(0, 2));
  uninterrupted.StartEpoch(0);
  ASSERT_TRUE(uninterrupted.Next().has_value());
  Loader resumed(Spec(), ShardOptions(0, 2));
  resumed.Restore(state);
  EXPECT_EQ(resumed.StartNextEpoch(), (LoaderPosition{0, 1, 0}));
  EXPECT_TRUE(Remaining(resumed) == Remaining(uninterrupted));
}

// A version 2 state (segfeed before the global position) resumes: at the
// same world size as before, at another from the position its next_batch
// implies.
TEST_F(LoaderStateTest, AVersion2StateResumes) {
  Loader loader(Spec(), ShardOptions(0, 2));
  loader.StartEpoch(0);
  TakeSamples(loader, 2);
  std::string text = loader.State().Serialize();
  text.replace(text.find("state 3"), 7, "state 2");
  for (const std::string field : {"shard_start 0\n", "global_position 8\n"}) {
    ASSERT_NE(text.find(field), std::string::npos) << text;
    text.erase(text.find(field), field.size());
  }
  const LoaderState old = LoaderState::Parse(text);
  EXPECT_EQ(old.version, 2);
  EXPECT_EQ(old.Serialize(), text);
  Loader same(Spec(), ShardOptions(0, 2));
  same.Restore(old);
  EXPECT_EQ(same.position(), (LoaderPosition{0, 2, 0}));
  Loader other(Spec(), ShardOptions(0, 1));
  other.Restore(old);
  EXPECT_EQ(other.position(), (LoaderPosition{0, 0, 8}));
}

TEST_F(LoaderStateTest, AStateWhosePositionContradictsItselfIsRefused) {
  Loader loader(Spec(), ShardOptions(0, 2));
  loader.StartEpoch(0);
  TakeSamples(loader, 1);
  LoaderState state = loader.State();
  state.global_position = 6;
  Loader resumed(Spec(), ShardOptions(0, 1));
  EXPECT_EQ(ConfigErrorOf([&] { resumed.Restore(state); }),
            "the state's global_position 6 is not where its shard_start 0, next_batch 1 and "
            "world_size 2 lead (4): it was edited");
  state.global_position = 4;
  state.shard_start = 13;
  EXPECT_EQ(ConfigErrorOf([&] { resumed.Restore(state); }),
            "shard_start must be in [0, 13) (got 13)");
  EXPECT_EQ(resumed.position(), (LoaderPosition{0, 0, 0}));  // nothing changed
}

TEST_F(LoaderStateTest, AChangedDatasetIsRefused) {
  TempDir copy;
  CopyTree(dir_->path(), copy.path());
  const DatasetSpec spec = DatasetSpec::Carvana(copy.path());
  const LoaderState state = Loader(spec, SmallOptions()).State();
  // One more pair.
  const fs::path first_image = Loader(spec, SmallOptions()).dataset().pairs[0].image_path;
  const fs::path first_mask = Loader(spec, SmallOptions()).dataset().pairs[0].mask_path;
  fs::copy_file(first_image, copy / "train/zzzz_01.jpg");
  fs::copy_file(first_mask, copy / "train_masks/zzzz_01_mask.gif");
  {
    Loader changed(spec, SmallOptions());
    const std::string message = ConfigErrorOf([&] { changed.Restore(state); });
    EXPECT_EQ(message.rfind("the dataset changed since the checkpoint (listing digest " +
                                state.listing_digest + " -> ",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find(spec.image_dir.string()), std::string::npos) << message;
  }
  // The same names, other bytes.
  fs::remove(copy / "train/zzzz_01.jpg");
  fs::remove(copy / "train_masks/zzzz_01_mask.gif");
  Loader(spec, SmallOptions()).Restore(state);  // as it was: accepted
  std::ofstream(first_image, std::ios::app) << std::string(10, '\0');
  Loader grown(spec, SmallOptions());
  EXPECT_NE(ConfigErrorOf([&] { grown.Restore(state); }).find("the dataset changed"),
            std::string::npos);
}

// A file that was bad for a while (a partial write, an I/O error) stays out
// of a long skip run once it was found bad; a run resumed from a checkpoint
// of that long run must leave it out too, or its batches differ.
TEST_F(LoaderStateTest, AResumedLoaderLeavesOutThePairsTheLongRunFoundBad) {
  TempDir copy;
  CopyTree(dir_->path(), copy.path());
  const DatasetSpec spec = DatasetSpec::Carvana(copy.path());
  LoaderOptions options = SmallOptions();
  options.on_bad_file = OnBadFile::kSkip;
  const fs::path victim = Loader(spec, options).dataset().pairs[5].image_path;
  const std::string good_bytes = [&] {
    std::ifstream in(victim, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  // Bad for a while at its own size (the listing digest holds the sizes).
  std::ofstream(victim, std::ios::binary | std::ios::trunc)
      << std::string(16, 'x') << good_bytes.substr(16);

  Loader long_run(spec, options);
  long_run.StartEpoch(0);
  Remaining(long_run);
  const LoaderState state = LoaderState::Parse(long_run.State().Serialize());
  ASSERT_EQ(state.known_bad.size(), 1u);
  EXPECT_EQ(state.known_bad[0].first, 5u);
  EXPECT_NE(state.Serialize().find(
                "\nknown_bad 5=" + std::string(ErrorKindName(state.known_bad[0].second)) + "\n"),
            std::string::npos);

  std::ofstream(victim, std::ios::binary | std::ios::trunc) << good_bytes;  // good again
  long_run.StartNextEpoch();
  const std::vector<std::string> long_epoch1 = Remaining(long_run);

  Loader resumed(spec, options);
  resumed.Restore(state);
  resumed.StartNextEpoch();
  EXPECT_TRUE(Remaining(resumed) == long_epoch1);
  const LoaderStats stats = resumed.stats();
  ASSERT_EQ(stats.skipped_files.size(), 1u);
  EXPECT_EQ(stats.skipped_files[0].path, victim.string());
  EXPECT_EQ(stats.samples_loaded + stats.samples_replaced, 13);

  LoaderState forgetful = state;
  forgetful.known_bad.clear();
  Loader fresh(spec, options);
  fresh.Restore(forgetful);
  fresh.StartNextEpoch();
  EXPECT_FALSE(Remaining(fresh) == long_epoch1) << "the pair is good again: a fresh loader uses it";

  LoaderState out_of_range = state;
  out_of_range.known_bad = {{13, ErrorKind::kIoError}};
  EXPECT_EQ(ConfigErrorOf([&] { fresh.Restore(out_of_range); }),
            "the state's known_bad names pair 13, but the listing has 13 pairs");
}

TEST_F(LoaderStateTest, ARefusedRestoreChangesNothing) {
  Loader loader(Spec(), SmallOptions());
  loader.StartEpoch(1);
  ASSERT_TRUE(loader.Next().has_value());
  LoaderState state = loader.State();
  state.listing_digest = "0123456789abcdef";
  EXPECT_NE(ConfigErrorOf([&] { loader.Restore(state); }).find("the dataset changed"),
            std::string::npos);
  state = loader.State();
  state.next_batch = 5;
  EXPECT_EQ(ConfigErrorOf([&] { loader.Restore(state); }), "next_batch must be in [0, 4] (got 5)");
  state.version = 1;
  EXPECT_NE(
      ConfigErrorOf([&] { loader.Restore(state); }).find("of version 2 to 3 (got version 1: "),
      std::string::npos);
  EXPECT_EQ(loader.position(), (LoaderPosition{1, 1}));
  const std::vector<std::string> rest = Remaining(loader);
  const std::vector<std::string> epoch1 = Uninterrupted(1);
  EXPECT_TRUE(rest == std::vector<std::string>(epoch1.begin() + 1, epoch1.end()));
}

// The last epoch is the one before INT64_MAX: position() moves on to the
// epoch after it, which must not wrap around to a negative one.
TEST_F(LoaderStateTest, AnEpochWithoutANextOneIsRefused) {
  Loader loader(Spec(), SmallOptions());
  const std::string message = "epoch must be in [0, 9223372036854775806] (got ";
  EXPECT_EQ(ConfigErrorOf([&] { loader.StartEpoch(INT64_MAX); }), message + "9223372036854775807)");
  EXPECT_EQ(ConfigErrorOf([&] { loader.StartEpoch(-1); }), message + "-1)");
  LoaderState state = loader.State();
  state.epoch = INT64_MAX;
  EXPECT_EQ(ConfigErrorOf([&] { loader.Restore(state); }),
            "loader state: " + message + "9223372036854775807)");
  loader.StartEpoch(INT64_MAX - 1, 3);
  ASSERT_TRUE(loader.Next().has_value());
  EXPECT_EQ(loader.position(), (LoaderPosition{INT64_MAX, 0}));
}

TEST_F(LoaderStateTest, SerializeAndParseRoundTrip) {
  Loader loader(Spec(), SmallOptions());
  loader.StartEpoch(7, 3);
  const LoaderState state = loader.State();
  const std::string text = state.Serialize();
  EXPECT_EQ(text.rfind("segfeed-loader-state 3\nepoch 7\nnext_batch 3\nseed 11\n", 0), 0u) << text;
  EXPECT_LT(text.size(), 2048u);
  EXPECT_EQ(LoaderState::Parse(text), state);
  // Windows line ends and blank lines are read too.
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n\r\n") : std::string(1, c);
  EXPECT_EQ(LoaderState::Parse(crlf), state);
  LoaderState large = state;
  large.seed = UINT64_MAX;
  large.epoch = INT64_MAX - 1;  // the last epoch: the one after it is a number too
  EXPECT_EQ(LoaderState::Parse(large.Serialize()), large);
}

TEST_F(LoaderStateTest, ParseRefusesMalformedTextNamingWhatIsWrong) {
  const std::string good = Loader(Spec(), SmallOptions()).State().Serialize();
  const auto replaced = [&good](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  const std::string options_start = good.substr(good.find("option "));
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {"", "not a segfeed loader state: it starts with '', not 'segfeed-loader-state <version>'"},
      {"{\"version\": 2}", "not a segfeed loader state: it starts with '{\"version\": 2}'"},
      {replaced("state 3", "state 1"),
       "not a segfeed loader state of version 2 to 3 (got version 1: "},
      {replaced("state 3", "state 99"),
       "not a segfeed loader state of version 2 to 3 (got version 99)"},
      {replaced("state 3", "state 2"),
       "loader state: unknown field global_position (in a version 2 state)"},
      {replaced("state 3", "state two"), "loader state: version must be an integer (got 'two')"},
      {replaced("state 3", "state 2147483648"),
       "not a segfeed loader state of version 2 to 3 (got version 2147483648)"},
      {replaced("epoch 0\n", ""), "loader state: no epoch"},
      {replaced("epoch 0\n", "epoch 0\nepoch 1\n"), "loader state: epoch is given twice"},
      {replaced("epoch 0", "epoch zero"),
       "loader state: epoch must be an integer in [0, 9223372036854775806] (got 'zero')"},
      {replaced("epoch 0", "epoch -1"),
       "loader state: epoch must be in [0, 9223372036854775806] (got -1)"},
      {replaced("seed 11", "seed 18446744073709551616"),
       "loader state: seed must be in [0, 18446744073709551615] (got 18446744073709551616)"},
      {replaced("world_size 1", "world_size 0"),
       "loader state: world_size must be in [1, 2147483647] (got 0)"},
      {replaced("rank 0", "rank 1"), "loader state: rank must be in [0, world_size 1) (got 1)"},
      {replaced("shard_start 0", "shard_start -1"),
       "loader state: shard_start must be in [0, 9223372036854775807] (got -1)"},
      {replaced("global_position 0\n", ""), "loader state: no global_position"},
      {replaced("global_position 0\n", "global_position 0\nknown_bad 3=nonsense\n"),
       "loader state: known_bad must list <pair id>=<error kind> (got '3=nonsense')"},
      {replaced("global_position 0\n", "global_position 0\nknown_bad x=io_error\n"),
       "loader state: known_bad pair id must be an integer in [0, 4294967295] (got 'x')"},
      {replaced("global_position 0\n", "global_position 0\nknown_bad 4294967296=io_error\n"),
       "loader state: known_bad pair id must be in [0, 4294967295] (got 4294967296)"},
      {replaced("global_position 0\n", "global_position 0\nknown_bad 3=io_error,3=io_error\n"),
       "loader state: known_bad lists pair 3 twice"},
      {replaced("epoch 0", "epoch"), "loader state: line 2 'epoch' is not '<field> <value>'"},
      {replaced("epoch 0", "colour blue"), "loader state: unknown field colour"},
      {replaced("options_digest ", "options_digest x"),
       "loader state: options_digest must be 16 hex"},
      {replaced("option batch_size=4", "option batch_size"),
       "loader state: line 12 'option batch_size' is not 'option <name>=<value>'"},
      {replaced("option batch_size=4\n", "option batch_size=4\noption batch_size=5\n"),
       "loader state: option batch_size is given twice"},
      {replaced(options_start, ""), "loader state: no options"},
  };
  for (const auto& [text, message] : cases) {
    const std::string got = ConfigErrorOf([&text] { LoaderState::Parse(text); });
    EXPECT_EQ(got.rfind(message, 0), 0u) << "got: " << got << "\nfor:\n" << text;
  }
}

// Every integer field of the state, the values it may take, as messages show them.
struct IntegerFieldRange {
  std::string key;
  std::string range;
};
const IntegerFieldRange kIntegerFieldRanges[] = {
    {"epoch", "[0, 9223372036854775806]"},
    {"next_batch", "[0, 9223372036854775807]"},
    {"seed", "[0, 18446744073709551615]"},
    {"rank", "[0, 2147483647]"},
    {"world_size", "[1, 2147483647]"},
    {"shard_start", "[0, 9223372036854775807]"},
    {"global_position", "[0, 9223372036854775807]"},
    {"batches_per_epoch", "[0, 9223372036854775807]"},
};

// Whether `value` lies in "[low, high]", both non-negative.
bool InRange(const std::string& value, const std::string& range) {
  const auto less_or_equal = [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a <= b;
  };
  const size_t comma = range.find(", ");
  const std::string low = range.substr(1, comma - 1);
  const std::string high = range.substr(comma + 2, range.size() - comma - 3);
  return value[0] != '-' && less_or_equal(low, value) && less_or_equal(value, high);
}

// The text path: each integer field at the edges of the types it could be
// read into, and values that are no integer, is read when within its range
// and refused otherwise, naming the field and its range (not "an integer
// of its range", nor a crash later).
TEST_F(LoaderStateTest, EveryIntegerFieldIsReadWithinItsRangeAndRefusedOutsideNamingIt) {
  const std::string good = Loader(Spec(), SmallOptions()).State().Serialize();
  const std::vector<std::string> integers = {"0",
                                             "1",
                                             "-1",
                                             "2147483647",
                                             "2147483648",
                                             "4294967296",
                                             "9223372036854775807",
                                             "9223372036854775808",
                                             "18446744073709551615",
                                             "18446744073709551616",
                                             "-9223372036854775809"};
  const std::vector<std::string> not_integers = {"1.5", "x", "0x10", "+1", "1e3", "-"};
  for (const auto& [key, range] : kIntegerFieldRanges) {
    const size_t start = good.find("\n" + key + " ") + 1;
    ASSERT_NE(start, 0u) << key;
    const size_t end = good.find('\n', start);
    const auto with = [&](const std::string& value) {
      return good.substr(0, start) + key + " " + value + good.substr(end);
    };
    for (const std::string& value : integers) {
      // rank must also be below world_size (1 here): its own case below.
      const bool accepted = InRange(value, range) && (key != "rank" || value == "0");
      const std::string text = with(value);
      if (accepted) {
        EXPECT_EQ(LoaderState::Parse(text).Serialize(), text) << key << " " << value;
        continue;
      }
      const std::string expected =
          key == "rank" && InRange(value, range)
              ? "loader state: rank must be in [0, world_size 1) (got " + value + ")"
              : "loader state: " + key + " must be in " + range + " (got " + value + ")";
      EXPECT_EQ(ConfigErrorOf([&] { LoaderState::Parse(text); }), expected);
    }
    for (const std::string& value : not_integers) {
      EXPECT_EQ(
          ConfigErrorOf([&] { LoaderState::Parse(with(value)); }),
          "loader state: " + key + " must be an integer in " + range + " (got '" + value + "')");
    }
    EXPECT_EQ(
        ConfigErrorOf([&] { LoaderState::Parse(good.substr(0, start) + good.substr(end + 1)); }),
        "loader state: no " + key);
  }
}

// The struct path: a LoaderState made (or edited) in C++ and handed to
// Restore() is checked against the same ranges. world_size 0 was a
// division by zero (SIGFPE), -1 a message about next_batch.
TEST_F(LoaderStateTest, RestoreRefusesAFieldOutsideItsRangeNamingIt) {
  Loader loader(Spec(), SmallOptions());
  const LoaderState good = loader.State();
  const auto refused = [&](const std::function<void(LoaderState&)>& edit) {
    LoaderState state = good;
    edit(state);
    return ConfigErrorOf([&] { loader.Restore(state); });
  };
  EXPECT_EQ(refused([](LoaderState& s) { s.world_size = 0; }),
            "loader state: world_size must be in [1, 2147483647] (got 0)");
  EXPECT_EQ(refused([](LoaderState& s) { s.world_size = -1; }),
            "loader state: world_size must be in [1, 2147483647] (got -1)");
  EXPECT_EQ(refused([](LoaderState& s) { s.world_size = INT_MIN; }),
            "loader state: world_size must be in [1, 2147483647] (got -2147483648)");
  EXPECT_EQ(refused([](LoaderState& s) { s.rank = -1; }),
            "loader state: rank must be in [0, 2147483647] (got -1)");
  EXPECT_EQ(refused([](LoaderState& s) { s.rank = 1; }),
            "loader state: rank must be in [0, world_size 1) (got 1)");
  EXPECT_EQ(refused([](LoaderState& s) { s.epoch = -1; }),
            "loader state: epoch must be in [0, 9223372036854775806] (got -1)");
  for (const auto& [key, member] :
       {std::pair<std::string, int64_t LoaderState::*>{"next_batch", &LoaderState::next_batch},
        {"shard_start", &LoaderState::shard_start},
        {"global_position", &LoaderState::global_position},
        {"batches_per_epoch", &LoaderState::batches_per_epoch}}) {
    EXPECT_EQ(
        refused([member = member](LoaderState& s) { s.*member = INT64_MIN; }),
        "loader state: " + key + " must be in [0, 9223372036854775807] (got -9223372036854775808)");
  }
  EXPECT_EQ(refused([](LoaderState& s) { s.version = 0; }).rfind("not a segfeed loader state", 0),
            0u);
  EXPECT_EQ(loader.position(), (LoaderPosition{0, 0}));  // nothing changed
}

// Fields the options digest already decides: an edit of one alone was
// accepted and ignored (a seed edited to 12 still streamed seed 11's
// batches). Refused, naming the field.
TEST_F(LoaderStateTest, ASeedOrOptionLinesOtherThanTheDigestIsRefused) {
  Loader loader(Spec(), SmallOptions());
  const std::string good = loader.State().Serialize();
  const auto edited = [&good](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return LoaderState::Parse(text);
  };
  EXPECT_EQ(ConfigErrorOf([&] { loader.Restore(edited("\nseed 11\n", "\nseed 12\n")); }),
            "the state's seed 12 is not the seed its options_digest stands for (11): it was "
            "edited");
  EXPECT_EQ(
      ConfigErrorOf([&] { loader.Restore(edited("option batch_size=4", "option batch_size=5")); }),
      "the state's option lines are not those its options_digest stands for (batch_size "
      "5 -> 4): it was edited");
  loader.Restore(LoaderState::Parse(good));  // as it was: accepted
}

// batches_per_epoch is what the options, the listing and the state's
// world size give: an edited one does not change the epoch's length, so it
// is refused rather than ignored.
TEST_F(LoaderStateTest, AnEditedBatchesPerEpochIsRefused) {
  Loader loader(Spec(), ShardOptions(0, 2));
  LoaderState state = loader.State();
  EXPECT_EQ(state.batches_per_epoch, 4);
  state.batches_per_epoch = 7;
  EXPECT_EQ(ConfigErrorOf([&] { loader.Restore(state); }),
            "the state's batches_per_epoch 7 is not what its world_size 2 gives (4): it was "
            "edited");
  Loader other(Spec(), ShardOptions(0, 3));  // another world size: the state's own count
  EXPECT_NE(ConfigErrorOf([&] { other.Restore(state); }).find("batches_per_epoch 7"),
            std::string::npos);
  state.batches_per_epoch = 4;
  other.Restore(state);
}

// A fail loader never skips a pair, so its state never lists one: a
// known_bad added by hand would have silently replaced a good pair.
TEST_F(LoaderStateTest, KnownBadInTheStateOfAFailLoaderIsRefused) {
  Loader loader(Spec(), SmallOptions());
  ASSERT_EQ(SmallOptions().on_bad_file, OnBadFile::kFail);
  LoaderState state = loader.State();
  state.known_bad = {{3, ErrorKind::kCorruptImage}};
  EXPECT_EQ(ConfigErrorOf([&] { loader.Restore(state); }),
            "the state's known_bad lists 1 pair(s), but its on_bad_file is 'fail', which skips "
            "none: it was edited");
  state.known_bad = {{3, ErrorKind::kCorruptImage}, {3, ErrorKind::kIoError}};
  EXPECT_EQ(ConfigErrorOf([&] { loader.Restore(state); }),
            "loader state: known_bad lists pair 3 twice");
  loader.StartEpoch(0);
  EXPECT_TRUE(Remaining(loader) == Uninterrupted(0));  // pair 3 read, as in the run
}

}  // namespace
}  // namespace segfeed
