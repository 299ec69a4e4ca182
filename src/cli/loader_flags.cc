#include "cli/loader_flags.h"

#include <charconv>

#include "segfeed/errors.h"

namespace segfeed::tools {

const std::vector<std::string> kDatasetValueOptions = {"--data", "--images", "--masks"};
const std::vector<std::string> kLoaderValueOptions = {
    "--batch", "--size",  "--dtype",    "--mask-dtype", "--layout", "--threads",      "--prefetch",
    "--seed",  "--shard", "--on-error", "--pinned",     "--subset", "--val-fraction", "--headroom"};
const std::vector<std::string> kLoaderFlags = {"--no-augment", "--no-color", "--no-shuffle",
                                               "--drop-last", "--normalize"};

const char* const kDatasetHelp = R"(dataset:
  --data DIR            Carvana layout: DIR/train/<stem>.jpg, DIR/train_masks/<stem>_mask.gif
  --images DIR --masks DIR
                        other folders (masks named <stem>_mask.gif)
)";

const char* const kLoaderHelp = R"(loader:
  --batch N             samples per batch (16)
  --size N | WxH        output size in pixels (512)
  --dtype T             image dtype: uint8, float16, float32 (float32)
  --mask-dtype T        mask dtype: uint8, float32 (float32)
  --layout L            nhwc or nchw (nhwc)
  --normalize           ImageNet mean/std normalisation (float dtypes)
  --threads N           decode threads, 0 = one per core (0)
  --prefetch N          batch buffers in the pool (2)
  --seed S              random seed (0)
  --no-shuffle          keep listing order
  --drop-last           drop a short last batch
  --shard r/N           stream shard r of N (DistributedSampler semantics); 'auto' reads RANK, WORLD_SIZE
  --subset S            all, train or val (all)
  --val-fraction F      fraction of pairs in the val subset (0.1)
  --headroom F          decode budget per thread, as a multiple of what the
                        planned photo needs; larger pairs are too_large (4)
  --on-error P          fail: stop at a bad file, or at start on images
                        without a mask; skip: replace bad pairs, list
                        them and the unpaired files (fail)
  --pinned M            auto, cuda, mlock or off (auto)
  --no-augment          no flips, rotation or colour jitter (resize only)
  --no-color            geometry only: flips and rotation, no colour jitter
)";

namespace {

int ParseInt(const std::string& flag, const std::string& text) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError(flag + " must be an integer (got '" + text + "')");
  }
  return value;
}

double ParseNumber(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw UsageError(flag + " must be a number (got '" + text + "')");
  }
  return value;
}

template <typename Enum>
Enum ParseChoice(const std::string& flag, const std::string& text,
                 std::initializer_list<std::pair<const char*, Enum>> choices) {
  std::string names;
  for (const auto& [name, value] : choices) {
    if (text == name) return value;
    names += names.empty() ? name : std::string(", ") + name;
  }
  throw UsageError(flag + " must be one of " + names + " (got '" + text + "')");
}

// The flag that sets each LoaderOptions field a validation message can name.
constexpr std::pair<const char*, const char*> kFlagOfField[] = {
    {"batch_size", "--batch"},          {"prefetch_batches", "--prefetch"},
    {"threads", "--threads"},           {"validation_fraction", "--val-fraction"},
    {"world_size", "--shard"},          {"rank", "--shard"},
    {"scratch_headroom", "--headroom"}, {"output_width", "--size"},
    {"output_height", "--size"},        {"normalize", "--normalize"}};

}  // namespace

CliArgs ParseLoaderCommand(std::span<const std::string> args,
                           std::initializer_list<const char*> own_value_options,
                           std::initializer_list<const char*> own_flags) {
  std::vector<std::string> value_options = kDatasetValueOptions;
  value_options.insert(value_options.end(), kLoaderValueOptions.begin(), kLoaderValueOptions.end());
  value_options.insert(value_options.end(), own_value_options.begin(), own_value_options.end());
  std::vector<std::string> flags = kLoaderFlags;
  flags.insert(flags.end(), own_flags.begin(), own_flags.end());
  flags.push_back("--help");
  CliArgs cli(args, value_options, flags);
  if (!cli.Has("--help") && !cli.positionals().empty()) {
    throw UsageError("unexpected argument '" + cli.positionals()[0] + "'");
  }
  return cli;
}

bool HasDataset(const CliArgs& cli) {
  return cli.Has("--data") || cli.Has("--images") || cli.Has("--masks");
}

DatasetSpec DatasetFromArgs(const CliArgs& cli) {
  if (cli.Has("--data")) {
    if (cli.Has("--images") || cli.Has("--masks")) {
      throw UsageError("--data cannot be combined with --images/--masks");
    }
    return DatasetSpec::Carvana(*cli.Get("--data"));
  }
  if (cli.Has("--images") != cli.Has("--masks")) {
    throw UsageError(cli.Has("--images") ? "--images needs --masks" : "--masks needs --images");
  }
  if (!cli.Has("--images"))
    throw UsageError("no dataset: give --data DIR or --images DIR --masks DIR");
  DatasetSpec spec;
  spec.image_dir = *cli.Get("--images");
  spec.mask_dir = *cli.Get("--masks");
  return spec;
}

