// PairList (segfeed/dataset.h): the catalog of a files dataset, which the
// dataset stage fills and FilesSource serves. It lives with the sources,
// below both, so that the listing and the sources each use it without
// using each other's stage.

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "segfeed/dataset.h"

namespace segfeed {
namespace {

// dir / folder / (the name's parts, concatenated), joined as
// std::filesystem's operator/ joins relative parts on POSIX (a separator
// unless the left side is empty or ends with one) and parsed once. With
// operator/ each sample copied the folder's path and split the result into
// components again: 6,200 instructions per sample against 3,000, most of
// what a small sample costs outside its stages (BENCHMARKS.md, "The cost
// per sample").
std::filesystem::path JoinPath(std::string_view dir, std::string_view folder,
                               std::initializer_list<std::string_view> name) {
  std::string joined;
  size_t length = dir.size() + folder.size() + 2;
  for (std::string_view part : name) length += part.size();
  joined.reserve(length);
  joined.append(dir);
  const auto separate = [&joined] {
    if (!joined.empty() && joined.back() != '/') joined.push_back('/');
  };
  if (!folder.empty()) {
    separate();
    joined.append(folder);
  }
  separate();
  for (std::string_view part : name) joined.append(part);
  return std::filesystem::path(std::move(joined));
}

}  // namespace

PairList::PairList(std::filesystem::path image_dir, std::filesystem::path mask_dir,
                   std::string image_suffix, std::string mask_suffix)
    : image_dir_(std::move(image_dir)),
      mask_dir_(std::move(mask_dir)),
      image_suffix_(std::move(image_suffix)),
      mask_suffix_(std::move(mask_suffix)) {}

PairList::PairList(std::filesystem::path root) : image_dir_(std::move(root)), by_paths_(true) {}

uint32_t PairList::AddFolder(std::string_view relative) {
  if (folders_.size() == UINT32_MAX) throw std::length_error("more than 2^32 sub-folders");
  folders_.emplace_back(relative);
  return static_cast<uint32_t>(folders_.size() - 1);
}

void PairList::AddKeyed(uint32_t folder, std::string_view key, std::string_view image_extension,
                        std::string_view mask_extension) {
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
  folder_.push_back(folder);
  text_.append(key);
  key_ends_.push_back(text_.size());
}

void PairList::AddPaths(std::string_view image, std::string_view mask) {
  text_.append(image);
  text_.push_back('\0');  // no path holds a NUL
  text_.append(mask);
  key_ends_.push_back(text_.size());
}

std::string_view PairList::Text(size_t index) const {
  const size_t begin = index == 0 ? 0 : key_ends_[index - 1];
  return std::string_view(text_).substr(begin, key_ends_[index] - begin);
}

SamplePair PairList::operator[](size_t index) const {
  const std::string_view text = Text(index);
  SamplePair pair;
  if (by_paths_) {
    const size_t split = text.find('\0');
    const std::filesystem::path image(text.substr(0, split));
    pair.image_path = image_dir_ / image;
    pair.mask_path = image_dir_ / std::filesystem::path(text.substr(split + 1));
    pair.stem = (image.parent_path() / image.stem()).string();
    return pair;
  }
  const std::string& folder = folders_[folder_[index]];
  pair.stem = folder.empty() ? std::string(text) : folder + "/" + std::string(text);
  pair.image_path = JoinPath(image_dir_.native(), folder,
                             {text, image_suffix_, extensions_[image_extension_[index]]});
  pair.mask_path = JoinPath(mask_dir_.native(), folder,
                            {text, mask_suffix_, extensions_[mask_extension_[index]]});
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
  size_t bytes = text_.capacity() + key_ends_.capacity() * sizeof(uint64_t) +
                 folder_.capacity() * sizeof(uint32_t) +
                 (image_extension_.capacity() + mask_extension_.capacity()) * sizeof(uint16_t);
  for (const std::string& text : folders_) bytes += sizeof(std::string) + text.capacity();
  for (const std::string& text : extensions_) bytes += sizeof(std::string) + text.capacity();
  return bytes;
}

}  // namespace segfeed
