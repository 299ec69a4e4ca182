// The three pairing rules of DatasetSpec: folders (flat or recursive), a list
// of keys, a list of (image, mask) paths; the fourth, tar shards, is listed
// by shard_listing.cc.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dataset/dataset_layout.h"
#include "dataset/file_names.h"
#include "dataset/folder_table.h"
#include "dataset/folder_walk.h"
#include "dataset/list_file.h"
#include "dataset/list_root.h"
#include "dataset/listed_images.h"
#include "dataset/more_folders.h"
#include "dataset/shard_listing.h"
#include "remote/object_url.h"
#include "segfeed/dataset.h"
#include "source/sample_source.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;
using dataset::FolderNames;
using dataset::FolderTable;
using dataset::FolderWalk;
using dataset::KeyLength;
using dataset::ListedImages;
using dataset::ListFile;

void ValidateFolders(const DatasetSpec& spec) {
  if (spec.image_dir.empty()) throw ConfigError("image_dir must not be empty");
  if (spec.mask_dir.empty()) throw ConfigError("mask_dir must not be empty");
}

void ValidateSpec(const DatasetSpec& spec) {
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
  for (const std::string* suffix : {&spec.image_suffix, &spec.mask_suffix}) {
    if (suffix->find('/') != std::string::npos) {
      throw ConfigError(std::string(suffix == &spec.image_suffix ? "image" : "mask") +
                        "_suffix must not hold a '/' (got \"" + *suffix + "\")");
    }
  }
}

// A file whose name makes it an image or a mask: its name is the key, then
// the suffix, then the extension.
struct Candidate {
  const FolderNames* names;
  size_t name;      // sorted position in `names`
  uint32_t folder;  // in the FolderTable
  uint32_t key_length;
  // A second file with the same key and role ("a.JPG" beside "a.jpg"):
  // its position in `names`, else kNoDuplicate.
  size_t duplicate = kNoDuplicate;
  static constexpr size_t kNoDuplicate = SIZE_MAX;

  std::string_view Name() const { return names->Name(name); }
  std::string_view Key() const { return Name().substr(0, key_length); }
  bool operator<(const Candidate& other) const {
    return folder != other.folder ? folder < other.folder : Key() < other.Key();
  }
};

fs::path Under(const fs::path& top, std::string_view relative, std::string_view name) {
  return relative.empty() ? top / name : top / relative / name;
}

fs::path Under(const fs::path& top, std::string_view relative) {
  return relative.empty() ? top : top / relative;
}

class Listing {
 public:
  Listing(const DatasetSpec& spec, Dataset* dataset) : spec_(spec), dataset_(dataset) {}

  // The folder rule, or a list of keys (`list` set) that looks its keys up
  // in what the folder rule found.
  void PairFolders(const ListFile* list) {
    ValidateFolders(spec_);
    std::error_code ignored_error;
    const bool same_folder = fs::equivalent(spec_.image_dir, spec_.mask_dir, ignored_error);
    const FolderWalk image_walk(spec_.image_dir, spec_.recursive);
    const std::optional<FolderWalk> mask_walk =
        same_folder ? std::nullopt
                    : std::optional<FolderWalk>(std::in_place, spec_.mask_dir, spec_.recursive);
    const FolderTable folders(image_walk, mask_walk ? &*mask_walk : nullptr);
    folders_ = &folders;
    dataset_->pairs =
        PairList(spec_.image_dir, spec_.mask_dir, spec_.image_suffix, spec_.mask_suffix);
    for (uint32_t i = 0; i < folders.size(); ++i) dataset_->pairs.AddFolder(folders[i]);

    std::vector<Candidate> images, masks;
    const bool report_files = list == nullptr;  // a list ignores what it does not name
    Classify(image_walk, spec_.image_dir, true, same_folder, &images, &masks, report_files);
    if (mask_walk) Classify(*mask_walk, spec_.mask_dir, false, true, &images, &masks, report_files);
    if (report_files) {
      for (const FolderWalk* walk : {&image_walk, mask_walk ? &*mask_walk : nullptr}) {
        if (walk == nullptr) continue;
        dataset_->ignored.insert(dataset_->ignored.end(), walk->skipped().begin(),
                                 walk->skipped().end());
      }
    }
    MarkDuplicates(&images);
    MarkDuplicates(&masks);
    if (list == nullptr) {
      Merge(images, masks);
    } else {
      LookUp(*list, images, masks);
    }
    std::sort(dataset_->ignored.begin(), dataset_->ignored.end(),
              [](const IgnoredFile& a, const IgnoredFile& b) { return a.path < b.path; });
  }

