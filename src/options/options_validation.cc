// Validate*Options: the option table's checks on a struct filled in C++,
// plus the rules that tie two options together. Every message names the
// field and the value it got, the same message a front end gets for it.

#include <string>

#include "options/enum_names.h"
#include "options/label_options.h"
#include "options/option_values.h"
#include "segfeed/errors.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed {
namespace {

// Every option's own check. Only the part of `options` under test differs
// from the defaults, which are valid, so only its fields can fail.
void CheckEveryOption(const LoaderOptions& options) {
  for (const OptionSpec* option : LoaderOptionTable()) option->Check(options);
}

void CheckNormalization(const OutputOptions& output) {
  if (output.normalize && output.image_dtype == ElementType::kUint8) {
    throw ConfigError(
        "normalize must be false for image_dtype uint8 (mean/std need a float type) (got true)");
  }
}

// Reflect mirrors the photo only past an edge the window reaches without
// padding past it (padding is always fill_value). Stretched or fitted and
// then only shrunk, the photo is smaller than the window on both axes for
// every sample: the window pads past every edge, and there is nothing left
// to mirror.
void CheckFillMode(const AugmentOptions& augment) {
  if (augment.fill_mode != FillMode::kReflect) return;
  const bool fitted =
      augment.resize == ResizeMode::kStretch || augment.resize == ResizeMode::kKeepRatio;
  if (fitted && augment.scale_enabled && augment.scale_factor.max < 1.0) {
    throw ConfigError(
        "fill_mode must be constant with resize " +
        std::string(
            options::ChoiceName(options::kResizeModeChoices, static_cast<int>(augment.resize))) +
        " and scale_range below 1 (got reflect, scale_range max " +
        options::NumberText(augment.scale_factor.max) +
        "): the window pads past every edge of the photo, and padding is fill_value, so "
        "nothing is left to mirror");
  }
}

}  // namespace

void ValidateAugmentOptions(const AugmentOptions& augment) {
  LoaderOptions options;
  options.augment = augment;
  CheckEveryOption(options);
  CheckFillMode(augment);
}

void ValidateOutputOptions(const OutputOptions& output) {
  LoaderOptions options;
  options.output = output;
  // The dtypes first: the normalisation rule below reads them.
  for (const char* name : {"image_dtype", "layout", "mask_dtype"}) FindOption(name)->Check(options);
  CheckNormalization(output);
  CheckEveryOption(options);
}

void ValidateDecodeOptions(const DecodeOptions& decode) {
  LoaderOptions options;
  options.decode = decode;
  CheckEveryOption(options);
  options::CheckLabelOptions(decode);
}

void ValidateLoaderOptions(const LoaderOptions& options) {
  ValidateOutputOptions(options.output);
  CheckEveryOption(options);
  CheckFillMode(options.augment);
  options::CheckLabelOptions(options.decode);
  options::CheckWindowOptions(options.decode, options.augment);
  options::CheckMaskDtypeForMode(options.decode, options.output);
  // An error rather than implying shards: a window with the other orders
  // would be silently ignored (none) or change the order unasked (global).
  if (options.shard_window > 0 && options.shuffle != Shuffle::kShards) {
    throw ConfigError("shard_window must be 0 unless shuffle='shards' (got " +
                      std::to_string(options.shard_window) + " with shuffle='" +
                      std::string(ShuffleName(options.shuffle)) +
                      "'): only the shard-block order reads shards a window at a time");
  }
  if (options.rank >= options.world_size) {
    throw ConfigError("rank must be in [0, world_size) (got rank " + std::to_string(options.rank) +
                      ", world_size " + std::to_string(options.world_size) + ")");
  }
}

}  // namespace segfeed
