#pragma once

// Reads a PNG with libspng in the PNG's own sample format, for the tests of
// the PNG writers and of make-demo's label maps: palette indices stay
// indices (OpenCV would expand them to colours), 16-bit samples come in this
// machine's byte order.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace segfeed::testing {

struct DecodedPng {
  std::string error;  // empty when the file decoded
  int width = 0, height = 0;
  int bit_depth = 0;
  int color_type = 0;  // PNG's: 0 grey, 2 RGB, 3 indexed
  std::vector<std::array<uint8_t, 3>> palette;
  std::vector<uint8_t> samples;  // rows packed, in the PNG's format
};

DecodedPng ReadPng(const std::filesystem::path& path);

}  // namespace segfeed::testing
