#include "cli/loader_flags.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "segfeed/errors.h"

namespace segfeed::cli {
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
    case OptionKind::kColor:
      return "V|R,G,B";
    case OptionKind::kSize:
      return "N|WxH";
    case OptionKind::kIdMap:
      return "ID:ID,...";
    case OptionKind::kColorMap:
      return "#RRGGBB:ID,...|FILE";
    case OptionKind::kNames:
      return "NAME,...|FILE";
    case OptionKind::kPath:
      return "DIR";
    case OptionKind::kBytes:
      return "BYTES";
  }
  return "VALUE";
}

// CLI11's spelling of the entry's flags: "--batch,--batch-size", and for a
// bool "--drop-last,!--no-drop-last" (the '!' makes --no-drop-last give false).
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

// A preset's class names name the preset's classes: with a num_classes of
// the user's own (Cityscapes' 34 label ids as they are) and no class_names,
// names of another count are left out rather than refused.
void ForgetPresetNamesOfOtherClasses(bool own_num_classes, DecodeOptions& decode) {
  if (own_num_classes && decode.class_names.size() != static_cast<size_t>(decode.num_classes))
    decode.class_names.clear();
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The option a validation message is about: its first word ("rank must be
// ..." -> rank, "scale_range's min ..." -> scale_range), or nullptr.
const OptionSpec* SubjectOf(std::string_view message) {
  size_t end = 0;
  while (end < message.size() && IsWordChar(message[end])) ++end;
  return FindOption(message.substr(0, end));
}

// A library message in the command line's words: each option keyword
// becomes its flag ("scale_range's min" -> "--scale's min",
// "mask_mode='binary'" -> "--mask-mode binary"). A keyword is taken as one
// where it cannot be an ordinary word: with an underscore, leading the
// message, or followed by '=', '[' or "'s".
std::string InOptionFlags(const std::string& message,
                          const std::function<std::string(const OptionSpec&)>& flag_of) {
  std::string out;
  for (size_t i = 0; i < message.size();) {
    if (!IsWordChar(message[i]) || (i > 0 && IsWordChar(message[i - 1]))) {
      out += message[i++];
      continue;
    }
    size_t end = i;
    while (end < message.size() && IsWordChar(message[end])) ++end;
    const std::string word = message.substr(i, end - i);
    const std::string_view rest = std::string_view(message).substr(end);
    const OptionSpec* spec = FindOption(word);
    const bool keyword =
        spec && (i == 0 || word.find('_') != std::string::npos || rest.starts_with("=") ||
                 rest.starts_with("[") || rest.starts_with("'s "));
    // --shard sets rank and world_size, and its help calls them so.
    if (!keyword || (i > 0 && message[i - 1] == '-') || flag_of(*spec) == "--shard") {
      out += word;
      i = end;
      continue;
    }
    out += flag_of(*spec);
    i = end;
    // name='value' is how Python spells it; the command line's is --flag value.
    if (rest.starts_with("='")) {
      const size_t close = rest.find('\'', 2);
      if (close != std::string_view::npos) {
        out += " ";
        out += rest.substr(2, close - 2);
        i = end + close + 1;
      }
    }
  }
  return out;
}

}  // namespace

std::string FlagMessage(const std::string& flag, const std::string& message,
                        const std::function<std::string(const OptionSpec&)>& flag_of) {
  const std::string translated = InOptionFlags(message, flag_of);
  // "--scale's min must be ..." names its flag already.
  const bool leads = translated.starts_with(flag) &&
                     (translated.size() == flag.size() ||
                      (!IsWordChar(translated[flag.size()]) && translated[flag.size()] != '-'));
  if (leads) return translated;
  return flag + ": " + translated;
}

namespace {

// A message of a rule between options, led by the flag of the option it
// names first. When that option's value is a preset's (the user did not
// give its flag), it says so rather than blame a flag the user never gave.
std::string RuleMessage(const std::string& message, const DatasetSpec& dataset,
                        const std::function<std::string(const OptionSpec&)>& flag_of,
                        const std::function<bool(const OptionSpec&)>& given) {
  const OptionSpec* subject = SubjectOf(message);
  if (!subject) return InOptionFlags(message, flag_of);
  const bool from_preset =
      !given(*subject) &&
      std::any_of(dataset.options.begin(), dataset.options.end(),
                  [&](const auto& entry) { return entry.first == subject->name(); });
  if (from_preset) return "the " + dataset.name + " preset's " + InOptionFlags(message, flag_of);
  return FlagMessage(flag_of(*subject), message, flag_of);
}

}  // namespace

TableFlag AddTableFlag(CommandLine& cli, const OptionSpec& spec) {
  const std::string group(OptionGroupName(spec.group()));
  // A bool is a flag: no value, but --flag=VALUE still reaches Parse().
  CLI::Option* option = spec.kind() == OptionKind::kBool
                            ? cli.AddSwitch(FlagNames(spec), Description(spec), group)
                            : cli.AddOption(FlagNames(spec), Description(spec), group);
  option->type_name(ValueName(spec.kind()));
  return {&spec, option};
}

void ParseGivenFlags(std::span<const TableFlag> flags, LoaderOptions& options,
                     const std::function<std::string(const OptionSpec&)>& flag_of) {
  for (const TableFlag& flag : flags) {
    const std::optional<std::string> text = CommandLine::LastValue(flag.option);
    if (!text) continue;
    try {
      flag.spec->Parse(options, *text);
    } catch (const ConfigError& e) {
      throw UsageError(FlagMessage(flag_of(*flag.spec), e.what(), flag_of));
    }
  }
}

DatasetFlags::DatasetFlags(CommandLine& cli) {
  CLI::Option* data = cli.AddOption(
      "--data",
      "the dataset's root: Carvana's layout (ROOT/train/<key>.jpg, "
      "ROOT/train_masks/<key>_mask.gif) or the --dataset preset's; the folder --images and "
      "--masks are under",
      "dataset");
  data->type_name("ROOT");
  cli.AfterMatching([this, data] { data_ = CommandLine::LastValue(data); });
  for (const DatasetOption& entry : DatasetOptionTable()) {
    const std::string flag = "--" + std::string(entry.flag);
    CLI::Option* option = entry.value_name.empty()
                              ? cli.AddSwitch(flag, std::string(entry.doc), "dataset")
                              : cli.AddOption(flag, std::string(entry.doc), "dataset");
    if (!entry.value_name.empty()) option->type_name(std::string(entry.value_name));
    const std::string name(entry.name);
    cli.AfterMatching([this, option, name, is_switch = entry.value_name.empty()] {
      if (is_switch) {
        if (option->count() > 0) values_.emplace_back(name, "true");
      } else if (std::optional<std::string> text = CommandLine::LastValue(option)) {
        values_.emplace_back(name, *text);
      }
    });
  }
}

namespace {

// A DatasetFromValues() message in the CLI's words: each keyword becomes
// its flag ("images needs masks" -> "--images needs --masks").
std::string InFlags(std::string message) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (size_t i = 0; i < message.size();) {
    if (!is_word(message[i])) {
      out += message[i++];
      continue;
    }
    size_t end = i;
    while (end < message.size() && is_word(message[end])) ++end;
    std::string word = message.substr(i, end - i);
    if (word == "data") word = "--data";
    for (const DatasetOption& entry : DatasetOptionTable()) {
      if (word == entry.name) word = "--" + std::string(entry.flag);
    }
    out += word;
    i = end;
  }
  return out;
}

}  // namespace