  // A list of (image, mask) paths under the list's root. A line naming a
  // file outside the root is that line's outside_root problem, as a
  // missing file is: the other lines still pair, `check` names every such
  // line at once, and on_bad_file decides whether the loader starts.
  void PairPaths(const ListFile& list, const fs::path& root) {
    dataset_->pairs = PairList(root);
    const dataset::ListRoot list_root(root);
    ListedImages listed(spec_.list_file, false);
    for (const dataset::ListEntry& entry : list.entries()) {
      const fs::path image = root / entry.first, mask = root / entry.second;
      const std::string where = Where(entry.line);
      if (!spec_.allow_outside_root) {
        if (std::optional<Error> outside = Outside(list_root, entry, where)) {
          dataset_->problems.push_back(*std::move(outside));
          continue;
        }
      }
      if (!Exists(image)) {
        dataset_->problems.push_back(Error{
            ErrorKind::kMissingImage, image.string(),
            (IsFolder(image) ? "not a regular file (a folder), " : "no such image, ") + where});
      } else if (!Exists(mask)) {
        dataset_->problems.push_back(Error{
            ErrorKind::kMissingMask, image.string(),
            (IsFolder(mask) ? "the mask " + mask.string() + " is not a regular file (a folder)"
                            : "no mask " + mask.string()) +
                ", " + where});
      } else {
        listed.Add(image, entry);
        dataset_->pairs.AddPaths(entry.first, entry.second);
      }
    }
  }

