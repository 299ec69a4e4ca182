#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace segfeed::source {

// The bytes of one member, in a buffer that the caller owns and reuses from
// read to read (one per decode thread and member), so that reading
// allocates nothing once the buffer has reached the largest member seen.
// It also carries the read budget: a source refuses a member larger than
// max_bytes() as too_large, before reading it where it knows the size.
// Not thread-safe: one thread uses a buffer at a time.
class ReadBuffer {
 public:
  explicit ReadBuffer(int64_t max_bytes = int64_t{256} << 20) : max_bytes_(max_bytes) {}

  int64_t max_bytes() const { return max_bytes_; }
  // The last successful read's bytes; valid until the buffer is read into
  // again or shrunk.
  std::span<const uint8_t> bytes() const { return {bytes_.data(), size_}; }
  // Bytes reserved now (for the memory plan's read-buffer count).
  size_t capacity_bytes() const { return bytes_.capacity(); }

  // For sources: `size` writable bytes (growth through the scratch-growth
  // seam, so a test can make it throw std::bad_alloc); bytes() then shows
  // them. Never shrinks the capacity.
  uint8_t* Resize(size_t size);
  // Empties the buffer; frees it when it holds more than `keep_bytes`, so
  // that one large member leaves nothing grown.
  void Shrink(size_t keep_bytes);

 private:
  int64_t max_bytes_;
  std::vector<uint8_t> bytes_;
  size_t size_ = 0;
};

}  // namespace segfeed::source
