#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "io/format_sniffer.h"
#include "result.h"

namespace segfeed::internal {

// Reads whole files into one buffer that is reused from file to file, so
// steady-state reading allocates nothing (the buffer only grows to the
// largest file seen). One per thread; not thread-safe.
class FileReader {
 public:
  // Files larger than `max_bytes` are refused as too_large before anything
  // is allocated for them.
  explicit FileReader(int64_t max_bytes = int64_t{256} << 20) : max_bytes_(max_bytes) {}

  // Reads the file at `path` with one read(2) in the common case, through
  // FileSystemInUse(); EINTR is retried and a short read reads on. The
  // bytes stay valid until the next Read() on this reader. Errors name
  // `path`: empty_file for zero bytes, too_large above max_bytes, io_error
  // (with the errno text) for a missing file, a dangling symlink, a folder,
  // a FIFO or device (refused without blocking), a permission problem, a
  // failed read, or a file that ends before its stat'ed size.
  // With `expected`, the first bytes are checked before the whole file is
  // read: a file of another format is unsupported_format (naming what it
  // looks like) without a buffer of its size ever being allocated.
  // `also` is a second format accepted (a photo may be JPEG or PNG).
  Result<std::span<const uint8_t>> Read(const std::filesystem::path& path,
                                        std::optional<SniffedFormat> expected = std::nullopt,
                                        std::optional<SniffedFormat> also = std::nullopt);
  // Frees the buffer when it holds more than `keep_bytes`, so that one
  // large file leaves nothing grown.
  void Shrink(size_t keep_bytes);

  // Bytes currently reserved by the buffer (for the memory plan and tests).
  size_t capacity_bytes() const { return buffer_.capacity(); }

 private:
  // Enough for SniffFormat() to tell every format it knows.
  static constexpr size_t kSniffBytes = 16;
  int64_t max_bytes_;
  std::vector<uint8_t> buffer_;
};

}  // namespace segfeed::internal
