#include "decode/decode_budget.h"

#include <gtest/gtest.h>

namespace segfeed::decode {
namespace {

// One sentence for every decoder's refusal, naming what was asked and what
// was left, so scripts and people read photos and masks, PNG and GIF, alike.
TEST(DecodeBudgetTest, NamesTheFileWhatItNeedsAndWhatWasLeft) {
  const Error error =
      OverDecodeBudget("masks/a.gif", "GIF", "screen 64x32, frame 64x32", 4096, 2048);
  EXPECT_EQ(error.kind, ErrorKind::kTooLarge);
  EXPECT_EQ(error.path, "masks/a.gif");
  EXPECT_EQ(error.detail,
            "GIF needs 4096 bytes to decode (screen 64x32, frame 64x32), more than the 2048 bytes "
            "left of the decode budget");
}

}  // namespace
}  // namespace segfeed::decode
