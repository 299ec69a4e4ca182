#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "segfeed/loader.h"
#include "segfeed/option_table.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::TempDir;

// 13 small pairs, written once for the whole suite: 4 batches of 4 an epoch,
// the last one short.
class LoaderStateTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    tools::DemoOptions demo;
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

// Every byte a trainer would see in one batch, plus its ids.
std::string BatchBytes(const Lease& lease) {
  std::string bytes(static_cast<const char*>(lease.images().data), lease.images().bytes());
  bytes.append(static_cast<const char*>(lease.masks().data), lease.masks().bytes());
  for (uint32_t id : lease.sample_ids())
    bytes.append(reinterpret_cast<const char*>(&id), sizeof id);
  return bytes;
}

std::vector<std::string> Remaining(Loader& loader) {
  std::vector<std::string> batches;
  while (auto lease = loader.Next()) batches.push_back(BatchBytes(*lease));
  return batches;
}

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

TEST_F(LoaderStateTest, AnotherShardIsRefused) {
  const LoaderState state = Loader(Spec(), SmallOptions()).State();
  LoaderOptions options = SmallOptions();
  options.rank = 1;
  options.world_size = 2;
  Loader shard(Spec(), options);
  EXPECT_EQ(ConfigErrorOf([&] { shard.Restore(state); }),
            "the checkpoint is of shard 0/1, this loader streams shard 1/2");
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
  EXPECT_NE(ConfigErrorOf([&] { loader.Restore(state); }).find("of version 2 (got version 1: "),
            std::string::npos);
  EXPECT_EQ(loader.position(), (LoaderPosition{1, 1}));
  const std::vector<std::string> rest = Remaining(loader);
  const std::vector<std::string> epoch1 = Uninterrupted(1);
  EXPECT_TRUE(rest == std::vector<std::string>(epoch1.begin() + 1, epoch1.end()));
}

TEST_F(LoaderStateTest, SerializeAndParseRoundTrip) {
  Loader loader(Spec(), SmallOptions());
  loader.StartEpoch(7, 3);
  const LoaderState state = loader.State();
  const std::string text = state.Serialize();
  EXPECT_EQ(text.rfind("segfeed-loader-state 2\nepoch 7\nnext_batch 3\nseed 11\n", 0), 0u) << text;
  EXPECT_LT(text.size(), 2048u);
  EXPECT_EQ(LoaderState::Parse(text), state);
  // Windows line ends and blank lines are read too.
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n\r\n") : std::string(1, c);
  EXPECT_EQ(LoaderState::Parse(crlf), state);
  LoaderState large = state;
  large.seed = UINT64_MAX;
  large.epoch = INT64_MAX;
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
      {replaced("state 2", "state 1"), "not a segfeed loader state of version 2 (got version 1: "},
      {replaced("state 2", "state 99"), "not a segfeed loader state of version 2 (got version 99)"},
      {replaced("state 2", "state two"), "loader state: version must be an integer"},
      {replaced("epoch 0\n", ""), "loader state: no epoch"},
      {replaced("epoch 0\n", "epoch 0\nepoch 1\n"), "loader state: epoch is given twice"},
      {replaced("epoch 0", "epoch zero"),
       "loader state: epoch must be an integer of its range (got 'zero')"},
      {replaced("epoch 0", "epoch -1"), "loader state: epoch must be >= 0 (got -1)"},
      {replaced("seed 11", "seed 18446744073709551616"), "loader state: seed must be an integer"},
      {replaced("world_size 1", "world_size 0"), "loader state: world_size must be >= 1 (got 0)"},
      {replaced("epoch 0", "epoch"), "loader state: line 2 'epoch' is not '<field> <value>'"},
      {replaced("epoch 0", "colour blue"), "loader state: unknown field colour"},
      {replaced("options_digest ", "options_digest x"),
       "loader state: options_digest must be 16 hex"},
      {replaced("option batch_size=4", "option batch_size"),
       "loader state: line 10 'option batch_size' is not 'option <name>=<value>'"},
      {replaced("option batch_size=4\n", "option batch_size=4\noption batch_size=5\n"),
       "loader state: option batch_size is given twice"},
      {replaced(options_start, ""), "loader state: no option lines"},
  };
  for (const auto& [text, message] : cases) {
    const std::string got = ConfigErrorOf([&text] { LoaderState::Parse(text); });
    EXPECT_EQ(got.rfind(message, 0), 0u) << "got: " << got << "\nfor:\n" << text;
  }
}

}  // namespace
}  // namespace segfeed
