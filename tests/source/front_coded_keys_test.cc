#include "source/front_coded_keys.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace segfeed::source {
namespace {

// Keys with shared prefixes, none, an empty one, a long one (lengths over
// 127 take two varint bytes) and UTF-8, across several blocks.
std::vector<std::string> SomeKeys() {
  std::vector<std::string> keys = {"",
                                   "a",
                                   "aachen/aachen_000000_000019",
                                   std::string(300, 'x'),
                                   "aachen/aachen_000000_000020",
                                   "b",
                                   "straße/ü"};
  for (int i = 0; i < 40; ++i)
    keys.push_back(std::string("train/city_").append(std::to_string(1000 - i)));
  return keys;
}

TEST(FrontCodedKeysTest, EveryKeyReadsBack) {
  FrontCodedKeys keys;
  const std::vector<std::string> added = SomeKeys();
  for (const std::string& key : added) keys.Append(key);
  ASSERT_EQ(keys.size(), added.size());
  EXPECT_EQ(keys.block_starts().size(), (added.size() + 15) / 16);
  for (size_t i = 0; i < added.size(); ++i) EXPECT_EQ(keys.Key(i), added[i]) << i;
  // Shared prefixes are stored once.
  size_t text = 0;
  for (const std::string& key : added) text += key.size();
  EXPECT_LT(keys.arena().size(), text);

  Result<FrontCodedKeys> read =
      FrontCodedKeys::FromParts(keys.size(), keys.block_starts(), keys.arena());
  ASSERT_TRUE(read.ok()) << read.error().Message();
  for (size_t i = 0; i < added.size(); ++i) EXPECT_EQ(read.value().Key(i), added[i]) << i;
}

TEST(FrontCodedKeysTest, TheLastKeyCanBeTakenBackAtABlocksStartToo) {
  FrontCodedKeys keys;
  for (int i = 0; i < 16; ++i) keys.Append(std::string("k").append(std::to_string(i)));
  keys.Append("k16");  // a block of its own
  keys.RemoveLast();
  EXPECT_EQ(keys.block_starts().size(), 1u);
  keys.Append("k16b");
  keys.RemoveLast();
  keys.Append("k15x");  // coded against k15 again
  ASSERT_EQ(keys.size(), 17u);
  EXPECT_EQ(keys.Key(15), "k15");
  EXPECT_EQ(keys.Key(16), "k15x");
}

TEST(FrontCodedKeysTest, DamagedPartsAreRefused) {
  FrontCodedKeys keys;
  for (const std::string& key : SomeKeys()) keys.Append(key);
  const std::string& arena = keys.arena();
  const std::vector<uint32_t>& starts = keys.block_starts();
  EXPECT_FALSE(FrontCodedKeys::FromParts(keys.size() + 1, starts, arena).ok());
  EXPECT_FALSE(FrontCodedKeys::FromParts(keys.size() - 1, starts, arena).ok());
  EXPECT_FALSE(FrontCodedKeys::FromParts(0, {}, "x").ok());
  std::vector<uint32_t> moved = starts;
  moved[1] += 1;
  EXPECT_FALSE(FrontCodedKeys::FromParts(keys.size(), moved, arena).ok());
  moved = starts;
  moved[2] = static_cast<uint32_t>(arena.size() + 10);
  EXPECT_FALSE(FrontCodedKeys::FromParts(keys.size(), moved, arena).ok());
  // Every prefix of the arena, and every byte changed, is refused or read
  // without reaching past it.
  for (size_t length = 0; length < arena.size(); ++length)
    EXPECT_FALSE(FrontCodedKeys::FromParts(keys.size(), starts, arena.substr(0, length)).ok());
  for (size_t at = 0; at < arena.size(); ++at) {
    std::string changed = arena;
    changed[at] = static_cast<char>(0xFF);
    (void)FrontCodedKeys::FromParts(keys.size(), starts, changed);
  }
}

TEST(FrontCodedKeysTest, NoKeys) {
  Result<FrontCodedKeys> read = FrontCodedKeys::FromParts(0, {}, "");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value().size(), 0u);
}

}  // namespace
}  // namespace segfeed::source
