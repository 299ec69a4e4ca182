#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "io/format_sniffer.h"
#include "result.h"
#include "source/sample_source.h"

namespace segfeed::internal {

// A HeadCheck that accepts the `expected` format, and `also` when given (a
// photo may be JPEG or PNG): anything else is unsupported_format, naming
// what the first bytes look like.
class ExpectedFormats final : public HeadCheck {
 public:
  ExpectedFormats(SniffedFormat expected, std::optional<SniffedFormat> also = std::nullopt)
      : expected_(expected), also_(also) {}
  Status Check(std::span<const uint8_t> head, const std::string& name) const override;

 private:
  SniffedFormat expected_;
  std::optional<SniffedFormat> also_;
};

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
  // bytes stay valid until the next Read(). With `expected`, the first
  // bytes are checked before the whole file is read (ExpectedFormats): a
  // file of another format is unsupported_format without a buffer of its
  // size ever being allocated.
  Result<std::span<const uint8_t>> Read(const std::filesystem::path& path,
                                        std::optional<SniffedFormat> expected = std::nullopt,
                                        std::optional<SniffedFormat> also = std::nullopt);
  // Frees the buffer when it holds more than `keep_bytes`, so that one
  // large file leaves nothing grown.
  void Shrink(size_t keep_bytes) { buffer_.Shrink(keep_bytes); }

  // Bytes currently reserved by the buffer (for the memory plan and tests).
  size_t capacity_bytes() const { return buffer_.capacity_bytes(); }

 private:
  ReadBuffer buffer_;
};

}  // namespace segfeed::internal
