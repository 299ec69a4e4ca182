#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace segfeed {

// A fast 64-bit digest of a byte stream, for comparing runs ("same seed,
// same bytes"), not for security. The value depends on the bytes and on how
// they are split into Update() calls only through their concatenation.
class Digest {
 public:
  void Update(const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    // Top up a partial word left by the previous call first.
    while (bytes > 0 && pending_bytes_ != 0) {
      Push(*p++);
      --bytes;
    }
    for (; bytes >= 8; bytes -= 8, p += 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      Mix(word);
    }
    while (bytes-- > 0) Push(*p++);
  }

  // The digest of everything so far (including the total length).
  uint64_t Value() const {
    uint64_t h = state_;
    if (pending_bytes_ != 0) h = Step(h, pending_);
    return Finish(Step(h, total_bytes_));
  }

  // Value() as 16 hex digits.
  std::string Hex() const {
    uint64_t h = Value();
    char text[17];
    for (int i = 15; i >= 0; --i, h >>= 4) text[i] = "0123456789abcdef"[h & 15];
    text[16] = '\0';
    return text;
  }

 private:
  static uint64_t Step(uint64_t h, uint64_t word) {
    h ^= word * 0x9E3779B97F4A7C15ull;
    h = (h << 27) | (h >> 37);
    return h * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
  }
  static uint64_t Finish(uint64_t h) {
    h ^= h >> 31;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 32);
  }
  void Mix(uint64_t word) {
    state_ = Step(state_, word);
    total_bytes_ += 8;
  }
  void Push(unsigned char byte) {
    pending_ |= static_cast<uint64_t>(byte) << (8 * pending_bytes_);
    if (++pending_bytes_ == 8) {
      Mix(pending_);
      pending_ = 0;
      pending_bytes_ = 0;
    }
  }

  uint64_t state_ = 0x243F6A8885A308D3ull;
  uint64_t total_bytes_ = 0;
  uint64_t pending_ = 0;
  int pending_bytes_ = 0;
};

}  // namespace segfeed
