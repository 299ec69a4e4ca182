#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "result.h"
#include "source/sample_source.h"

namespace segfeed::source {

// Reads whole files that belong to no sample (a plan's sampled headers, the
// naive baseline) into one buffer that is reused from file to file, so
// steady-state reading allocates nothing (the buffer only grows to the
// largest file seen). One per thread; not thread-safe.
class FileReader {
 public:
  // Files larger than `max_bytes` are refused as too_large before anything
  // is allocated for them.
  explicit FileReader(int64_t max_bytes = int64_t{256} << 20) : buffer_(max_bytes) {}

  // ReadWholeFile() (source/files_source.h) into this reader's buffer: the
  // bytes stay valid until the next Read(). With `head` (for example
  // decode/expected_formats.h), the first bytes are checked before the whole
  // file is read: a file that fails it is refused without a buffer of its
  // size ever being allocated.
  Result<std::span<const uint8_t>> Read(const std::filesystem::path& path,
                                        const HeadCheck* head = nullptr);
  // Frees the buffer when it holds more than `keep_bytes`, so that one
  // large file leaves nothing grown.
  void Shrink(size_t keep_bytes) { buffer_.Shrink(keep_bytes); }

  // Bytes currently reserved by the buffer (for the memory plan and tests).
  size_t capacity_bytes() const { return buffer_.capacity_bytes(); }

 private:
  ReadBuffer buffer_;
};

}  // namespace segfeed::source
