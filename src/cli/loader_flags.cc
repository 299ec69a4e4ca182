#include "cli/loader_flags.h"

#include <utility>

#include "segfeed/errors.h"

namespace segfeed::tools {
namespace {

// The placeholder for an option's value in --help, by kind.
std::string ValueName(OptionKind kind) {
  switch (kind) {
    case OptionKind::kInt:
      return "N";
    case OptionKind::kNumber:
      return "X";
    case OptionKind::kBool:
      return "";
    case OptionKind::kChoice:
      return "NAME";
    case OptionKind::kRange:
      return "MIN,MAX";
    case OptionKind::kTriple:
      return "R,G,B";
    case OptionKind::kSize:
      return "N|WxH";
    case OptionKind::kIdMap:
      return "ID:ID,...";
    case OptionKind::kColorMap:
      return "#RRGGBB:ID,...";
  }
  return "VALUE";
}

// CLI11's spelling of the entry's flags: "--batch,--batch-size", and for a
// bool "--shuffle,!--no-shuffle" (the '!' makes --no-shuffle give false).
std::string FlagNames(const OptionSpec& spec) {
  std::vector<std::string> spellings = {std::string(spec.flag())};
  std::string dashed(spec.name());
  for (char& c : dashed) c = c == '_' ? '-' : c;
  if (dashed != spec.flag()) spellings.push_back(dashed);
  std::string names;
  for (const std::string& spelling : spellings) names += (names.empty() ? "--" : ",--") + spelling;
  if (spec.kind() == OptionKind::kBool) {
    for (const std::string& spelling : spellings) names += ",!--no-" + spelling;
  }
  return names;
}

// doc; what it accepts (default TEXT).
std::string Description(const OptionSpec& spec) {
  return std::string(spec.doc()) + "; " + spec.Accepts() + " (default " +
         spec.Text(LoaderOptions{}) + ")";
}

// The field a validation message is about: its first word ("rank must be
// ..." -> "rank").
std::string_view SubjectOf(std::string_view message) {
  return message.substr(0, message.find_first_of(" .["));
}

}  // namespace

void ParseGivenFlags(std::span<const TableFlag> flags, LoaderOptions& options,
                     const std::function<std::string(const OptionSpec&)>& flag_of) {
  for (const TableFlag& flag : flags) {
    const std::optional<std::string> text = CommandLine::LastValue(flag.option);
    if (!text) continue;
    try {
      flag.spec->Parse(options, *text);
    } catch (const ConfigError& e) {
      throw UsageError(flag_of(*flag.spec) + ": " + e.what());
    }
  }
}

DatasetFlags::DatasetFlags(CommandLine& cli) {
  const std::pair<const char*, std::optional<std::string>*> folders[] = {
      {"--data", &data_}, {"--images", &images_}, {"--masks", &masks_}};
  const char* const descriptions[] = {
      "Carvana layout: DIR/train/<stem>.jpg, DIR/train_masks/<stem>_mask.gif",
      "other folders: the images (with --masks)",
      "the masks, named <stem>_mask.gif (with --images)"};
  for (size_t i = 0; i < std::size(folders); ++i) {
    CLI::Option* option = cli.AddOption(folders[i].first, descriptions[i], "dataset");
    option->type_name("DIR");
    std::optional<std::string>* target = folders[i].second;
    cli.AfterMatching([option, target] { *target = CommandLine::LastValue(option); });
  }
}

DatasetSpec DatasetFlags::Spec() const {
  if (data_) {
    if (images_ || masks_) throw UsageError("--data cannot be combined with --images/--masks");
    return DatasetSpec::Carvana(*data_);
  }
  if (images_.has_value() != masks_.has_value())
    throw UsageError(images_ ? "--images needs --masks" : "--masks needs --images");
  if (!images_) throw UsageError("no dataset: give --data DIR or --images DIR --masks DIR");
  DatasetSpec spec;
  spec.image_dir = *images_;
  spec.mask_dir = *masks_;
  return spec;
}

std::vector<std::pair<std::string, std::string>> DatasetFlags::Folders() const {
  std::vector<std::pair<std::string, std::string>> folders;
  if (data_) folders.emplace_back("--data", *data_);
  if (images_) folders.emplace_back("--images", *images_);
  if (masks_) folders.emplace_back("--masks", *masks_);
  return folders;
}

LoaderFlags::LoaderFlags(CommandLine& cli) {
  const std::string augment(OptionGroupName(OptionGroup::kAugment));
  const std::string loader(OptionGroupName(OptionGroup::kLoader));
  for (const OptionSpec* spec : LoaderOptionTable()) {
    const std::string group(OptionGroupName(spec->group()));
    // A bool is a flag: no value, but --flag=VALUE still reaches Parse().
    CLI::Option* option = spec->kind() == OptionKind::kBool
                              ? cli.AddSwitch(FlagNames(*spec), Description(*spec), group)
                              : cli.AddOption(FlagNames(*spec), Description(*spec), group);
    option->type_name(ValueName(spec->kind()));
    flags_.push_back({spec, option});
  }
  shard_ = cli.AddOption("--shard",
                         "stream shard r of N, setting rank and world_size (DistributedSampler "
                         "semantics); auto: from RANK and WORLD_SIZE in the environment",
                         loader);
  shard_->type_name("r/N|auto");
  for (const TableFlag& flag : flags_) {
    if (flag.spec->name() == "rank" || flag.spec->name() == "world_size")
      shard_->excludes(flag.option);
  }
  CLI::Option* no_augment = cli.AddSwitch(
      "--no-augment",
      "no flips, rotation or colour changes (resize only); flags given with it apply", augment);
  CLI::Option* no_color = cli.AddSwitch(
      "--no-color",
      "geometry only: flips and rotation, no colour changes; flags given with it apply", augment);
  cli.AfterMatching([this, no_augment, no_color] {
    no_augment_ = no_augment->count() > 0;
    no_color_ = no_color->count() > 0;
  });
}

std::string LoaderFlags::FlagOf(const OptionSpec& spec) const {
  if (shard_->count() > 0 && (spec.name() == "rank" || spec.name() == "world_size"))
    return "--shard";
  return "--" + std::string(spec.flag());
}

bool LoaderFlags::Given(std::string_view name) const {
  for (const TableFlag& flag : flags_) {
    if (flag.spec->name() == name) return flag.option->count() > 0;
  }
  return false;
}

LoaderOptions LoaderFlags::Options() const {
  LoaderOptions options;
  AugmentOptions& augment = options.augment;
  if (no_augment_ || no_color_) {
    augment.contrast_enabled = augment.brightness_enabled = false;
    augment.saturation_enabled = augment.hue_enabled = false;
  }
  if (no_augment_) {
    augment.flip_lr_probability = augment.flip_ud_probability = 0.0;
    augment.rotation_fraction = 0.0;
  }
  ParseGivenFlags(flags_, options, [this](const OptionSpec& spec) { return FlagOf(spec); });
  if (const std::optional<std::string> shard = CommandLine::LastValue(shard_)) {
    if (*shard == "auto") {
      options.shard_from_environment = true;
    } else {
      const size_t slash = shard->find('/');
      if (slash == std::string::npos)
        throw UsageError("--shard: must be r/N or auto (got '" + *shard + "')");
      try {
        FindOption("rank")->Parse(options, shard->substr(0, slash));
        FindOption("world_size")->Parse(options, shard->substr(slash + 1));
      } catch (const ConfigError& e) {
        throw UsageError(std::string("--shard: ") + e.what());
      }
    }
  }
  // As for Python's keywords: mean and std go together, and giving them
  // switches normalisation on. The library states the rule and its message.
  const bool mean = Given("mean"), std_dev = Given("std");
  if (mean != std_dev) {
    const char* given = mean ? "mean" : "std";
    try {
      OptionsFromValues(std::vector<std::pair<std::string, OptionValue>>{
          {given, FindOption(given)->Get(options)}});
    } catch (const ConfigError& e) {
      throw UsageError("--" + std::string(FindOption(given)->flag()) + ": " + e.what());
    }
  }
  if (mean && std_dev) options.output.normalize = true;
  // As OptionsFromValues: label maps come as int64 unless --mask-dtype says.
  if (options.decode.mask_mode == MaskMode::kLabels && !Given("mask_dtype"))
    options.output.mask_dtype = ElementType::kInt64;
  Check(options);
  return options;
}

void LoaderFlags::Check(const LoaderOptions& options) const {
  // Each option on its own first, so a message leads with its own flag.
  for (const TableFlag& flag : flags_) {
    try {
      flag.spec->Check(options);
    } catch (const ConfigError& e) {
      throw UsageError(FlagOf(*flag.spec) + ": " + e.what());
    }
  }
  // Then the rules that tie options together, led by the option named first.
  try {
    ValidateLoaderOptions(options);
  } catch (const ConfigError& e) {
    if (const OptionSpec* spec = FindOption(SubjectOf(e.what())))
      throw UsageError(FlagOf(*spec) + ": " + e.what());
    throw UsageError(e.what());
  }
}

MaskFlags::MaskFlags(CommandLine& cli) {
  for (const char* name : {"mask_mode", "num_classes", "ignore_index", "label_map", "mask_colors",
                           "mask_foreground", "mask_threshold"}) {
    const OptionSpec* spec = FindOption(name);
    CLI::Option* option = cli.AddOption(FlagNames(*spec), Description(*spec),
                                        std::string(OptionGroupName(spec->group())));
    option->type_name(ValueName(spec->kind()));
    flags_.push_back({spec, option});
  }
}

DecodeOptions MaskFlags::Apply(const DecodeOptions& decode) const {
  LoaderOptions options;
  options.decode = decode;
  ParseGivenFlags(flags_, options,
                  [](const OptionSpec& spec) { return "--" + std::string(spec.flag()); });
  try {
    ValidateDecodeOptions(options.decode);
  } catch (const ConfigError& e) {
    if (const OptionSpec* spec = FindOption(SubjectOf(e.what())))
      throw UsageError("--" + std::string(spec->flag()) + ": " + e.what());
    throw UsageError(e.what());
  }
  return options.decode;
}

}  // namespace segfeed::tools
