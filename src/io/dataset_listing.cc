#include <algorithm>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "segfeed/dataset.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;

// ASCII lower case only: extensions are ASCII, and the rest of a name is
// compared bytewise so UTF-8 names are never touched.
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EndsWithIgnoringCase(const std::string& name, const std::string& suffix) {
  if (name.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), name.end() - suffix.size(),
                    [](char a, char b) { return LowerAscii(a) == LowerAscii(b); });
}

// `name` without the first extension in `extensions` it ends with (case
// insensitive), or an empty string when none matches or nothing is left.
std::string StripExtension(const std::string& name, const std::vector<std::string>& extensions) {
  for (const std::string& extension : extensions) {
    if (name.size() > extension.size() && EndsWithIgnoringCase(name, extension)) {
      return name.substr(0, name.size() - extension.size());
    }
  }
  return {};
}

struct FolderEntry {
  std::string name;
  bool is_folder = false;
};

// The entries of one folder, sorted by name so that everything after this
// is independent of the file system's iteration order.
std::vector<FolderEntry> ReadFolder(const fs::path& folder) {
  std::error_code error;
  fs::directory_iterator it(folder, error);
  if (error) {
    throw FileError(Error{ErrorKind::kIoError, folder.string(),
                          "cannot list folder: " + error.message()});
  }
  std::vector<FolderEntry> entries;
  for (; it != fs::directory_iterator(); it.increment(error)) {
    // status() follows symlinks; a dangling one has no status and is kept
    // as a file, so that reading it later reports it by name.
    std::error_code status_error;
    const bool is_folder = it->is_directory(status_error) && !status_error;
    entries.push_back({it->path().filename().string(), is_folder});
  }
  if (error) {
    throw FileError(Error{ErrorKind::kIoError, folder.string(),
                          "cannot list folder: " + error.message()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const FolderEntry& a, const FolderEntry& b) { return a.name < b.name; });
  return entries;
}

void ValidateSpec(const DatasetSpec& spec) {
  if (spec.image_dir.empty()) throw ConfigError("image_dir must not be empty");
  if (spec.mask_dir.empty()) throw ConfigError("mask_dir must not be empty");
  auto check_extensions = [](const char* field, const std::vector<std::string>& extensions) {
    if (extensions.empty()) throw ConfigError(std::string(field) + " must not be empty");
    for (const std::string& extension : extensions) {
      if (extension.size() < 2 || extension[0] != '.') {
        throw ConfigError(std::string(field) + " entries must look like \".jpg\" (got \"" +
                          extension + "\")");
      }
    }
  };
  check_extensions("image_extensions", spec.image_extensions);
  check_extensions("mask_extensions", spec.mask_extensions);
}

// The file name of each stem's image (or mask), the first by name when
// several match ("a.jpg" and "a.JPG").
using StemFiles = std::map<std::string, std::string>;

void AddFile(StemFiles* files, const std::string& stem, const std::string& name,
             const fs::path& folder, std::vector<IgnoredFile>* ignored) {
  auto [it, inserted] = files->emplace(stem, name);
  if (!inserted) ignored->push_back({folder / name, "duplicate of " + it->second});
}

}  // namespace

DatasetSpec DatasetSpec::Carvana(const std::filesystem::path& root) {
  DatasetSpec spec;
  spec.image_dir = root / "train";
  spec.mask_dir = root / "train_masks";
  return spec;
}

Dataset ListDataset(const DatasetSpec& spec) {
  ValidateSpec(spec);
  Dataset dataset;
  StemFiles images;
  StemFiles masks;

  // A name in the mask folder is a mask if it has a mask extension and ends
  // with the suffix; otherwise, when both folders are one, it may be an
  // image. Checking masks first keeps "a_mask.png" from also being the
  // image "a_mask" when images and masks share folder and extension.
  std::error_code ignored_error;
  const bool same_folder = fs::equivalent(spec.image_dir, spec.mask_dir, ignored_error);
  auto classify = [&](const fs::path& folder, bool images_here, bool masks_here) {
    for (const FolderEntry& entry : ReadFolder(folder)) {
      if (entry.name.front() == '.') {
        dataset.ignored.push_back({folder / entry.name, "hidden"});
        continue;
      }
      if (entry.is_folder) {
        dataset.ignored.push_back({folder / entry.name, "folder"});
        continue;
      }
      if (masks_here) {
        const std::string base = StripExtension(entry.name, spec.mask_extensions);
        if (!base.empty() && base.size() > spec.mask_suffix.size() &&
            base.compare(base.size() - spec.mask_suffix.size(), std::string::npos,
                         spec.mask_suffix) == 0) {
          AddFile(&masks, base.substr(0, base.size() - spec.mask_suffix.size()), entry.name,
                  folder, &dataset.ignored);
          continue;
        }
      }
      if (images_here) {
        const std::string stem = StripExtension(entry.name, spec.image_extensions);
        if (!stem.empty()) {
          AddFile(&images, stem, entry.name, folder, &dataset.ignored);
          continue;
        }
      }
      dataset.ignored.push_back({folder / entry.name, "not an image or mask name"});
    }
  };
  if (same_folder) {
    classify(spec.image_dir, true, true);
  } else {
    classify(spec.image_dir, true, false);
    classify(spec.mask_dir, false, true);
  }

  // Both maps are sorted by stem (bytewise: std::string compares as
  // unsigned char), so one merge gives pairs and problems in order.
  auto image = images.begin();
  auto mask = masks.begin();
  const std::string mask_example = spec.mask_suffix + spec.mask_extensions.front();
  const std::string image_example = spec.image_extensions.front();
  while (image != images.end() || mask != masks.end()) {
    if (mask == masks.end() || (image != images.end() && image->first < mask->first)) {
      dataset.problems.push_back(Error{ErrorKind::kMissingMask,
                                       (spec.image_dir / image->second).string(),
                                       "no mask " + image->first + mask_example + " in " +
                                           spec.mask_dir.string()});
      ++image;
    } else if (image == images.end() || mask->first < image->first) {
      dataset.problems.push_back(Error{ErrorKind::kOrphanMask,
                                       (spec.mask_dir / mask->second).string(),
                                       "no image " + mask->first + image_example + " in " +
                                           spec.image_dir.string()});
      ++mask;
    } else {
      dataset.pairs.push_back(
          {image->first, spec.image_dir / image->second, spec.mask_dir / mask->second});
      ++image;
      ++mask;
    }
  }
  std::sort(dataset.ignored.begin(), dataset.ignored.end(),
            [](const IgnoredFile& a, const IgnoredFile& b) { return a.path < b.path; });
  return dataset;
}

}  // namespace segfeed
