#include "segfeed/option_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed {
namespace {

std::string MessageOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

// cache_limit takes bytes as a number or with pack's units; cache_dir is a
// folder, "none" on the command line (None in Python) for no cache.
TEST(OptionTableTest, TheCacheOptionsTakeBytesWithUnitsAndAFolderOrNone) {
  const OptionSpec* limit = FindOption("cache_limit");
  const OptionSpec* dir = FindOption("cache_dir");
  ASSERT_NE(limit, nullptr);
  ASSERT_NE(dir, nullptr);
  LoaderOptions options;
  EXPECT_EQ(limit->Text(options), "10GiB");
  for (const auto& [text, bytes] :
       std::vector<std::pair<std::string, int64_t>>{{"10GiB", int64_t{10} << 30},
                                                    {"512MiB", int64_t{512} << 20},
                                                    {"1GB", 1000000000},
                                                    {"4096", 4096},
                                                    {"3KB", 3000},
                                                    {"0", 0},
                                                    {"7B", 7}}) {
    limit->Parse(options, text);
    EXPECT_EQ(options.object_storage.cache_limit, bytes) << text;
  }
  limit->Set(options, OptionValue(std::in_place_type<OptionScalar>, std::string("2MiB")));
  EXPECT_EQ(options.object_storage.cache_limit, int64_t{2} << 20);
  EXPECT_EQ(limit->Text(options), "2MiB");
  limit->Set(options, OptionValue(std::in_place_type<OptionScalar>, int64_t{1500}));
  EXPECT_EQ(limit->Text(options), "1500");
  for (const char* wrong : {"10XB", "GiB", "-1", "1.5GiB", "99999999999999999GiB"}) {
    EXPECT_EQ(MessageOf([&] { limit->Parse(options, wrong); }).rfind("cache_limit must be", 0), 0u)
        << wrong;
  }
  EXPECT_THROW(limit->Set(options, OptionValue(std::in_place_type<OptionScalar>, int64_t{-1})),
               ConfigError);

  EXPECT_TRUE(std::holds_alternative<std::monostate>(dir->Get(options)));
  EXPECT_EQ(dir->Text(options), "none");
  dir->Parse(options, "/tmp/segfeed-cache");
  EXPECT_EQ(options.object_storage.cache_dir, "/tmp/segfeed-cache");
  dir->Set(options, std::monostate{});
  EXPECT_TRUE(options.object_storage.cache_dir.empty());
  EXPECT_NE(MessageOf([&] { dir->Parse(options, ""); }).find("cache_dir must be a folder"),
            std::string::npos);
}

TEST(OptionTableTest, NamesAndFlagsAreUnique) {
  std::set<std::string_view> names, flags;
  for (const OptionSpec* option : LoaderOptionTable()) {
    EXPECT_TRUE(names.insert(option->name()).second) << option->name();
    EXPECT_TRUE(flags.insert(option->flag()).second) << option->flag();
    EXPECT_FALSE(option->doc().empty()) << option->name();
    EXPECT_EQ(FindOption(option->name()), option);
  }
  EXPECT_EQ(FindOption("no_such_option"), nullptr);
}

// Every default survives both ways in: the value Get() gives and the text
// Text() gives set the same struct, and the defaults pass validation.
TEST(OptionTableTest, DefaultsRoundTripThroughValuesAndText) {
  const LoaderOptions defaults;
  for (const OptionSpec* option : LoaderOptionTable()) {
    LoaderOptions from_value, from_text;
    option->Set(from_value, option->Get(defaults));
    option->Parse(from_text, option->Text(defaults));
    EXPECT_EQ(StreamOptionsText(from_value), StreamOptionsText(defaults)) << option->name();
    EXPECT_EQ(StreamOptionsText(from_text), StreamOptionsText(defaults)) << option->name();
    EXPECT_EQ(option->Text(from_text), option->Text(defaults)) << option->name();
  }
  EXPECT_NO_THROW(ValidateLoaderOptions(defaults));
}

TEST(OptionTableTest, TextAndValuesGiveTheSameMessages) {
  LoaderOptions options;
  const OptionSpec* batch = FindOption("batch_size");
  const std::string from_text = MessageOf([&] { batch->Parse(options, "0"); });
  EXPECT_EQ(from_text, "batch_size must be >= 1 (got 0)");
  EXPECT_EQ(MessageOf([&] { batch->Set(options, OptionScalar(int64_t{0})); }), from_text);
  EXPECT_EQ(MessageOf([&] { FindOption("threads")->Parse(options, "2000"); }),
            "threads must be in [0, 1024], 0 meaning one per core (got 2000)");
  EXPECT_EQ(MessageOf([&] { FindOption("layout")->Parse(options, "nhcw"); }),
            "layout must be one of nhwc, nchw (got 'nhcw')");
  EXPECT_EQ(MessageOf([&] { FindOption("hue")->Parse(options, "0.3,0.1"); }),
            "hue must be an interval with min <= max (got [0.3, 0.1])");
  EXPECT_EQ(MessageOf([&] { FindOption("size")->Parse(options, "48x0"); }),
            "size's height must be in [1, 16384] (got 0)");
  EXPECT_EQ(MessageOf([&] { FindOption("scratch_headroom")->Parse(options, "1e300"); }),
            "scratch_headroom must be in [1, 1e+06] (got 1e+300)");
}

// shuffle was a bool before it was a choice: true and false still mean
// global and none, from Python and the CLI, and their stream lines are the
// bool's, so checkpoints of then keep their digests.
TEST(OptionTableTest, ShuffleTakesItsChoicesAndTheBoolItWas) {
  const OptionSpec* shuffle = FindOption("shuffle");
  LoaderOptions options;
  shuffle->Set(options, OptionScalar(false));
  EXPECT_EQ(options.shuffle, Shuffle::kNone);
  shuffle->Set(options, OptionScalar(true));
  EXPECT_EQ(options.shuffle, Shuffle::kGlobal);
  shuffle->Parse(options, "shards");
  EXPECT_EQ(options.shuffle, Shuffle::kShards);
  EXPECT_EQ(std::get<std::string>(std::get<OptionScalar>(shuffle->Get(options))), "shards");
  shuffle->Parse(options, "false");
  EXPECT_EQ(shuffle->Text(options), "none");
  EXPECT_EQ(MessageOf([&] { shuffle->Parse(options, "yes"); }),
            "shuffle must be one of global, shards, none (got 'yes')");

  const std::string global = StreamOptionsText(LoaderOptions{});
  ASSERT_NE(global.find("shuffle=true\n"), std::string::npos) << global;
  std::string none = global;
  none.replace(none.find("shuffle=true"), 12, "shuffle=false");
  EXPECT_EQ(StreamOptionsText(options), none);
  options.shuffle = Shuffle::kShards;
  std::string shards = global;
  shards.replace(shards.find("shuffle=true"), 12, "shuffle=shards");
  EXPECT_EQ(StreamOptionsText(options), shards);
  options.shard_window = 8;
  EXPECT_NE(StreamOptionsText(options).find("shard_window=8\n"), std::string::npos);
  // A window belongs to the shard-block order only.
  options.shuffle = Shuffle::kGlobal;
  EXPECT_EQ(MessageOf([&] { ValidateLoaderOptions(options); }),
            "shard_window must be 0 unless shuffle='shards' (got 8 with shuffle='global'): only "
            "the shard-block order reads shards a window at a time");
}

TEST(OptionTableTest, WrongTypesAreTypeErrors) {
  LoaderOptions options;
  EXPECT_THROW(FindOption("batch_size")->Set(options, OptionScalar(2.0)), OptionTypeError);
  EXPECT_THROW(FindOption("batch_size")->Parse(options, "16x"), OptionTypeError);
  EXPECT_THROW(FindOption("shuffle")->Set(options, OptionScalar(int64_t{1})), OptionTypeError);
  EXPECT_THROW(FindOption("layout")->Set(options, OptionScalar(int64_t{1})), OptionTypeError);
  EXPECT_THROW(FindOption("mean")->Set(options, std::vector<OptionScalar>{1.0, 2.0}),
               OptionTypeError);
  EXPECT_THROW(FindOption("seed")->Set(options, OptionScalar(int64_t{-1})), ConfigError);
  EXPECT_EQ(
      MessageOf([&] { FindOption("batch_size")->Set(options, OptionScalar(int64_t{1} << 40)); }),
      "batch_size is out of range (got 1099511627776)");
}

// A float where an integer is needed is shown as the user gave it, 2.0,
// not as the integer it equals ("got 2" read as if 2 were refused).
TEST(OptionTableTest, AFloatForAnIntegerIsShownAsAFloat) {
  for (const OptionSpec* spec : LoaderOptionTable()) {
    if (spec->kind() != OptionKind::kInt) continue;
    LoaderOptions options;
    std::string message;
    try {
      spec->Set(options, OptionScalar(2.0));
    } catch (const OptionTypeError& e) {
      message = e.what();
    }
    EXPECT_EQ(message, std::string(spec->name()) + " must be an integer (got 2.0)");
  }
  LoaderOptions options;
  const auto message_of = [&](const OptionValue& value) {
    try {
      FindOption("size")->Set(options, value);
    } catch (const OptionTypeError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message_of(std::vector<OptionScalar>{int64_t{32}, 48.0}),
            "size must be an int or (height, width) (got (32, 48.0))");
  EXPECT_EQ(message_of(OptionScalar(1e20)), "size must be an int or (height, width) (got 1e+20)");
  EXPECT_EQ(message_of(OptionScalar(0.5)), "size must be an int or (height, width) (got 0.5)");
}

// Every message an option's own check gives starts with the option's name
// as the user gives it: no struct field (output_width, scale_factor) that
// no front end spells.
TEST(OptionTableTest, MessagesNameTheOptionAsTheUserGivesIt) {
  const std::pair<const char*, const char*> wrong[] = {{"size", "0"},
                                                       {"size", "48x0"},
                                                       {"scale_range", "0,1"},
                                                       {"scale_range", "2,1"},
                                                       {"contrast", "-1,1"},
                                                       {"brightness", "-1,2"},
                                                       {"saturation", "-1,1"},
                                                       {"hue", "0.3,0.1"},
                                                       {"fill_value", "0,300,0"},
                                                       {"mean", "1,2"},
                                                       {"rotation_fraction", "0.7"}};
  for (const auto& [name, text] : wrong) {
    LoaderOptions options;
    const std::string message = MessageOf([&] { FindOption(name)->Parse(options, text); });
    EXPECT_EQ(message.rfind(name, 0), 0u) << name << " " << text << ": " << message;
  }
}

TEST(OptionTableTest, AliasesAreAcceptedAndSpelledOneWay) {
  LoaderOptions options;
  FindOption("subset")->Parse(options, "val");
  EXPECT_EQ(options.subset, Subset::kValidation);
  EXPECT_EQ(FindOption("subset")->Text(options), "validation");
  EXPECT_EQ(ParseSubset("validation"), Subset::kValidation);
  EXPECT_EQ(SubsetName(Subset::kTrain), "train");
  EXPECT_EQ(ParsePinnedMode(PinnedModeName(PinnedMode::kMlock)), PinnedMode::kMlock);
  EXPECT_EQ(ParseElementType("float16"), ElementType::kFloat16);
  EXPECT_THROW(ParseLayout("NHWC"), ConfigError);
}

TEST(OptionTableTest, OptionsFromValuesAppliesTheRulesBetweenOptions) {
  using Values = std::vector<std::pair<std::string, OptionValue>>;
  const Values normalise = {{"mean", std::vector<OptionScalar>{0.5, 0.5, 0.5}},
                            {"std", std::vector<OptionScalar>{0.2, 0.2, 0.2}}};
  EXPECT_TRUE(OptionsFromValues(normalise).output.normalize);
  const Values half = {{"mean", std::vector<OptionScalar>{0.5, 0.5, 0.5}},
                       {"std", std::monostate{}}};
  EXPECT_NE(MessageOf([&] { OptionsFromValues(half); }).find("mean and std go together"),
            std::string::npos);
  const Values unknown = {{"batch", OptionScalar(int64_t{4})}};
  EXPECT_EQ(MessageOf([&] { OptionsFromValues(unknown); }), "unknown option 'batch'");
  const Values none = {{"batch_size", std::monostate{}}};
  EXPECT_THROW(OptionsFromValues(none), OptionTypeError);
  const Values off = {{"contrast", std::monostate{}}};
  EXPECT_FALSE(OptionsFromValues(off).augment.contrast_enabled);
  const Values default_shard = {{"rank", std::monostate{}}, {"world_size", std::monostate{}}};
  const LoaderOptions unsharded = OptionsFromValues(default_shard);
  EXPECT_EQ(unsharded.rank, 0);
  EXPECT_EQ(unsharded.world_size, 1);
  const Values shard = {{"rank", OptionScalar(int64_t{2})},
                        {"world_size", OptionScalar(int64_t{2})}};
  EXPECT_EQ(MessageOf([&] { OptionsFromValues(shard); }),
            "rank must be in [0, world_size) (got rank 2, world_size 2)");
}

TEST(OptionTableTest, ChoiceOptionsListTheirChoices) {
  std::vector<std::string> names;
  for (const OptionChoice& choice : FindOption("mask_dtype")->Choices()) {
    names.emplace_back(choice.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"uint8", "float32", "int32", "int64"}));
  EXPECT_TRUE(FindOption("batch_size")->Choices().empty());
}

// mask_ignore_value came after checkpoints did: at its default its line is
// left out, so the defaults keep the digest they had (checkpoints written
// before it resume), and any other value is a line of its own.
TEST(OptionTableTest, AnOptionAddedLaterKeepsTheDigestOfItsDefault) {
  LoaderOptions options;
  EXPECT_EQ(StreamOptionsText(options).find("mask_ignore_value"), std::string::npos);
  EXPECT_NE(StreamOptionsText(options).find("ignore_index=255\n"), std::string::npos);
  // The digests of before mask_ignore_value existed (commit 793eb14).
  EXPECT_EQ(StreamOptionsDigest(options), "ef332043b4c70e07");
  options.decode.mask_mode = MaskMode::kLabels;
  options.decode.num_classes = 21;
  options.output.mask_dtype = ElementType::kInt64;
  const std::string labels = StreamOptionsDigest(options);
  EXPECT_EQ(labels, "cdad6c304648e994");
  options.decode.mask_ignore_value = 254;
  EXPECT_NE(StreamOptionsText(options).find("mask_ignore_value=254\n"), std::string::npos);
  EXPECT_NE(StreamOptionsDigest(options), labels);
  options.decode.mask_ignore_value = 255;
  EXPECT_EQ(StreamOptionsDigest(options), labels);
}

TEST(OptionTableTest, DigestChangesWithStreamOptionsOnly) {
  LoaderOptions options;
  const std::string digest = StreamOptionsDigest(options);
  EXPECT_EQ(digest.size(), 16u);
  options.threads = 7;
  options.prefetch_batches = 5;
  options.pinned = PinnedMode::kOff;
  EXPECT_EQ(StreamOptionsDigest(options), digest);
  options.augment.hue_delta.max = 0.2000001;
  EXPECT_NE(StreamOptionsDigest(options), digest);
}

}  // namespace
}  // namespace segfeed