 private:
  // Whether `path` names a file, or a dangling symlink (kept, so that
  // reading it reports it by name, as the folder rule does).
  static bool Exists(const fs::path& path) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);
    return !error && fs::exists(status) && !fs::is_directory(fs::status(path, error));
  }

  // Whether `path` is a folder (a listed path that exists, but is no file).
  static bool IsFolder(const fs::path& path) {
    std::error_code error;
    return fs::is_directory(fs::status(path, error));
  }

  // The outside_root problem of a line whose image or mask path leads
  // outside `root`, naming the path as written and why; nullopt when both
  // stay inside. Nothing outside is opened to find out.
  static std::optional<Error> Outside(const dataset::ListRoot& root,
                                      const dataset::ListEntry& entry, const std::string& where) {
    std::string detail;
    std::optional<fs::path> first;
    for (const auto& [role, written] :
         {std::pair{"image", entry.first}, std::pair{"mask", entry.second}}) {
      const std::optional<std::string> why = root.Outside(written);
      if (!why) continue;
      if (!first) {
        first = root.path() / written;  // an absolute path replaces the root
        detail = std::string(role) + " path '" + std::string(written) + "', " + where + ", " + *why;
      } else {
        detail += "; the mask path '" + std::string(written) + "' " + *why + " too";
      }
    }
    if (!first) return std::nullopt;
    return Error{
        ErrorKind::kOutsideRoot, first->string(),
        detail + ": refused, allow it with --allow-outside-root (allow_outside_root=True)"};
  }

  std::string Where(int line) const {
    return "listed on line " + std::to_string(line) + " of " + spec_.list_file.string();
  }

  // Sorts the names of a walk into images, masks and ignored files. A name
  // in a mask folder is a mask if it has a mask extension and ends with the
  // suffix; otherwise, when both folders are one, it may be an image.
  // Checking masks first keeps "a_mask.png" from also being the image
  // "a_mask" when images and masks share folder and extension.
  void Classify(const FolderWalk& walk, const fs::path& top, bool images_here, bool masks_here,
                std::vector<Candidate>* images, std::vector<Candidate>* masks, bool report) {
    for (const dataset::WalkedFolder& folder : walk.folders()) {
      const FolderNames& names = folder.names;
      const uint32_t folder_index = folders_->IndexOf(folder.relative);
      for (size_t k = 0; k < names.size(); ++k) {
        const std::string_view name = names.Name(k);
        const char* why = nullptr;
        if (name.front() == '.') {
          why = "hidden";
        } else if (names.IsFolder(k)) {
          if (spec_.recursive) continue;  // walked
          why = "folder";
        } else if (size_t key = 0; masks_here && (key = KeyLength(name, spec_.mask_suffix,
                                                                  spec_.mask_extensions)) > 0) {
          masks->push_back({&names, k, folder_index, static_cast<uint32_t>(key)});
          continue;
        } else if (images_here &&
                   (key = KeyLength(name, spec_.image_suffix, spec_.image_extensions)) > 0) {
          images->push_back({&names, k, folder_index, static_cast<uint32_t>(key)});
          continue;
        } else {
          why = "not an image or mask name";
        }
        if (report) dataset_->ignored.push_back({Under(top, folder.relative, name), why});
      }
    }
  }

  // Sorts by folder and key and marks a key that two files claim: the
  // first by name is kept as the candidate, the second named as its
  // duplicate, further ones ignored.
  static void MarkDuplicates(std::vector<Candidate>* candidates) {
    std::stable_sort(candidates->begin(), candidates->end());
    size_t kept = 0;
    for (size_t i = 0; i < candidates->size(); ++i) {
      const Candidate& candidate = (*candidates)[i];
      if (kept > 0 && !((*candidates)[kept - 1] < candidate)) {
        Candidate& first = (*candidates)[kept - 1];
        if (first.duplicate == Candidate::kNoDuplicate) first.duplicate = candidate.name;
        continue;
      }
      (*candidates)[kept++] = candidate;
    }
    candidates->resize(kept);
  }

  void AddDuplicate(const Candidate& candidate, const fs::path& top, bool image) {
    const std::string_view folder = (*folders_)[candidate.folder];
    dataset_->problems.push_back(Error{
        ErrorKind::kDuplicateKey, Under(top, folder, candidate.Name()).string(),
        std::string(image ? "image" : "mask") + " key '" + std::string(candidate.Key()) +
            "' is also " + Under(top, folder, candidate.names->Name(candidate.duplicate)).string() +
            ": rename or remove one"});
  }

  std::string MaskExample(const Candidate& image) const {
    return std::string(image.Key()) + spec_.mask_suffix + spec_.mask_extensions.front();
  }

  void AddMissingMask(const Candidate& image, const std::string& where) {
    const std::string_view folder = (*folders_)[image.folder];
    dataset_->problems.push_back(Error{
        ErrorKind::kMissingMask, Under(spec_.image_dir, folder, image.Name()).string(),
        "no mask " + MaskExample(image) + " in " + Under(spec_.mask_dir, folder).string() + where});
  }

  // Pairs images with masks of the same folder and key. Both lists are
  // sorted that way, so one merge gives pairs and problems in order.
  void Merge(const std::vector<Candidate>& images, const std::vector<Candidate>& masks) {
    auto image = images.begin();
    auto mask = masks.begin();
    while (image != images.end() || mask != masks.end()) {
      const bool image_first = mask == masks.end() || (image != images.end() && *image < *mask);
      const bool mask_first = image == images.end() || (mask != masks.end() && *mask < *image);
      if (image_first) {
        if (image->duplicate != Candidate::kNoDuplicate) {
          AddDuplicate(*image, spec_.image_dir, true);
        } else {
          AddMissingMask(*image, "");
        }
        ++image;
      } else if (mask_first) {
        const std::string_view folder = (*folders_)[mask->folder];
        if (mask->duplicate != Candidate::kNoDuplicate) {
          AddDuplicate(*mask, spec_.mask_dir, false);
        } else {
          dataset_->problems.push_back(
              Error{ErrorKind::kOrphanMask, Under(spec_.mask_dir, folder, mask->Name()).string(),
                    "no image " + std::string(mask->Key()) + spec_.image_suffix +
                        spec_.image_extensions.front() + " in " +
                        Under(spec_.image_dir, folder).string()});
        }
        ++mask;
      } else {
        Pair(*image, *mask);
        ++image;
        ++mask;
      }
    }
  }

  // Both files of a key, unless one of them is claimed twice; with a list
  // (`listed`), unless a line before used the same image.
  void Pair(const Candidate& image, const Candidate& mask,
            const dataset::ListEntry* entry = nullptr, ListedImages* listed = nullptr) {
    if (image.duplicate != Candidate::kNoDuplicate) AddDuplicate(image, spec_.image_dir, true);
    if (mask.duplicate != Candidate::kNoDuplicate) AddDuplicate(mask, spec_.mask_dir, false);
    if (image.duplicate != Candidate::kNoDuplicate || mask.duplicate != Candidate::kNoDuplicate)
      return;
    if (listed != nullptr)
      listed->Add(Under(spec_.image_dir, (*folders_)[image.folder], image.Name()), *entry);
    dataset_->pairs.AddKeyed(image.folder, image.Key(),
                             image.Name().substr(image.key_length + spec_.image_suffix.size()),
                             mask.Name().substr(mask.key_length + spec_.mask_suffix.size()));
  }

  // Each listed key, in the list's order, looked up among the candidates
  // by its NormalSpelling() ("./a" is the key "a", "city//x" is "city/x").
  void LookUp(const ListFile& list, const std::vector<Candidate>& images,
              const std::vector<Candidate>& masks) {
    ListedImages listed(spec_.list_file, true);
    for (const dataset::ListEntry& entry : list.entries()) {
      const std::string normal = dataset::NormalSpelling(entry.first);
      const size_t slash = normal.rfind('/');
      const std::string_view folder = slash == std::string::npos
                                          ? std::string_view()
                                          : std::string_view(normal).substr(0, slash);
      const std::string_view key = slash == std::string::npos
                                       ? std::string_view(normal)
                                       : std::string_view(normal).substr(slash + 1);
      const Candidate* image = nullptr;
      const Candidate* mask = nullptr;
      if (folders_->Has(folder)) {
        const uint32_t index = folders_->IndexOf(folder);
        image = Find(images, index, key);
        mask = Find(masks, index, key);
      }
      const std::string where = ", " + Where(entry.line);
      if (image == nullptr) {
        const fs::path expected = spec_.image_dir / (std::string(entry.first) + spec_.image_suffix +
                                                     spec_.image_extensions.front());
        dataset_->problems.push_back(
            Error{ErrorKind::kMissingImage, expected.string(), "no image with this key" + where});
      } else if (mask == nullptr && image->duplicate == Candidate::kNoDuplicate) {
        AddMissingMask(*image, where);
      } else if (mask == nullptr) {
        AddDuplicate(*image, spec_.image_dir, true);
      } else {
        Pair(*image, *mask, &entry, &listed);
      }
    }
  }

  static const Candidate* Find(const std::vector<Candidate>& candidates, uint32_t folder,
                               std::string_view key) {
    auto it =
        std::lower_bound(candidates.begin(), candidates.end(), std::pair{folder, key},
                         [](const Candidate& c, const std::pair<uint32_t, std::string_view>& k) {
                           return c.folder != k.first ? c.folder < k.first : c.Key() < k.second;
                         });
    return it != candidates.end() && it->folder == folder && it->Key() == key ? &*it : nullptr;
  }

  const DatasetSpec& spec_;
  Dataset* dataset_;
  const FolderTable* folders_ = nullptr;
};

}  // namespace

