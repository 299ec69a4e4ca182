// Validate*Options: the option table's checks on a struct filled in C++,
// plus the rules that tie two options together. Every message names the
// field and the value it got, the same message a front end gets for it.

#include <string>

#include "options/label_options.h"
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

}  // namespace

void ValidateAugmentOptions(const AugmentOptions& augment) {
  LoaderOptions options;
  options.augment = augment;
  CheckEveryOption(options);
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
  internal::CheckLabelOptions(decode);
}

void ValidateLoaderOptions(const LoaderOptions& options) {
  ValidateOutputOptions(options.output);
  CheckEveryOption(options);
  internal::CheckLabelOptions(options.decode);
  internal::CheckWindowOptions(options.decode, options.augment);
  internal::CheckMaskDtypeForMode(options.decode, options.output);
  if (options.rank >= options.world_size) {
    throw ConfigError("rank must be in [0, world_size) (got rank " + std::to_string(options.rank) +
                      ", world_size " + std::to_string(options.world_size) + ")");
  }
}

}  // namespace segfeed