const DatasetSpec& DatasetFlags::Spec() const {
  if (spec_) return *spec_;
  try {
    return spec_.emplace(DatasetFromValues(data_.value_or(""), values_));
  } catch (const ConfigError& e) {
    throw UsageError(InFlags(e.what()));
  }
}

std::vector<std::pair<std::string, std::string>> DatasetFlags::Folders() const {
  std::vector<std::pair<std::string, std::string>> folders;
  if (data_) folders.emplace_back("--data", *data_);
  for (const auto& [name, text] : values_) {
    if (name == "images" || name == "masks" || name == "root") {
      for (const DatasetOption& entry : DatasetOptionTable()) {
        // As DatasetFromValues() reads them: under --data unless absolute.
        const std::filesystem::path path = name == "root"
                                               ? std::filesystem::path(text)
                                               : std::filesystem::path(data_.value_or("")) / text;
        if (entry.name == name) folders.emplace_back("--" + std::string(entry.flag), path.string());
      }
    }
  }
  return folders;
}

LoaderFlags::LoaderFlags(CommandLine& cli) {
  const std::string augment(OptionGroupName(OptionGroup::kAugment));
  const std::string loader(OptionGroupName(OptionGroup::kLoader));
  for (const OptionSpec* spec : LoaderOptionTable()) {
    flags_.push_back(AddTableFlag(cli, *spec));
    CLI::Option* option = flags_.back().option;
    // Shuffle was a switch before it was a choice: --shuffle alone still
    // means global, and --no-shuffle (below) none.
    if (spec->name() == "shuffle") {
      option->expected(0, 1)->default_str(spec->Text(LoaderOptions{}));
      no_shuffle_ = cli.AddSwitch("--no-shuffle", "the listing order: --shuffle none", loader);
      no_shuffle_->excludes(option);
    }
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

LoaderOptions LoaderFlags::Options(const DatasetSpec& dataset) const {
  LoaderOptions options;
  ApplyDatasetOptions(dataset, options);
  AugmentOptions& augment = options.augment;
  if (no_augment_ || no_color_) {
    augment.contrast_enabled = augment.brightness_enabled = false;
    augment.saturation_enabled = augment.hue_enabled = false;
  }
  if (no_augment_) {
    augment.flip_lr_probability = augment.flip_ud_probability = 0.0;
    augment.rotation_fraction = 0.0;
    // Deterministic geometry: no random scale, the window centred.
    augment.scale_enabled = false;
    augment.crop = CropPlacement::kCenter;
  }
  const auto flag_of = [this](const OptionSpec& spec) { return FlagOf(spec); };
  ParseGivenFlags(flags_, options, flag_of);
  if (no_shuffle_->count() > 0) options.shuffle = Shuffle::kNone;
  ForgetPresetNamesOfOtherClasses(Given("num_classes") && !Given("class_names"), options.decode);
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
        throw UsageError(FlagMessage("--shard", e.what(), flag_of));
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
      throw UsageError(FlagMessage(FlagOf(*FindOption(given)), e.what(), flag_of));
    }
  }
  if (mean && std_dev) options.output.normalize = true;
  // As OptionsFromValues: label maps come as int64 unless --mask-dtype says.
  if (options.decode.mask_mode == MaskMode::kLabels && !Given("mask_dtype"))
    options.output.mask_dtype = ElementType::kInt64;
  Check(options, dataset);
  return options;
}

