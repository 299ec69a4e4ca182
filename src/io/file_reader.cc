#include "io/file_reader.h"

#include "source/files_source.h"

namespace segfeed::internal {

Status ExpectedFormats::Check(std::span<const uint8_t> head, const std::string& name) const {
  const SniffedFormat found = SniffFormat(head);
  if (found == expected_ || (also_ && found == *also_)) return {};
  return Error{ErrorKind::kUnsupportedFormat, name,
               "not a " + std::string(FormatName(expected_)) +
                   (also_ ? " or " + std::string(FormatName(*also_)) : std::string()) + " file (" +
                   DescribeContent(head) + ")"};
}

Result<std::span<const uint8_t>> FileReader::Read(const std::filesystem::path& path,
                                                  std::optional<SniffedFormat> expected,
                                                  std::optional<SniffedFormat> also) {
  if (!expected) return ReadWholeFile(path, &buffer_);
  const ExpectedFormats head(*expected, also);
  return ReadWholeFile(path, &buffer_, &head);
}

}  // namespace segfeed::internal
