#include "options/byte_count.h"

#include <cctype>
#include <limits>

namespace segfeed::options {
namespace {

struct ByteUnit {
  std::string_view name;
  int64_t scale;
};
// The binary ones first, so ByteCountText() writes those.
constexpr ByteUnit kByteUnits[] = {{"GiB", int64_t{1} << 30},
                                   {"MiB", int64_t{1} << 20},
                                   {"KiB", int64_t{1} << 10},
                                   {"GB", 1000 * 1000 * 1000},
                                   {"MB", 1000 * 1000},
                                   {"KB", 1000},
                                   {"B", 1}};

}  // namespace

std::optional<int64_t> ParseByteCount(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string_view unit = text.substr(digits);
  int64_t scale = unit.empty() ? 1 : 0;
  for (const ByteUnit& known : kByteUnits) {
    if (unit == known.name) scale = known.scale;
  }
  // 15 digits stay far inside int64; the product is checked below.
  if (digits == 0 || digits > 15 || scale == 0) return std::nullopt;
  const int64_t count = std::stoll(std::string(text.substr(0, digits)));
  if (count > std::numeric_limits<int64_t>::max() / scale) return std::nullopt;
  return count * scale;
}

std::string ByteCountText(int64_t bytes) {
  for (const ByteUnit& unit : kByteUnits) {
    if (bytes > 0 && unit.scale > 1 && bytes % unit.scale == 0)
      return std::to_string(bytes / unit.scale) + std::string(unit.name);
  }
  return std::to_string(bytes);
}

}  // namespace segfeed::options
