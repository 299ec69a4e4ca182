#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace segfeed::decode {

// Palette index -> mask value over decoded pixels. Masks written by most
// tools use two indices (Pillow's: 0 and 255 of a grey palette): then the
// value is one comparison, which the compiler vectorises, instead of a
// table lookup per pixel.
class IndexMapping {
 public:
  IndexMapping(const std::array<uint8_t, 256>& value, const std::array<bool, 256>& index_used,
               bool binary)
      : value_(value) {
    if (!binary) return;  // label maps: the table
    int used = 0, foreground = -1;
    for (int i = 0; i < 256; ++i) {
      if (!index_used[i]) continue;
      ++used;
      if (value[i] == 1) foreground = foreground < 0 ? i : 256;  // 256: more than one
    }
    // At most two indices and at most one of them foreground.
    if (used <= 2 && foreground < 256) foreground_index_ = foreground;
  }

  void Apply(uint8_t* pixels, size_t count) const {
    if (foreground_index_ >= 0) {
      const auto foreground = static_cast<uint8_t>(foreground_index_);
      for (size_t i = 0; i < count; ++i) pixels[i] = pixels[i] == foreground ? 1 : 0;
    } else if (foreground_index_ == kAllBackground) {
      std::memset(pixels, 0, count);
    } else {
      for (size_t i = 0; i < count; ++i) pixels[i] = value_[pixels[i]];
    }
  }

 private:
  static constexpr int kAllBackground = -1;
  static constexpr int kTable = -2;
  const std::array<uint8_t, 256>& value_;
  int foreground_index_ = kTable;
};

}  // namespace segfeed::decode
