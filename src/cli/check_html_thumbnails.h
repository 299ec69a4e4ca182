#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/pair_reader.h"
#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "segfeed/options.h"
#include "source/sample_source.h"

namespace segfeed::cli {

// The longest side of a thumbnail, pixels.
inline constexpr int kThumbnailSide = 160;
// Where a label map holds a value that is no class nor ignore
// (label_out_of_range), the thumbnail paints it this colour, over the
// overlay: pure red, which no VOC class colour is.
inline constexpr uint8_t kOutOfRangeColour[3] = {255, 0, 0};

// One picture of a thumbnail: a JPEG as a data URI, its size, and what it
// shows in words (the alt text and the caption; raw bytes, escaped by the
// report).
struct ThumbnailPanel {
  std::string data_uri;
  int width = 0;
  int height = 0;
  std::string alt;
  std::string caption;
};

// What a thumbnail draws: the photo with its mask overlaid in the preview's
// colours (OverlayPreviewMask()) when both decode at one size; a photo and
// a mask panel drawn at one scale when their sizes differ (size_mismatch:
// both sizes shown), or either alone when the other does not decode; no
// panel when neither does.
struct Thumbnail {
  std::string name;  // the pair's key, or the file's path when it is in no pair
  std::vector<ThumbnailPanel> panels;
  // Label values (class ids) present in the drawn mask, sorted, for the
  // legend; and whether ignore pixels or out-of-range values were drawn.
  std::vector<int> classes;
  bool ignore = false;
  bool out_of_range = false;
};

// Draws the report's thumbnails: decodes a pair (or one file) again, one at
// a time on the calling thread, with a PairReader under the check's decode
// limits (the photo at the DCT scale nearest above kThumbnailSide), scales
// it to at most kThumbnailSide pixels a side and encodes it as JPEG. A
// label map refused as label_out_of_range is read again with every value
// below the ignore value taken as a class, and its values that are no
// class are painted kOutOfRangeColour. Not thread-safe.
class PairThumbnails {
 public:
  // Reads the pairs of `listing` (the check's: CheckDataset() leaves it;
  // it must outlive this) and remembers which sample holds each of
  // `problem_paths`. An empty listing has no pairs to draw; files named by
  // path are still drawn.
  PairThumbnails(const Dataset& listing, const DecodeOptions& decode,
                 std::span<const std::string> problem_paths);
  ~PairThumbnails();

  size_t pair_count() const;
  // `count` distinct sample ids (all of them when there are fewer), a pure
  // function of `seed` and the pair count, in ascending order.
  std::vector<source::SampleId> SampleIds(size_t count, uint64_t seed) const;
  // The pair of sample `id`.
  Thumbnail Pair(source::SampleId id);
  // The pair `path` belongs to, or the file alone when it is none's (an
  // unpaired image or mask).
  Thumbnail ForFile(const std::string& path, bool is_mask);

 private:
  struct Decoded;
  Thumbnail Draw(const Decoded& image, const Decoded& mask, const std::string& name);
  Decoded ReadImage(std::optional<source::SampleId> id, const std::string& path);
  Decoded ReadMask(std::optional<source::SampleId> id, const std::string& path);

  DecodeOptions decode_;
  std::shared_ptr<source::SampleSource> source_;
  io::PairReader reader_;
  // Labels mode: the reader for masks refused as label_out_of_range.
  std::unique_ptr<io::PairReader> lenient_reader_;
  std::unordered_map<std::string, source::SampleId> sample_of_path_;
};

}  // namespace segfeed::cli
