#include "augment/window_level_count.h"

#include <algorithm>
#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  } else {
    runs->push_back({index, 1});
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The output columns of a row: positions start + step * x (16.16) for x in
// [0, count), step != 0.
struct ColumnPositions {
  int64_t start, step;
  int count;

  // How many of them read a source index below `index`: positions below
  // index << 16 (floor(position / 2^16) < index <=> position < that).
  int64_t Below(int64_t index) const {
    const int64_t bound = index << kFracBits;
    // step > 0: the x before which positions lie below the bound,
    // ceil((bound - start) / step); step < 0: the first x from which they do.
    const int64_t x =
        step > 0 ? -FloorDiv(start - bound, step) : FloorDiv(start - bound, -step) + 1;
    const int64_t clamped = std::clamp<int64_t>(x, 0, count);
    return step > 0 ? clamped : count - clamped;
  }
};

// Adds `repeats` x the output pixels of one source row of labels (`row`)
// to `counts`, where each output column reads the index of its position
// (no column reflected): a run of one label in the row counts the output
// columns reading it at once, so the cost is the row's bytes, compared 16
// at a time, and its runs, not the output's pixels. Reads [first, last).
void CountRowByRuns(const uint8_t* row, int first, int last, const ColumnPositions& columns,
                    int64_t repeats, LevelCounts* counts) {
  int run_start = first;
  // Columns reading an index below the run's start: a boundary's count
  // serves the run that ends there and the one that starts.
  int64_t below_start = columns.Below(first);
  int i = first;
  while (i + 1 < last) {
#if defined(__SSE2__)
    if (i + 17 <= last) {
      const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
      const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i + 1));
      const unsigned differ =
          ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(here, next))) & 0xFFFFu;
      if (differ == 0) {
        i += 16;
        continue;
      }
      i += __builtin_ctz(differ);
    } else if (row[i] == row[i + 1]) {
      ++i;
      continue;
    }
#else
    if (row[i] == row[i + 1]) {
      ++i;
      continue;
    }
#endif
    // Row[i] ends a run.
    const int64_t below_end = columns.Below(i + 1);
    (*counts)[row[run_start]] += repeats * (below_end - below_start);
    below_start = below_end;
    run_start = ++i;
  }
  (*counts)[row[run_start]] += repeats * (columns.Below(last) - below_start);
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
  // The columns' indices are monotone: the ends bound them. A column past
  // an edge that mirrors reads the reflected pixel (a window at the edge,
  // rounded past it): left to the warp. One past an edge that fills reads
  // nothing; the others read their own index.
  const int64_t last_x = first.x + int64_t{first.x_step} * (width - 1);
  const int64_t low_index = std::min<int64_t>(first.x, last_x) >> kFracBits;
  const int64_t high_index = std::max<int64_t>(first.x, last_x) >> kFracBits;
  if ((low_index < 0 && border.mirror_left) || (high_index >= mask.width && border.mirror_right))
    return false;
  if (first.x_step == 0) return false;
  const ColumnPositions columns{first.x, first.x_step, width};
  const int low = static_cast<int>(std::max<int64_t>(low_index, 0));
  const int high = static_cast<int>(std::min<int64_t>(high_index + 1, mask.width));
  *counts = LevelCounts{};
  if (low >= high) return true;
  for (const IndexRun& row : scratch->rows)
    CountRowByRuns(mask.Row(row.index), low, high, columns, row.length, counts);
  return true;
}

}  // namespace segfeed::augment
