// The per-pixel scans of palette label maps: FirstIndexOutside (the check of
// each row's indices against the palette) and MapIndices (indices to mask
// values, with the set of indices seen), against one-pixel references, on
// maps of regions (where the vector paths take whole runs) with stray
// pixels at every position of a 16-sample step.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "decode/mask_values.h"
#include "decode/png_scanlines.h"

namespace segfeed::decode {
namespace {

// Runs of one index with a different one now and then.
std::vector<uint8_t> RegionRow(int count, uint32_t seed, uint8_t limit) {
  std::mt19937 random(seed);
  std::vector<uint8_t> row(static_cast<size_t>(count));
  uint8_t current = 0;
  for (auto& sample : row) {
    if (random() % 23 == 0) current = static_cast<uint8_t>(random() % limit);
    sample = random() % 41 == 0 ? static_cast<uint8_t>(random() % limit) : current;
  }
  return row;
}

int ReferenceFirstOutside(const std::vector<uint8_t>& row, uint32_t palette_size) {
  for (uint8_t index : row)
    if (index >= palette_size) return index;
  return -1;
}

TEST(LabelIndexScanTest, FirstIndexOutsideFindsTheFirstAtEveryPosition) {
  for (int count : {1, 15, 16, 17, 31, 32, 33, 500}) {
    std::vector<uint8_t> row = RegionRow(count, static_cast<uint32_t>(count), 21);
    EXPECT_EQ(FirstIndexOutside(row.data(), count, 1, 21), -1) << count;
    EXPECT_EQ(FirstIndexOutside(row.data(), count, 1, 256), -1) << count;
    for (int at = 0; at < count; ++at) {
      std::vector<uint8_t> bad = row;
      bad[static_cast<size_t>(at)] = static_cast<uint8_t>(21 + at % 235);
      if (at + 3 < count) bad[static_cast<size_t>(at + 3)] = 255;  // a later one is not reported
      ASSERT_EQ(FirstIndexOutside(bad.data(), count, 1, 21), ReferenceFirstOutside(bad, 21))
          << count << " at " << at;
      ASSERT_EQ(FirstIndexOutside(bad.data(), count, 1, 256), -1);
    }
  }
}

TEST(LabelIndexScanTest, WithNoPaletteTheFirstIndexIsOutside) {
  std::vector<uint8_t> row(48, 3);  // whole vector steps, no tail
  row[0] = 7;
  EXPECT_EQ(FirstIndexOutside(row.data(), 48, 1, 0), 7);
  EXPECT_EQ(FirstIndexOutside(row.data(), 0, 1, 0), -1);
}

TEST(LabelIndexScanTest, FirstIndexOutsideWithAStepReadsOnlyItsColumns) {
  // Adam7 passes hand every 2nd, 4th or 8th sample: the others may be anything.
  std::vector<uint8_t> row(64, 3);
  for (size_t i = 1; i < row.size(); i += 2) row[i] = 250;
  EXPECT_EQ(FirstIndexOutside(row.data(), 32, 2, 4), -1);
  row[40] = 9;
  EXPECT_EQ(FirstIndexOutside(row.data(), 32, 2, 4), 9);
}

TEST(LabelIndexScanTest, MapIndicesMatchesTheOnePixelMapping) {
  IndexValues values;
  for (int i = 0; i < 256; ++i)
    values.value[static_cast<size_t>(i)] = static_cast<uint8_t>(255 - i);
  for (int count : {0, 1, 15, 16, 17, 33, 4000}) {
    for (bool in_place : {false, true}) {
      for (uint8_t limit : {uint8_t{3}, uint8_t{21}, uint8_t{255}}) {
        const std::vector<uint8_t> in =
            RegionRow(count, static_cast<uint32_t>(count * 7 + limit), limit);
        std::vector<uint8_t> want(in.size());
        std::array<bool, 256> want_used{};
        for (size_t i = 0; i < in.size(); ++i) {
          want[i] = values.value[in[i]];
          want_used[in[i]] = true;
        }
        std::vector<uint8_t> out = in;
        const std::vector<uint8_t> separate_in = in;
        std::array<bool, 256> used{};
        MapIndices(values, in_place ? out.data() : separate_in.data(), out.data(), in.size(),
                   &used);
        EXPECT_EQ(out, want) << count << " in place " << in_place;
        EXPECT_EQ(used, want_used) << count << " in place " << in_place;
      }
    }
  }
}

TEST(LabelIndexScanTest, MapIndicesMarksAOneSampleStrayInAnyPosition) {
  IndexValues values;
  for (int i = 0; i < 256; ++i) values.value[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  for (int at = 0; at < 48; ++at) {
    std::vector<uint8_t> in(48, 5), out(48);
    in[static_cast<size_t>(at)] = 77;
    std::array<bool, 256> used{};
    MapIndices(values, in.data(), out.data(), in.size(), &used);
    EXPECT_TRUE(used[77]) << at;
    EXPECT_TRUE(used[5]) << at;
    EXPECT_EQ(out, in) << at;
  }
}

}  // namespace
}  // namespace segfeed::decode
