#include "decode/expected_formats.h"

namespace segfeed::decode {

Status ExpectedFormats::Check(std::span<const uint8_t> head, const std::string& name) const {
  const SniffedFormat found = SniffFormat(head);
  if (found == expected_ || (also_ && found == *also_)) return {};
  return Error{ErrorKind::kUnsupportedFormat, name,
               "not a " + std::string(FormatName(expected_)) +
                   (also_ ? " or " + std::string(FormatName(*also_)) : std::string()) + " file (" +
                   DescribeContent(head) + ")"};
}

}  // namespace segfeed::decode
