#include "decode/png_whole_buffer.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "decode/png_scanlines.h"
#include "source/scratch_growth.h"

namespace segfeed::decode {
namespace {

// What libspng would refuse or has to judge after the image data is left to
// it: a file with more than this in chunks other than IDAT (text, EXIF,
// unknown ones) goes to libspng, which caps what it keeps of them.
constexpr uint64_t kOtherChunkBytes = uint64_t{1} << 20;
constexpr uint32_t kMaxChunkLength = 0x7FFFFFFF;  // PNG's limit, 2^31 - 1

uint32_t ReadBigEndian32(const uint8_t* at) {
  return (uint32_t{at[0]} << 24) | (uint32_t{at[1]} << 16) | (uint32_t{at[2]} << 8) | at[3];
}

// One chunk of the file: where its data is, and whether it is whole.
struct Chunk {
  const uint8_t* type = nullptr;
  std::span<const uint8_t> data;
  uint32_t stored_crc = 0;
  bool IsA(const char* name) const { return std::memcmp(type, name, 4) == 0; }
  bool Critical() const { return (type[0] & 0x20) == 0; }
  bool CrcMatches() const {
    return libdeflate_crc32(libdeflate_crc32(0, type, 4), data.data(), data.size()) == stored_crc;
  }
};

// The chunk at `at`, or false when its length is over PNG's limit or it
// runs past the end of the file.
bool ChunkAt(std::span<const uint8_t> file, size_t at, Chunk* chunk) {
  if (file.size() < 12 || at > file.size() - 12) return false;
  const uint32_t length = ReadBigEndian32(&file[at]);
  if (length > kMaxChunkLength || length > file.size() - 12 - at) return false;
  chunk->type = &file[at + 4];
  chunk->data = file.subspan(at + 8, length);
  chunk->stored_crc = ReadBigEndian32(&file[at + 8 + length]);
  return true;
}

size_t NextChunk(size_t at, const Chunk& chunk) { return at + 12 + chunk.data.size(); }

// Grows `buffer` to at least `count` bytes. Only the bytes past its size
// are zeroed, once: a kept buffer is not written twice per file.
uint8_t* GrowScratch(std::vector<uint8_t>* buffer, size_t count) {
  if (buffer->size() < count) source::ResizeScratch(buffer, count);
  return buffer->data();
}

// The IDAT run of `file` (each chunk's CRC good) as one zlib stream: a view
// of the file when it is one chunk, else joined into `join_room` when it
// fits there, else into `joined`; and after it, only ancillary chunks
// before a good IEND. False otherwise.
bool GatherImageData(std::span<const uint8_t> file, std::span<uint8_t> join_room,
                     std::vector<uint8_t>* joined, std::span<const uint8_t>* stream) {
  size_t at = 8;  // after the signature
  Chunk chunk;
  uint64_t other_bytes = 0;
  for (;; at = NextChunk(at, chunk)) {
    if (!ChunkAt(file, at, &chunk)) return false;
    if (chunk.IsA("IDAT")) break;
    other_bytes += chunk.data.size();
  }
  const size_t first = at;
  size_t count = 0;
  size_t total = 0;
  for (; ChunkAt(file, at, &chunk) && chunk.IsA("IDAT"); at = NextChunk(at, chunk)) {
    if (!chunk.CrcMatches()) return false;
    ++count;
    total += chunk.data.size();
  }
  const size_t after = at;
  for (;; at = NextChunk(at, chunk)) {
    if (!ChunkAt(file, at, &chunk)) return false;
    if (chunk.IsA("IEND")) {
      if (!chunk.data.empty() || !chunk.CrcMatches()) return false;
      break;
    }
    if (chunk.Critical()) return false;  // IDAT, PLTE, IHDR or unknown after the image data
    other_bytes += chunk.data.size();
    if (other_bytes > kOtherChunkBytes) return false;
  }
  if (count == 1) {
    ChunkAt(file, first, &chunk);
    *stream = chunk.data;
    return true;
  }
  uint8_t* const to = total <= join_room.size() ? join_room.data() : GrowScratch(joined, total);
  size_t filled = 0;
  for (at = first; at < after; at = NextChunk(at, chunk)) {
    ChunkAt(file, at, &chunk);
    if (!chunk.data.empty()) std::memcpy(to + filled, chunk.data.data(), chunk.data.size());
    filled += chunk.data.size();
  }
  *stream = std::span<const uint8_t>(to, total);
  return true;
}

// IDAT data bytes and chunk count, for ScratchNeeded.
void CountImageData(std::span<const uint8_t> file, size_t* bytes, size_t* chunks) {
  *bytes = 0;
  *chunks = 0;
  Chunk chunk;
  for (size_t at = 8; ChunkAt(file, at, &chunk); at = NextChunk(at, chunk)) {
    if (chunk.IsA("IDAT")) {
      *bytes += chunk.data.size();
      ++*chunks;
    }
    if (chunk.IsA("IEND")) break;
  }
}

int64_t InflatedBytes(const PngHeader& header) {
  return int64_t{header.height} * (StoredRowBytes(header) + 1);
}

}  // namespace

void PngWholeBufferFreer::operator()(PngWholeBuffer* whole) const { delete whole; }

void PngWholeBuffer::Freer::operator()(libdeflate_decompressor* decompressor) const {
  libdeflate_free_decompressor(decompressor);
}

PngWholeBuffer::PngWholeBuffer() = default;
PngWholeBuffer::~PngWholeBuffer() = default;
PngWholeBuffer::PngWholeBuffer(PngWholeBuffer&&) noexcept = default;
PngWholeBuffer& PngWholeBuffer::operator=(PngWholeBuffer&&) noexcept = default;

int FilterPixelBytes(const PngHeader& header) {
  const int bits = Channels(header.color_type) * header.bit_depth;
  return bits < 8 ? 1 : bits / 8;
}

int64_t PngWholeBuffer::RowsBytes(const PngHeader& header) {
  return InflatedBytes(header) + static_cast<int64_t>(kUnfilterReadPastEnd);
}

int64_t PngWholeBuffer::RowsBytes(int width, int height, int stored_pixel_bytes) {
  return int64_t{height} * (1 + int64_t{width} * stored_pixel_bytes) +
         static_cast<int64_t>(kUnfilterReadPastEnd);
}

int64_t PngWholeBuffer::ScratchNeeded(std::span<const uint8_t> file, const PngHeader& header,
                                      size_t join_room) const {
  size_t data_bytes = 0;
  size_t chunks = 0;
  CountImageData(file, &data_bytes, &chunks);
  const bool joined_here = chunks > 1 && data_bytes > join_room;
  return std::max(static_cast<int64_t>(rows_.capacity()), RowsBytes(header)) +
         static_cast<int64_t>(joined_here ? std::max(joined_.capacity(), data_bytes)
                                          : joined_.capacity());
}

bool PngWholeBuffer::Inflate(std::span<const uint8_t> file, const PngHeader& header,
                             std::span<uint8_t> join_room) {
  std::span<const uint8_t> stream;
  if (!GatherImageData(file, join_room, &joined_, &stream)) return false;
  if (!decompressor_) {
    decompressor_.reset(libdeflate_alloc_decompressor());
    if (!decompressor_) throw std::bad_alloc();
  }
  // The unfiltering's reads past the last row land in the padding.
  uint8_t* const rows = GrowScratch(&rows_, static_cast<size_t>(RowsBytes(header)));
  // No actual_out: the stream must fill the rows exactly (a shorter one is
  // LIBDEFLATE_SHORT_OUTPUT, a longer one LIBDEFLATE_INSUFFICIENT_SPACE).
  // Bytes after the stream's Adler-32 are ignored, as libspng ignores them.
  return libdeflate_zlib_decompress(decompressor_.get(), stream.data(), stream.size(), rows,
                                    static_cast<size_t>(InflatedBytes(header)),
                                    nullptr) == LIBDEFLATE_SUCCESS;
}

void PngWholeBuffer::Reserve(size_t rows_bytes) { rows_.reserve(rows_bytes); }

void PngWholeBuffer::ShrinkTo(size_t keep_rows_bytes) {
  if (rows_.capacity() > keep_rows_bytes) {
    std::vector<uint8_t>().swap(rows_);
    rows_.reserve(keep_rows_bytes);
  }
  std::vector<uint8_t>().swap(joined_);
}

// PngDecoder's hold on this path (png_decoder.h), beside the path it holds.

PngWholeBuffer& PngDecoder::Whole() {
  if (!whole_) whole_.reset(new PngWholeBuffer());
  return *whole_;
}

int64_t PngDecoder::WholeBufferRowsBytes(int width, int height, int stored_pixel_bytes) {
  return PngWholeBuffer::RowsBytes(width, height, stored_pixel_bytes);
}

void PngDecoder::ReserveWholeBuffer(size_t rows_bytes) {
  if (rows_bytes > 0) Whole().Reserve(rows_bytes);
}

void PngDecoder::ShrinkScratch(size_t keep_bytes, size_t keep_whole_rows_bytes) {
  if (row_.capacity() > keep_bytes) std::vector<uint8_t>().swap(row_);
  if (whole_) whole_->ShrinkTo(keep_whole_rows_bytes);
}

size_t PngDecoder::scratch_bytes() const {
  return row_.capacity() + (whole_ ? whole_->scratch_bytes() : 0);
}

}  // namespace segfeed::decode
