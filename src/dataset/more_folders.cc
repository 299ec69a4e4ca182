#include "dataset/more_folders.h"

#include <string>
#include <utility>
#include <vector>

#include "segfeed/errors.h"

namespace segfeed::dataset {
namespace {

namespace fs = std::filesystem;

// `path`, a listed file under one of the folders, relative to `root`.
std::string UnderRoot(const fs::path& path, const fs::path& root) {
  return path.lexically_relative(root).generic_string();
}

}  // namespace

Dataset ListAcrossFolders(const DatasetSpec& spec) {
  if (!spec.list_file.empty())
    throw ConfigError("more_folders does not go with a list file (" + spec.list_file.string() +
                      ")");
  if (spec.root.empty()) throw ConfigError("more_folders needs root, the folder they are under");
  std::vector<std::pair<fs::path, fs::path>> folders = {{spec.image_dir, spec.mask_dir}};
  folders.insert(folders.end(), spec.more_folders.begin(), spec.more_folders.end());
  Dataset whole;
  whole.pairs = PairList(spec.root);
  for (const auto& [images, masks] : folders) {
    for (const fs::path* folder : {&images, &masks}) {
      const std::string relative = UnderRoot(*folder, spec.root);
      if (relative.empty() || relative.starts_with(".."))
        throw ConfigError("more_folders must be under root " + spec.root.string() + " (got " +
                          folder->string() + ")");
    }
    DatasetSpec part = spec;
    part.name = "folders";  // the preset's layout was checked as a whole
    part.image_dir = images;
    part.mask_dir = masks;
    part.more_folders.clear();
    Dataset listed = ListDataset(part);
    for (const SamplePair& pair : listed.pairs)
      whole.pairs.AddPaths(UnderRoot(pair.image_path, spec.root),
                           UnderRoot(pair.mask_path, spec.root));
    for (Error& problem : listed.problems) whole.problems.push_back(std::move(problem));
    for (IgnoredFile& file : listed.ignored) whole.ignored.push_back(std::move(file));
    whole.ignored_count += listed.ignored_count;
  }
  return whole;
}

}  // namespace segfeed::dataset
