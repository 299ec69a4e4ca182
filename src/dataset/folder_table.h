#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "dataset/folder_walk.h"

namespace segfeed::dataset {

// The sub-folders of both walks, merged and sorted, so that a pair's two
// files are matched by the index of their folder.
class FolderTable {
 public:
  FolderTable(const FolderWalk& images, const FolderWalk* masks) {
    for (const auto& folder : images.folders()) relative_.push_back(folder.relative);
    if (masks != nullptr) {
      for (const auto& folder : masks->folders()) relative_.push_back(folder.relative);
    }
    std::sort(relative_.begin(), relative_.end());
    relative_.erase(std::unique(relative_.begin(), relative_.end()), relative_.end());
  }
  uint32_t IndexOf(std::string_view relative) const {
    return static_cast<uint32_t>(std::lower_bound(relative_.begin(), relative_.end(), relative) -
                                 relative_.begin());
  }
  bool Has(std::string_view relative) const {
    const uint32_t index = IndexOf(relative);
    return index < relative_.size() && relative_[index] == relative;
  }
  std::string_view operator[](uint32_t index) const { return relative_[index]; }
  size_t size() const { return relative_.size(); }

 private:
  std::vector<std::string_view> relative_;
};

}  // namespace segfeed::dataset
