#include "augment/window_level_count.h"

#include <cstddef>

#include "augment/fixed_point_positions.h"
#include "augment/warp_scalar.h"
#include "augment/window_geometry.h"

namespace segfeed::augment {
namespace {

// Adds the output pixel at source `index` (16.16 position floored) of one
// axis to `runs`: dropped where WarpNearestMask fills it (past an edge that
// does not mirror), else at its reflected index. The positions of an axis
// are monotone, so the pixels reading one index are adjacent and extend the
// last run.
void AddToRuns(int index, int size, bool mirror_low, bool mirror_high,
               std::vector<IndexRun>* runs) {
  if ((index < 0 && !mirror_low) || (index >= size && !mirror_high)) return;
  if (index < 0 || index >= size) index = ReflectIndex(index, size);
  if (!runs->empty() && runs->back().index == index) {
    ++runs->back().length;
    return;
  }
  runs->push_back({index, 1});
}

}  // namespace

LevelCounts CountLevels(const uint8_t* bytes, size_t size) {
  std::array<std::array<uint32_t, 256>, 4> tables{};
  size_t i = 0;
  for (; i + 4 <= size; i += 4) {
    ++tables[0][bytes[i]];
    ++tables[1][bytes[i + 1]];
    ++tables[2][bytes[i + 2]];
    ++tables[3][bytes[i + 3]];
  }
  for (; i < size; ++i) ++tables[0][bytes[i]];
  LevelCounts counts{};
  for (const auto& table : tables)
    for (int level = 0; level < 256; ++level) counts[level] += table[level];
  return counts;
}

bool CountWindowLevels(const AugmentOptions& options, const AugmentParams& params,
                       const RasterView& mask, LevelCountScratch* scratch, LevelCounts* counts) {
  const int width = options.output_width;
  const int height = options.output_height;
  // WarpMask's matrix, border and choice of warp.
  const WindowPlacement placement = PlaceWindow(options, params, mask.width, mask.height);
  const AffineMatrix m =
      OutputToSourceMatrix(params, placement, mask.width, mask.height, width, height);
  if (!FitsFixedPoint(m, width, height, mask)) return false;
  const Border border = BorderFor(options, placement);
  // Separable only when the warp's own positions say so: every row starts
  // at the same x and steps along x alone.
  const RowPositions first = PositionsOfRow(m, 0, kOne / 2);
  if (first.y_step != 0) return false;
  scratch->rows.clear();
  for (int y = 0; y < height; ++y) {
    const RowPositions row = PositionsOfRow(m, y, kOne / 2);
    if (row.x != first.x) return false;
    AddToRuns(row.y >> kFracBits, mask.height, border.mirror_top, border.mirror_bottom,
              &scratch->rows);
  }
  scratch->columns.clear();
  for (int x = 0; x < width; ++x)
    AddToRuns((first.x + first.x_step * x) >> kFracBits, mask.width, border.mirror_left,
              border.mirror_right, &scratch->columns);

  // Four tables, as CountLevels(): runs of one class alternate between them.
  std::array<LevelCounts, 4> tables{};
  const std::vector<IndexRun>& columns = scratch->columns;
  const size_t column_count = columns.size();
  for (const IndexRun& row : scratch->rows) {
    const uint8_t* pixels = mask.Row(row.index);
    const int64_t repeats = row.length;
    size_t i = 0;
    for (; i + 4 <= column_count; i += 4) {
      tables[0][pixels[columns[i].index]] += repeats * columns[i].length;
      tables[1][pixels[columns[i + 1].index]] += repeats * columns[i + 1].length;
      tables[2][pixels[columns[i + 2].index]] += repeats * columns[i + 2].length;
      tables[3][pixels[columns[i + 3].index]] += repeats * columns[i + 3].length;
    }
    for (; i < column_count; ++i)
      tables[0][pixels[columns[i].index]] += repeats * columns[i].length;
  }
  *counts = LevelCounts{};
  for (const LevelCounts& table : tables)
    for (int level = 0; level < 256; ++level) (*counts)[level] += table[level];
  return true;
}

}  // namespace segfeed::augment
