#include "source/read_buffer.h"

#include "source/scratch_growth.h"

namespace segfeed::source {

uint8_t* ReadBuffer::Resize(size_t size) {
  // The vector only grows, so that a member no larger than the largest one
  // seen costs no allocation and no zero-filling of bytes about to be
  // overwritten; size_ is what bytes() shows.
  if (size > bytes_.size()) ResizeScratch(&bytes_, size);
  size_ = size;
  return bytes_.data();
}

void ReadBuffer::Shrink(size_t keep_bytes) {
  size_ = 0;
  if (bytes_.capacity() > keep_bytes) std::vector<uint8_t>().swap(bytes_);
}

}  // namespace segfeed::source
