#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::tools {

// The command-line flags that mirror DatasetSpec and LoaderOptions, shared
// by bench, preview and plan, so each spells an option the same way.

// --data DIR (Carvana layout) or --images DIR --masks DIR.
extern const std::vector<std::string> kDatasetValueOptions;
// --batch --size --dtype --mask-dtype --layout --threads --prefetch --seed
// --shard --on-error --pinned --subset --val-fraction
extern const std::vector<std::string> kLoaderValueOptions;
// --no-augment --no-color --no-shuffle --drop-last --normalize
extern const std::vector<std::string> kLoaderFlags;

// Help text for the flags above, one line each.
extern const char* const kDatasetHelp;
extern const char* const kLoaderHelp;

// Parses the arguments of a subcommand that takes the dataset and loader
// flags above plus its own (`--help` included), and no positionals.
CliArgs ParseLoaderCommand(std::span<const std::string> args,
                           std::initializer_list<const char*> own_value_options,
                           std::initializer_list<const char*> own_flags);

// True when the command line names a dataset.
bool HasDataset(const CliArgs& cli);
// The dataset the flags name; UsageError when they are contradictory.
DatasetSpec DatasetFromArgs(const CliArgs& cli);
// Loader options from the flags, on top of the library defaults; throws
// UsageError naming the flag for a value it cannot parse. (The Loader
// validates ranges itself.)
LoaderOptions LoaderOptionsFromArgs(const CliArgs& cli);
// Validates `options` as the Loader would (ValidateLoaderOptions) and turns
// a ConfigError into a UsageError that leads with the flag that sets the
// field: "--batch: batch_size must be >= 1 (got 0)". For subcommands that
// must report a bad value as a usage error before they build anything.
void CheckLoaderOptions(const LoaderOptions& options);

}  // namespace segfeed::tools