size_t Dataset::sample_count() const {
  return shard_source ? shard_source->sample_count() : pairs.size();
}

std::string Dataset::SampleKey(size_t id) const {
  return shard_source ? shard_source->Key(static_cast<source::SampleId>(id)) : pairs.at(id).stem;
}

std::pair<std::string, std::string> Dataset::SampleNames(size_t id) const {
  if (!shard_source) {
    const SamplePair pair = pairs.at(id);
    return {pair.image_path.string(), pair.mask_path.string()};
  }
  const auto sample = static_cast<source::SampleId>(id);
  return {shard_source->MemberName(sample, source::Member::kImage),
          shard_source->MemberName(sample, source::Member::kMask)};
}

Dataset ListDataset(const DatasetSpec& spec) { return ListDataset(spec, ObjectStorageOptions{}); }

Dataset ListDataset(const DatasetSpec& spec, const ObjectStorageOptions& object_storage) {
  if (!object_storage.cache_dir.empty() && !remote::IsObjectUrl(spec.shard_index.string())) {
    throw ConfigError(
        "cache_dir applies to datasets in object storage (s3://, http(s)://) only: this one is "
        "read from local disk, which a cache would only copy (leave cache_dir out)");
  }
  if (dataset::IsShardSpec(spec)) {
    Dataset dataset;
    dataset::ListShards(spec, object_storage, &dataset);
    return dataset;
  }
  ValidateSpec(spec);
  dataset::CheckLayout(spec);
  if (!spec.more_folders.empty()) return dataset::ListAcrossFolders(spec);
  Dataset dataset;
  Listing listing(spec, &dataset);
  if (spec.list_file.empty()) {
    listing.PairFolders(nullptr);
    dataset.ignored_count = dataset.ignored.size();
    return dataset;
  }
  const ListFile list(spec.list_file);
  if (list.two_columns()) {
    const fs::path root = !spec.list_root.empty() ? spec.list_root
                          : !spec.root.empty()    ? spec.root
                                                  : spec.list_file.parent_path();
    listing.PairPaths(list, root);
  } else {
    if (spec.image_dir.empty() || spec.mask_dir.empty()) {
      throw ConfigError(spec.list_file.string() + " lists keys (line " +
                        std::to_string(list.entries().front().line) +
                        " has one field), which are looked up in the image and mask folders: "
                        "give them (--images and --masks, images= and masks=)");
    }
    listing.PairFolders(&list);
  }
  return dataset;
}

}  // namespace segfeed
