#include "source/front_coded_keys.h"

#include <algorithm>
#include <utility>

namespace segfeed::source {
namespace {

void PutVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// Reads a varint at `*at`, advancing it; false past `end` or beyond 32 bits
// (no key is that long).
bool GetVarint(const std::string& arena, size_t end, size_t* at, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (*at >= end) return false;
    const auto byte = static_cast<uint8_t>(arena[(*at)++]);
    *value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return *value <= UINT32_MAX;
  }
  return false;
}

// Decodes the key at `*at` after `previous` into `previous`; false when the
// bytes up to `end` do not hold one.
bool NextKey(const std::string& arena, size_t end, size_t* at, std::string* previous) {
  uint64_t shared = 0, rest = 0;
  if (!GetVarint(arena, end, at, &shared) || !GetVarint(arena, end, at, &rest)) return false;
  if (shared > previous->size() || rest > end - *at) return false;
  previous->resize(shared);
  previous->append(arena, *at, rest);
  *at += rest;
  return true;
}

}  // namespace

void FrontCodedKeys::Append(std::string_view key) {
  last_begin_ = arena_.size();
  size_t shared = 0;
  if (count_ % kKeysPerBlock == 0) {
    block_starts_.push_back(static_cast<uint32_t>(arena_.size()));
  } else {
    const size_t most = std::min(key.size(), last_key_.size());
    while (shared < most && key[shared] == last_key_[shared]) ++shared;
  }
  PutVarint(&arena_, shared);
  PutVarint(&arena_, key.size() - shared);
  arena_.append(key.substr(shared));
  last_key_.assign(key);
  ++count_;
}

void FrontCodedKeys::RemoveLast() {
  arena_.resize(last_begin_);
  if (count_ % kKeysPerBlock == 1) block_starts_.pop_back();
  --count_;
  last_key_ = count_ > 0 ? Key(count_ - 1) : std::string();
  // Where the key before it began is not needed: only the last key is
  // ever taken back, once.
}

void FrontCodedKeys::ShrinkToFit() {
  arena_.shrink_to_fit();
  block_starts_.shrink_to_fit();
}

std::string FrontCodedKeys::Key(size_t index) const {
  const size_t block = index / kKeysPerBlock;
  size_t at = block_starts_[block];
  const size_t end = block + 1 < block_starts_.size() ? block_starts_[block + 1] : arena_.size();
  std::string key;
  for (size_t i = block * kKeysPerBlock; i <= index; ++i) NextKey(arena_, end, &at, &key);
  return key;
}

Result<FrontCodedKeys> FrontCodedKeys::FromParts(size_t count, std::vector<uint32_t> block_starts,
                                                 std::string arena) {
  const auto error = [](const std::string& detail) {
    return Error{ErrorKind::kIoError, "shard catalog", "the keys: " + detail};
  };
  if (block_starts.size() != (count + kKeysPerBlock - 1) / kKeysPerBlock ||
      (count == 0 && !arena.empty()))
    return error("the block table does not match the sample count");
  std::string key;
  for (size_t block = 0; block < block_starts.size(); ++block) {
    const size_t end = block + 1 < block_starts.size() ? block_starts[block + 1] : arena.size();
    size_t at = block_starts[block];
    if (at > end || end > arena.size() || (block == 0 && at != 0))
      return error("block " + std::to_string(block) + " is out of place");
    const size_t keys = std::min(kKeysPerBlock, count - block * kKeysPerBlock);
    key.clear();
    for (size_t i = 0; i < keys; ++i) {
      if (i == 0 && (at >= end || arena[at] != 0))
        return error("block " + std::to_string(block) + " does not start with a whole key");
      if (!NextKey(arena, end, &at, &key))
        return error("key " + std::to_string(block * kKeysPerBlock + i) + " cannot be read");
    }
    if (at != end) return error("block " + std::to_string(block) + " holds more than its keys");
  }
  FrontCodedKeys keys;
  keys.count_ = count;
  keys.block_starts_ = std::move(block_starts);
  keys.arena_ = std::move(arena);
  keys.last_key_ = std::move(key);
  return keys;
}

}  // namespace segfeed::source
