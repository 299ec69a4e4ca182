#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli/cli_args.h"
#include "output/output_file.h"

namespace segfeed::tools {

// For the commands: the file named by `option` (--json, --out), checked by
// OutputFile::Prepare() and refused inside the folders of the dataset the
// command line names (--data, or --images and --masks; none without), or
// nullopt when the option is absent. Throws UsageError naming the option,
// the path and the reason, so a long run never starts with an output it
// cannot write.
std::optional<OutputFile> OutputFileFromArgs(const CliArgs& cli, const std::string& option);

// The same for a folder a command fills with files (--dump DIR), checked by
// CheckOutputFolder().
std::optional<std::filesystem::path> OutputFolderFromArgs(const CliArgs& cli,
                                                          const std::string& option);

}  // namespace segfeed::tools