void LoaderFlags::Check(const LoaderOptions& options, const DatasetSpec& dataset) const {
  const auto flag_of = [this](const OptionSpec& spec) { return FlagOf(spec); };
  // Each option on its own first, so a message leads with its own flag.
  for (const TableFlag& flag : flags_) {
    try {
      flag.spec->Check(options);
    } catch (const ConfigError& e) {
      throw UsageError(FlagMessage(FlagOf(*flag.spec), e.what(), flag_of));
    }
  }
  // Then the rules that tie options together, led by the option named first.
  try {
    ValidateLoaderOptions(options);
  } catch (const ConfigError& e) {
    throw UsageError(RuleMessage(e.what(), dataset, flag_of,
                                 [this](const OptionSpec& spec) { return Given(spec.name()); }));
  }
}

MaskFlags::MaskFlags(CommandLine& cli) {
  for (const char* name :
       {"mask_mode", "num_classes", "mask_ignore_value", "ignore_index", "label_map", "mask_colors",
        "class_names", "mask_foreground", "mask_threshold"}) {
    flags_.push_back(AddTableFlag(cli, *FindOption(name)));
  }
}

DecodeOptions MaskFlags::Apply(const DecodeOptions& decode, const DatasetSpec& dataset) const {
  LoaderOptions options;
  options.decode = decode;
  ApplyDatasetOptions(dataset, options);
  const auto flag_of = [](const OptionSpec& spec) { return "--" + std::string(spec.flag()); };
  ParseGivenFlags(flags_, options, flag_of);
  const auto given = [this](std::string_view name) {
    for (const TableFlag& flag : flags_) {
      if (flag.spec->name() == name) return flag.option->count() > 0;
    }
    return false;
  };
  ForgetPresetNamesOfOtherClasses(given("num_classes") && !given("class_names"), options.decode);
  try {
    ValidateDecodeOptions(options.decode);
  } catch (const ConfigError& e) {
    throw UsageError(RuleMessage(e.what(), dataset, flag_of, [this](const OptionSpec& spec) {
      for (const TableFlag& flag : flags_) {
        if (flag.spec == &spec) return flag.option->count() > 0;
      }
      return false;
    }));
  }
  return options.decode;
}

}  // namespace segfeed::cli
