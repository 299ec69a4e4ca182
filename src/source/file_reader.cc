#include "source/file_reader.h"

#include "source/files_source.h"

namespace segfeed::source {

Result<std::span<const uint8_t>> FileReader::Read(const std::filesystem::path& path,
                                                  const HeadCheck* head) {
  return ReadWholeFile(path, &buffer_, head);
}

}  // namespace segfeed::source
