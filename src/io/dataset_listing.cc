#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "segfeed/dataset.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;

// ASCII lower case only: extensions are ASCII, and the rest of a name is
// compared bytewise so UTF-8 names are never touched.
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EndsWithIgnoringCase(std::string_view name, const std::string& suffix) {
  if (name.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), name.end() - suffix.size(),
                    [](char a, char b) { return LowerAscii(a) == LowerAscii(b); });
}

// The length of `name` without the first extension in `extensions` it ends
// with (case insensitive); 0 when none matches or nothing is left.
size_t LengthWithoutExtension(std::string_view name, const std::vector<std::string>& extensions) {
  for (const std::string& extension : extensions) {
    if (name.size() > extension.size() && EndsWithIgnoringCase(name, extension)) {
      return name.size() - extension.size();
    }
  }
  return 0;
}

// The names in one folder, compactly (one string table, as large memory
// grows with the dataset) and sorted, so that everything after this is
// independent of the file system's iteration order.
class FolderNames {
 public:
  explicit FolderNames(const fs::path& folder) {
    std::error_code error;
    fs::directory_iterator it(folder, error);
    if (error) Fail(folder, error);
    for (; it != fs::directory_iterator(); it.increment(error)) {
      // status() follows symlinks; a dangling one has no status and is kept
      // as a file, so that reading it later reports it by name.
      std::error_code status_error;
      const bool is_folder = it->is_directory(status_error) && !status_error;
      table_.append(it->path().filename().native());
      ends_.push_back(table_.size());
      is_folder_.push_back(is_folder);
    }
    if (error) Fail(folder, error);
    order_.resize(ends_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [this](size_t a, size_t b) { return Raw(a) < Raw(b); });
  }

  size_t size() const { return order_.size(); }
  // The k-th name in sorted order.
  std::string_view Name(size_t k) const { return Raw(order_[k]); }
  bool IsFolder(size_t k) const { return is_folder_[order_[k]]; }

 private:
  [[noreturn]] static void Fail(const fs::path& folder, const std::error_code& error) {
    throw FileError(
        Error{ErrorKind::kIoError, folder.string(), "cannot list folder: " + error.message()});
  }
  std::string_view Raw(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(table_).substr(begin, ends_[i] - begin);
  }

  std::string table_;
  std::vector<size_t> ends_;
  std::vector<bool> is_folder_;
  std::vector<size_t> order_;
};

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

// A file whose name makes it an image or a mask: its name is stem,
// then (masks) the suffix, then the extension.
struct Candidate {
  const FolderNames* folder;
  size_t name;  // sorted position in `folder`
  uint32_t stem_length;
  std::string_view Name() const { return folder->Name(name); }
  std::string_view Stem() const { return Name().substr(0, stem_length); }
};

// Sorts by stem, keeps the first by name of each stem ("a.jpg" before
// "a.JPG"; candidates come in name order and the sort is stable) and lists
// the others as ignored.
void KeepOnePerStem(std::vector<Candidate>* candidates, const fs::path& folder,
                    std::vector<IgnoredFile>* ignored) {
  std::stable_sort(candidates->begin(), candidates->end(),
                   [](const Candidate& a, const Candidate& b) { return a.Stem() < b.Stem(); });
  size_t kept = 0;
  for (size_t i = 0; i < candidates->size(); ++i) {
    const Candidate& candidate = (*candidates)[i];
    if (kept > 0 && (*candidates)[kept - 1].Stem() == candidate.Stem()) {
      ignored->push_back({folder / candidate.Name(),
                          "duplicate of " + std::string((*candidates)[kept - 1].Name())});
      continue;
    }
    (*candidates)[kept++] = candidate;
  }
  candidates->resize(kept);
}

}  // namespace

DatasetSpec DatasetSpec::Carvana(const std::filesystem::path& root) {
  DatasetSpec spec;
  spec.image_dir = root / "train";
  spec.mask_dir = root / "train_masks";
  return spec;
}

