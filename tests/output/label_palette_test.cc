#include "output/label_palette.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

namespace segfeed::output {
namespace {

TEST(LabelPaletteTest, VocColormapIsVocs) {
  const auto& map = VocColormap();
  EXPECT_EQ(map[0], (LabelRgb{0, 0, 0}));
  EXPECT_EQ(map[1], (LabelRgb{128, 0, 0}));
  EXPECT_EQ(map[2], (LabelRgb{0, 128, 0}));
  EXPECT_EQ(map[3], (LabelRgb{128, 128, 0}));
  EXPECT_EQ(map[4], (LabelRgb{0, 0, 128}));
  EXPECT_EQ(map[15], (LabelRgb{192, 128, 128}));  // person
  EXPECT_EQ(map[20], (LabelRgb{0, 64, 128}));     // tv/monitor
  EXPECT_EQ(map[255], (LabelRgb{224, 224, 192}));
  std::set<LabelRgb> distinct(map.begin(), map.end());
  EXPECT_EQ(distinct.size(), 256u);
}

TEST(LabelPaletteTest, UpTo21ClassesUsesVocColours) {
  for (int c = 0; c < 21; ++c) EXPECT_EQ(LabelColour(c, 21), VocColormap()[c]) << c;
  EXPECT_EQ(LabelColour(1, 2), (LabelRgb{128, 0, 0}));
}

TEST(LabelPaletteTest, ManyClassesGetWellSeparatedColours) {
  for (int num_classes : {22, 150, 256}) {
    EXPECT_EQ(LabelColour(0, num_classes), (LabelRgb{0, 0, 0}));
    std::set<LabelRgb> distinct;
    for (int c = 0; c < num_classes; ++c) {
      const LabelRgb colour = LabelColour(c, num_classes);
      EXPECT_NE(colour, kIgnoreColour) << c;
      distinct.insert(colour);
      if (c > 1) {
        // Neighbouring ids, which often are related classes, stay apart.
        const LabelRgb previous = LabelColour(c - 1, num_classes);
        int distance = 0;
        for (int k = 0; k < 3; ++k) distance += std::abs(colour[k] - previous[k]);
        EXPECT_GE(distance, 60) << c;
      }
    }
    EXPECT_EQ(distinct.size(), static_cast<size_t>(num_classes)) << num_classes;
  }
  // Deterministic: the same answer every call.
  EXPECT_EQ(LabelColour(77, 150), LabelColour(77, 150));
}

TEST(LabelPaletteTest, OutsideTheClassesIsTheIgnoreColour) {
  EXPECT_EQ(LabelColour(255, 5), kIgnoreColour);
  EXPECT_EQ(LabelColour(5, 5), kIgnoreColour);
  EXPECT_EQ(LabelColour(-1, 5), kIgnoreColour);
  EXPECT_EQ(LabelColour(255, 300), LabelColour(255, 300));
  EXPECT_NE(LabelColour(255, 300), kIgnoreColour);
}

}  // namespace
}  // namespace segfeed::output
