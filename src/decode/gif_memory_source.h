#pragma once

// Feeding giflib from memory: its DGifOpen() reads through a callback, and
// DGifCloseFile() must run on every path. Shared by the GIF decoder and the
// naive baseline that `segfeed bench --baseline` times.

#include <gif_lib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace segfeed::decode {

// The bytes giflib reads, where it is, and whether it asked for more than
// there was (the file is truncated).
struct GifMemorySource {
  std::span<const uint8_t> bytes;
  size_t offset = 0;
  bool ran_out = false;
};

// DGifOpen's InputFunc over a GifMemorySource in gif->UserData.
inline int ReadGifFromMemory(GifFileType* gif, GifByteType* buffer, int length) {
  auto* source = static_cast<GifMemorySource*>(gif->UserData);
  const size_t wanted = length > 0 ? static_cast<size_t>(length) : 0;
  const size_t n = std::min(wanted, source->bytes.size() - source->offset);
  if (n < wanted) source->ran_out = true;
  std::memcpy(buffer, source->bytes.data() + source->offset, n);
  source->offset += n;
  return static_cast<int>(n);
}

// For std::unique_ptr<GifFileType, GifCloser>.
struct GifCloser {
  void operator()(GifFileType* gif) const {
    int ignored = 0;
    DGifCloseFile(gif, &ignored);  // frees `gif` even when it reports an error
  }
};

}  // namespace segfeed::decode