namespace {

// Sorts the names of one folder into images, masks and ignored files. A
// name in the mask folder is a mask if it has a mask extension and ends
// with the suffix; otherwise, when both folders are one, it may be an
// image. Checking masks first keeps "a_mask.png" from also being the image
// "a_mask" when images and masks share folder and extension. Candidates
// point into `names`, which must outlive them.
void ClassifyNames(const DatasetSpec& spec, const FolderNames& names, const fs::path& folder,
                   bool images_here, bool masks_here, std::vector<Candidate>* images,
                   std::vector<Candidate>* masks, std::vector<IgnoredFile>* ignored) {
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string_view name = names.Name(k);
    if (name.front() == '.') {
      ignored->push_back({folder / name, "hidden"});
      continue;
    }
    if (names.IsFolder(k)) {
      ignored->push_back({folder / name, "folder"});
      continue;
    }
    if (masks_here) {
      const size_t base = LengthWithoutExtension(name, spec.mask_extensions);
      const std::string_view suffix = spec.mask_suffix;
      if (base > suffix.size() && name.substr(base - suffix.size(), suffix.size()) == suffix) {
        masks->push_back({&names, k, static_cast<uint32_t>(base - suffix.size())});
        continue;
      }
    }
    if (images_here) {
      if (const size_t stem = LengthWithoutExtension(name, spec.image_extensions); stem > 0) {
        images->push_back({&names, k, static_cast<uint32_t>(stem)});
        continue;
      }
    }
    ignored->push_back({folder / name, "not an image or mask name"});
  }
}

// Pairs images with masks of the same stem. Both lists are sorted by stem
// (bytewise: string_view compares as unsigned char), so one merge gives
// pairs and problems in order.
void PairByStem(const DatasetSpec& spec, const std::vector<Candidate>& images,
                const std::vector<Candidate>& masks, Dataset* dataset) {
  auto image = images.begin();
  auto mask = masks.begin();
  const std::string mask_example = spec.mask_suffix + spec.mask_extensions.front();
  const std::string image_example = spec.image_extensions.front();
  const size_t suffix_length = spec.mask_suffix.size();
  while (image != images.end() || mask != masks.end()) {
    if (mask == masks.end() || (image != images.end() && image->Stem() < mask->Stem())) {
      dataset->problems.push_back(Error{ErrorKind::kMissingMask,
                                        (spec.image_dir / image->Name()).string(),
                                        "no mask " + std::string(image->Stem()) + mask_example +
                                            " in " + spec.mask_dir.string()});
      ++image;
    } else if (image == images.end() || mask->Stem() < image->Stem()) {
      dataset->problems.push_back(Error{ErrorKind::kOrphanMask,
                                        (spec.mask_dir / mask->Name()).string(),
                                        "no image " + std::string(mask->Stem()) + image_example +
                                            " in " + spec.image_dir.string()});
      ++mask;
    } else {
      dataset->pairs.Add(image->Stem(), image->Name().substr(image->stem_length),
                         mask->Name().substr(mask->stem_length + suffix_length));
      ++image;
      ++mask;
    }
  }
}

}  // namespace

Dataset ListDataset(const DatasetSpec& spec) {
  ValidateSpec(spec);
  Dataset dataset;
  dataset.pairs = PairList(spec.image_dir, spec.mask_dir, spec.mask_suffix);
  std::vector<Candidate> images;
  std::vector<Candidate> masks;
  std::error_code ignored_error;
  const bool same_folder = fs::equivalent(spec.image_dir, spec.mask_dir, ignored_error);
  const FolderNames image_names(spec.image_dir);
  const std::optional<FolderNames> mask_names =
      same_folder ? std::nullopt : std::optional<FolderNames>(std::in_place, spec.mask_dir);
  if (same_folder) {
    ClassifyNames(spec, image_names, spec.image_dir, true, true, &images, &masks, &dataset.ignored);
  } else {
    ClassifyNames(spec, image_names, spec.image_dir, true, false, &images, &masks,
                  &dataset.ignored);
    ClassifyNames(spec, *mask_names, spec.mask_dir, false, true, &images, &masks, &dataset.ignored);
  }
  KeepOnePerStem(&images, spec.image_dir, &dataset.ignored);
  KeepOnePerStem(&masks, spec.mask_dir, &dataset.ignored);
  PairByStem(spec, images, masks, &dataset);
  std::sort(dataset.ignored.begin(), dataset.ignored.end(),
            [](const IgnoredFile& a, const IgnoredFile& b) { return a.path < b.path; });
  return dataset;
}

}  // namespace segfeed