LoaderOptions LoaderOptionsFromArgs(const CliArgs& cli) {
  LoaderOptions options;
  if (auto v = cli.Get("--batch")) options.batch_size = ParseInt("--batch", *v);
  if (auto v = cli.Get("--size")) {
    const size_t x = v->find('x');
    if (x == std::string::npos) {
      options.augment.output_width = options.augment.output_height = ParseInt("--size", *v);
    } else {
      options.augment.output_width = ParseInt("--size", v->substr(0, x));
      options.augment.output_height = ParseInt("--size", v->substr(x + 1));
    }
  }
  if (auto v = cli.Get("--dtype")) {
    options.output.image_dtype = ParseChoice<ElementType>("--dtype", *v,
                                                          {{"uint8", ElementType::kUint8},
                                                           {"float16", ElementType::kFloat16},
                                                           {"float32", ElementType::kFloat32}});
  }
  if (auto v = cli.Get("--mask-dtype")) {
    options.output.mask_dtype = ParseChoice<ElementType>(
        "--mask-dtype", *v, {{"uint8", ElementType::kUint8}, {"float32", ElementType::kFloat32}});
  }
  if (auto v = cli.Get("--layout")) {
    options.output.layout =
        ParseChoice<Layout>("--layout", *v, {{"nhwc", Layout::kNHWC}, {"nchw", Layout::kNCHW}});
  }
  options.output.normalize = cli.Has("--normalize");
  if (auto v = cli.Get("--threads")) options.threads = ParseInt("--threads", *v);
  if (auto v = cli.Get("--prefetch")) options.prefetch_batches = ParseInt("--prefetch", *v);
  if (auto v = cli.Get("--seed")) {
    uint64_t seed = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), seed);
    if (ec != std::errc() || ptr != v->data() + v->size()) {
      throw UsageError("--seed must be a non-negative integer (got '" + *v + "')");
    }
    options.seed = seed;
  }
  options.shuffle = !cli.Has("--no-shuffle");
  options.drop_last = cli.Has("--drop-last");
  if (auto v = cli.Get("--shard")) {
    if (*v == "auto") {
      options.shard_from_environment = true;
    } else {
      const size_t slash = v->find('/');
      if (slash == std::string::npos)
        throw UsageError("--shard must be r/N or auto (got '" + *v + "')");
      options.rank = ParseInt("--shard", v->substr(0, slash));
      options.world_size = ParseInt("--shard", v->substr(slash + 1));
    }
  }
  if (auto v = cli.Get("--subset")) {
    options.subset = ParseChoice<Subset>(
        "--subset", *v,
        {{"all", Subset::kAll}, {"train", Subset::kTrain}, {"val", Subset::kValidation}});
  }
  if (auto v = cli.Get("--val-fraction"))
    options.validation_fraction = ParseNumber("--val-fraction", *v);
  if (auto v = cli.Get("--headroom"))
    options.decode.scratch_headroom = ParseNumber("--headroom", *v);
  if (auto v = cli.Get("--on-error")) {
    options.on_bad_file = ParseChoice<OnBadFile>(
        "--on-error", *v, {{"fail", OnBadFile::kFail}, {"skip", OnBadFile::kSkip}});
  }
  if (auto v = cli.Get("--pinned")) {
    options.pinned = ParseChoice<PinnedMode>("--pinned", *v,
                                             {{"auto", PinnedMode::kAuto},
                                              {"cuda", PinnedMode::kCuda},
                                              {"mlock", PinnedMode::kMlock},
                                              {"off", PinnedMode::kOff}});
  }
  AugmentOptions& augment = options.augment;
  if (cli.Has("--no-augment") || cli.Has("--no-color")) {
    augment.contrast_enabled = augment.brightness_enabled = false;
    augment.saturation_enabled = augment.hue_enabled = false;
  }
  if (cli.Has("--no-augment")) {
    augment.flip_lr_probability = augment.flip_ud_probability = 0.0;
    augment.rotation_fraction = 0.0;
  }
  return options;
}

void CheckLoaderOptions(const LoaderOptions& options) {
  try {
    ValidateLoaderOptions(options);
  } catch (const ConfigError& e) {
    // Validation messages start with the field's name; lead with the flag.
    const std::string message = e.what();
    for (const auto& [field, flag] : kFlagOfField) {
      if (message.rfind(std::string(field) + " ", 0) == 0)
        throw UsageError(std::string(flag) + ": " + message);
    }
    throw UsageError(message);
  }
}

}  // namespace segfeed::tools
