// bench's stage table (stage_table.h): labels made from the field list's
// names, one line per stage that had time, and the shares of the time.
#include "cli/stage_table.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "segfeed/loader.h"

namespace segfeed::cli {
namespace {

TEST(StageTableTest, DecodeStagesReadAsFormatAndRole) {
  EXPECT_EQ(StageLabel("decode_photo_jpeg"), "JPEG decode (photos)");
  EXPECT_EQ(StageLabel("decode_photo_jpeg_roi"), "JPEG ROI decode (photos)");
  EXPECT_EQ(StageLabel("decode_photo_png"), "PNG decode (photos)");
  EXPECT_EQ(StageLabel("decode_mask_png"), "PNG decode (masks)");
  EXPECT_EQ(StageLabel("decode_mask_gif"), "GIF decode (masks)");
  EXPECT_EQ(StageLabel("read"), "read");
  EXPECT_EQ(StageLabel("consumer_wait"), "consumer wait");
}

// Every field of the list has a label of its own, so no two stages can be
// printed alike.
TEST(StageTableTest, EveryFieldHasItsOwnLabel) {
  std::vector<std::string> labels;
  ForEachField(StageSeconds{},
               [&](std::string_view name, const double&) { labels.push_back(StageLabel(name)); });
  EXPECT_EQ(labels.size(), 10u);
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = i + 1; j < labels.size(); ++j) EXPECT_NE(labels[i], labels[j]);
  }
}

TEST(StageTableTest, OneLinePerStageThatHadTimeWithItsShare) {
  StageSeconds stages;
  stages.read = 0.5;
  stages.decode_photo_png = 2.5;
  stages.decode_mask_gif = 1.0;
  stages.warp = 1.0;
  stages.consumer_wait = 7.25;
  EXPECT_EQ(StageTable(stages),
            "  stages (thread-seconds, all epochs):\n"
            "    read                    0.50   10%\n"
            "    PNG decode (photos)     2.50   50%\n"
            "    GIF decode (masks)      1.00   20%\n"
            "    warp                    1.00   20%\n"
            "  consumer waited 7.25 s\n");
}

TEST(StageTableTest, NoStageWithTimeLeavesTheHeadingAndTheWait) {
  EXPECT_EQ(StageTable(StageSeconds{}),
            "  stages (thread-seconds, all epochs):\n"
            "  consumer waited 0.00 s\n");
}

}  // namespace
}  // namespace segfeed::cli
