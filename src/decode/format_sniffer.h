#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace segfeed::decode {

// File formats told apart by their first bytes. Used to say what a file is
// when it is not what its name promises (a PNG named .jpg), which is a more
// useful message than the decoder's own complaint about a bad marker.
enum class SniffedFormat { kUnknown, kJpeg, kGif, kPng, kBmp, kTiff, kWebp };

SniffedFormat SniffFormat(std::span<const uint8_t> bytes);

// "JPEG", "GIF", "PNG", ...; "unknown" for kUnknown.
std::string_view FormatName(SniffedFormat format);

// "PNG data" for a known format, else the first bytes in hex
// ("data starting 00 11 22 33"), for error messages.
std::string DescribeContent(std::span<const uint8_t> bytes);

}  // namespace segfeed::decode
