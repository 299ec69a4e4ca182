#include "decode/format_sniffer.h"

#include <cstdio>
#include <cstring>

namespace segfeed::decode {
namespace {

bool StartsWith(std::span<const uint8_t> bytes, const char* magic, size_t length) {
  return bytes.size() >= length && std::memcmp(bytes.data(), magic, length) == 0;
}

}  // namespace

SniffedFormat SniffFormat(std::span<const uint8_t> bytes) {
  // JPEG: SOI followed by the first marker's 0xFF.
  if (StartsWith(bytes, "\xFF\xD8\xFF", 3)) return SniffedFormat::kJpeg;
  if (StartsWith(bytes, "GIF87a", 6) || StartsWith(bytes, "GIF89a", 6)) return SniffedFormat::kGif;
  if (StartsWith(bytes, "\x89PNG\r\n\x1A\n", 8)) return SniffedFormat::kPng;
  if (StartsWith(bytes, "BM", 2)) return SniffedFormat::kBmp;
  if (StartsWith(bytes, "II*\0", 4) || StartsWith(bytes, "MM\0*", 4)) return SniffedFormat::kTiff;
  if (bytes.size() >= 12 && StartsWith(bytes, "RIFF", 4) &&
      std::memcmp(bytes.data() + 8, "WEBP", 4) == 0) {
    return SniffedFormat::kWebp;
  }
  return SniffedFormat::kUnknown;
}

std::string_view FormatName(SniffedFormat format) {
  switch (format) {
    case SniffedFormat::kJpeg:
      return "JPEG";
    case SniffedFormat::kGif:
      return "GIF";
    case SniffedFormat::kPng:
      return "PNG";
    case SniffedFormat::kBmp:
      return "BMP";
    case SniffedFormat::kTiff:
      return "TIFF";
    case SniffedFormat::kWebp:
      return "WebP";
    case SniffedFormat::kUnknown:
      break;
  }
  return "unknown";
}

std::string DescribeContent(std::span<const uint8_t> bytes) {
  if (const SniffedFormat format = SniffFormat(bytes); format != SniffedFormat::kUnknown)
    return std::string(FormatName(format)) + " data";
  std::string text = "data starting";
  for (size_t i = 0; i < bytes.size() && i < 4; ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, " %02x", bytes[i]);
    text += hex;
  }
  return text;
}

}  // namespace segfeed::decode
