#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>

#include "segfeed/dataset.h"

namespace segfeed {

PairList::PairList(std::filesystem::path image_dir, std::filesystem::path mask_dir,
                   std::string mask_suffix)
    : image_dir_(std::move(image_dir)),
      mask_dir_(std::move(mask_dir)),
      mask_suffix_(std::move(mask_suffix)) {}

void PairList::Add(std::string_view stem, std::string_view image_extension,
                   std::string_view mask_extension) {
  assert(empty() || this->stem(size() - 1) < stem);
  // The same few spellings come back for every pair: one small table.
  auto index_of = [this](std::string_view extension) {
    auto it = std::find(extensions_.begin(), extensions_.end(), extension);
    if (it == extensions_.end()) {
      if (extensions_.size() == UINT16_MAX)
        throw std::length_error("more than 65535 file extension spellings");
      it = extensions_.emplace(extensions_.end(), extension);
    }
    return static_cast<uint16_t>(it - extensions_.begin());
  };
  image_extension_.push_back(index_of(image_extension));
  mask_extension_.push_back(index_of(mask_extension));
  stems_.append(stem);
  stem_ends_.push_back(stems_.size());
}

std::string_view PairList::stem(size_t index) const {
  const size_t begin = index == 0 ? 0 : stem_ends_[index - 1];
  return std::string_view(stems_).substr(begin, stem_ends_[index] - begin);
}

SamplePair PairList::operator[](size_t index) const {
  const std::string_view name = stem(index);
  SamplePair pair;
  pair.stem = name;
  pair.image_path = image_dir_ / (pair.stem + extensions_[image_extension_[index]]);
  pair.mask_path = mask_dir_ / (pair.stem + mask_suffix_ + extensions_[mask_extension_[index]]);
  return pair;
}

SamplePair PairList::at(size_t index) const {
  if (index >= size()) {
    throw std::out_of_range("pair " + std::to_string(index) + " of a listing of " +
                            std::to_string(size()));
  }
  return (*this)[index];
}

size_t PairList::memory_bytes() const {
  size_t bytes = stems_.capacity() + stem_ends_.capacity() * sizeof(uint64_t) +
                 (image_extension_.capacity() + mask_extension_.capacity()) * sizeof(uint16_t);
  for (const std::string& extension : extensions_)
    bytes += sizeof(std::string) + extension.capacity();
  return bytes;
}

}  // namespace segfeed
