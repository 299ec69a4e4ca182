#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace segfeed {

// FNV-1a, 64 bits, of the bytes added so far: stable across builds and
// platforms, enough to tell inputs apart (it guards against mistakes, not
// adversaries). The checkpoint digests (options, listing) are made with it,
// so changing it makes every saved LoaderState refuse to resume.
class Fnv1aDigest {
 public:
  void Add(std::string_view bytes) {
    for (const unsigned char byte : bytes) hash_ = (hash_ ^ byte) * kPrime;
  }
  uint64_t value() const { return hash_; }
  // The value as 16 lowercase hex digits.
  std::string Hex() const {
    std::string hex(16, '0');
    uint64_t h = hash_;
    for (int i = 15; i >= 0; --i, h >>= 4) hex[i] = "0123456789abcdef"[h & 15];
    return hex;
  }

 private:
  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
  static constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t hash_ = kOffsetBasis;
};

}  // namespace segfeed
