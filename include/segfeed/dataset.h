#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "segfeed/errors.h"
#include "segfeed/export.h"

namespace segfeed {

// Where a dataset lives and how its images and masks are paired. An image
// `image_dir/<stem><ext>` pairs with the mask
// `mask_dir/<stem><mask_suffix><mask ext>`. Extensions match
// case-insensitively (".jpg" matches "a.JPG").
struct SEGFEED_EXPORT DatasetSpec {
  // Folder holding the photos.
  std::filesystem::path image_dir;
  // Folder holding the masks; may be the same folder as image_dir.
  std::filesystem::path mask_dir;
  // Appended to an image's stem to name its mask ("0cdf5b5d_01" ->
  // "0cdf5b5d_01_mask.gif"). May be empty when the folders differ.
  std::string mask_suffix = "_mask";
  // Extensions (with the dot) that make a file an image: JPEG or PNG.
  std::vector<std::string> image_extensions = {".jpg", ".jpeg", ".png"};
  // Extensions (with the dot) that make a file a mask: GIF or PNG.
  std::vector<std::string> mask_extensions = {".gif", ".png"};

  // Kaggle Carvana's layout, what `--data DIR` means: images in DIR/train,
  // masks in DIR/train_masks named <stem>_mask.gif (or .png, as make-demo
  // --classes writes them).
  static DatasetSpec Carvana(const std::filesystem::path& root);
};

// One image with its mask, the unit the loader streams.
struct SamplePair {
  std::string stem;                  // the image's name without extension
  std::filesystem::path image_path;  // image_dir / (stem + ext)
  std::filesystem::path mask_path;   // mask_dir / (stem + mask_suffix + ext)
};

// The complete pairs of a listing, sorted by stem, stored compactly: one
// string table of stems and, per pair, where its stem ends and which of a
// few extension spellings its two files have (12 bytes per pair plus the
// stem's bytes), so that millions of pairs cost megabytes, not gigabytes.
// Elements are made on access: operator[] and the iterator return a
// SamplePair by value. Immutable once listed; safe to read from any thread.
class SEGFEED_EXPORT PairList {
 public:
  class Iterator {
   public:
    using value_type = SamplePair;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    Iterator(const PairList* list, size_t index) : list_(list), index_(index) {}
    SamplePair operator*() const { return (*list_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    const PairList* list_ = nullptr;
    size_t index_ = 0;
  };

  PairList() = default;
  // An empty list for files in these folders, named with this suffix.
  PairList(std::filesystem::path image_dir, std::filesystem::path mask_dir,
           std::string mask_suffix);

  // Appends the pair `stem` + image_extension / `stem` + suffix +
  // mask_extension; stems must come in ascending (bytewise) order.
  void Add(std::string_view stem, std::string_view image_extension,
           std::string_view mask_extension);

  size_t size() const { return stem_ends_.size(); }
  bool empty() const { return stem_ends_.empty(); }
  SamplePair operator[](size_t index) const;
  // operator[] that throws std::out_of_range for an index past the end.
  SamplePair at(size_t index) const;
  SamplePair front() const { return (*this)[0]; }
  // Without building a SamplePair: no allocation.
  std::string_view stem(size_t index) const;
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

  // Bytes this list holds on the heap (its capacities), for the memory plan.
  size_t memory_bytes() const;

 private:
  std::filesystem::path image_dir_;
  std::filesystem::path mask_dir_;
  std::string mask_suffix_;
  std::string stems_;                      // every stem, back to back
  std::vector<uint64_t> stem_ends_;        // where each pair's stem ends in stems_
  std::vector<uint16_t> image_extension_;  // index into extensions_
  std::vector<uint16_t> mask_extension_;
  std::vector<std::string> extensions_;  // the spellings seen (".jpg", ".JPG", ".gif")
};

// A file in a dataset folder that the listing did not use, and why.
struct IgnoredFile {
  std::filesystem::path path;
  std::string reason;  // "hidden", "not an image or mask", "duplicate of <name>", ...
};

// What ListDataset() found. Everything is sorted, so the result is the same
// whatever order the file system returns its entries in.
struct Dataset {
  // Complete pairs, sorted by stem (bytewise), the only samples the loader
  // uses.
  PairList pairs;
  // missing_mask (path: the image) and orphan_mask (path: the mask) records,
  // sorted by stem, for the checker.
  std::vector<Error> problems;
  // Hidden files, subfolders and files that are neither image nor mask,
  // sorted by path, for the checker to list if it wants.
  std::vector<IgnoredFile> ignored;
};

// Lists `spec.image_dir` and `spec.mask_dir` (not recursively) and pairs
// images with masks. Symlinks are followed; a dangling symlink with an image
// or mask name is listed like a file, so reading it later fails with an
// io_error naming it instead of vanishing silently. Names are compared as raw
// bytes, so spaces and UTF-8 work. Throws ConfigError for an invalid spec
// (no extensions, an empty folder path) and FileError (io_error) when a
// folder cannot be listed.
SEGFEED_EXPORT Dataset ListDataset(const DatasetSpec& spec);

}  // namespace segfeed
