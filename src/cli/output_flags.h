#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli/loader_flags.h"
#include "output/output_file.h"

namespace segfeed::cli {

// For the commands: the file `path` that `option` (--json, --out) names,
// checked by OutputFile::Prepare() and refused inside the folders of the
// dataset the command line names (--data, or --images and --masks; none
// without), or nullopt when the option is absent. Throws UsageError naming
// the option, the path and the reason, so a long run never starts with an
// output it cannot write.
std::optional<output::OutputFile> OutputFileFromFlag(const std::optional<std::string>& path,
                                                     const std::string& option,
                                                     const DatasetFlags& dataset);

// The same for a folder a command fills with files (--dump DIR), checked by
// CheckOutputFolder().
std::optional<std::filesystem::path> OutputFolderFromFlag(const std::optional<std::string>& dir,
                                                          const std::string& option,
                                                          const DatasetFlags& dataset);

}  // namespace segfeed::cli
