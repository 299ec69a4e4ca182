#pragma once

// The keys of a shard catalog, front-coded: sorted or not, the keys of a
// packed dataset share long prefixes with their neighbours
// ("train/aachen/aachen_000000_000019", "..._000020"), so each key is
// stored as the length of the prefix it shares with the key before it and
// the rest. Keys are grouped in blocks of kKeysPerBlock, each starting with
// a whole key, and a table holds where each block starts: Key(i) decodes at
// most kKeysPerBlock keys of one block, and a million keys of 30 bytes
// cost a few megabytes, not thirty.
//
// The arena's bytes, per key: a varint (LEB128) of the shared prefix's
// length (0 for a block's first key), a varint of the rest's length, the
// rest. docs/shards.md states it as the index stores it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace segfeed::source {

class FrontCodedKeys {
 public:
  static constexpr size_t kKeysPerBlock = 16;

  // Appends `key` as key size().
  void Append(std::string_view key);
  // Takes back the key appended last.
  void RemoveLast();
  void ShrinkToFit();

  size_t size() const { return count_; }
  std::string Key(size_t index) const;

  const std::string& arena() const { return arena_; }
  // Where block b (keys b * kKeysPerBlock, ...) starts in the arena.
  const std::vector<uint32_t>& block_starts() const { return block_starts_; }
  size_t held_bytes() const {
    return arena_.capacity() + block_starts_.capacity() * sizeof(uint32_t) + last_key_.capacity();
  }

  // Keys read from an index: `count` keys in `arena` with `block_starts`,
  // every key decoded once to check that the bytes hold exactly them. The
  // error says what is wrong.
  static Result<FrontCodedKeys> FromParts(size_t count, std::vector<uint32_t> block_starts,
                                          std::string arena);

 private:
  std::string arena_;
  std::vector<uint32_t> block_starts_;
  size_t count_ = 0;
  // The key appended last (the next one is coded against it), and where it
  // starts in the arena.
  std::string last_key_;
  size_t last_begin_ = 0;
};

}  // namespace segfeed::source
