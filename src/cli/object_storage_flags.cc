#include "cli/object_storage_flags.h"

#include <string>

#include "options/object_storage_options.h"

namespace segfeed::cli {

ObjectStorageFlags::ObjectStorageFlags(CommandLine& cli) {
  for (const OptionSpec* spec : LoaderOptionTable()) {
    if (options::IsObjectStorageOption(spec->name())) flags_.push_back(AddTableFlag(cli, *spec));
  }
}

ObjectStorageOptions ObjectStorageFlags::Options() const {
  LoaderOptions options;
  ParseGivenFlags(flags_, options,
                  [](const OptionSpec& spec) { return "--" + std::string(spec.flag()); });
  return options.object_storage;
}

}  // namespace segfeed::cli
