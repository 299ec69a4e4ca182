#pragma once

#include <optional>

#include "io/file_reader.h"
#include "io/gif_decoder.h"
#include "io/jpeg_decoder.h"
#include "result.h"
#include "segfeed/dataset.h"

namespace segfeed::internal {

// Reads and decodes one image/mask pair into buffers it keeps and reuses:
// the per-thread scratch of the decode stage (two file buffers, the decoded
// image at its DCT scale, the decoded mask). One per thread; not
// thread-safe. After the first few samples it allocates no pixel memory.
class PairReader {
 public:
  // Throws std::bad_alloc if the JPEG decoder cannot be created.
  explicit PairReader(const DecodeOptions& options);

  // Reads `pair`, decodes the mask at full resolution and the image at the
  // smallest DCT scale still at least target_width x target_height (full
  // size when a target is <= 0). Checks that the image's and the mask's
  // full-resolution sizes agree (size_mismatch, naming the image and the
  // mask) before decoding the image. Every error names the file at fault.
  // A mask with more than two colours is not an error here: it is
  // thresholded, and mask_warning() holds a non_binary_mask Error for the
  // checker to report.
  Status Read(const SamplePair& pair, int target_width, int target_height);

  // Valid after a successful Read(), until the next Read().
  const JpegHeader& image_header() const { return image_header_; }  // full resolution
  DctScale image_scale() const { return image_scale_; }
  const RgbImage& image() const { return image_; }  // at image_scale()
  const MaskImage& mask() const { return mask_; }   // at full resolution
  // Bytes of per-thread scratch this reader holds now (file buffers,
  // decoded image and mask, GIF buffers), for the memory report. It grows
  // to the largest sample seen and then stays.
  size_t scratch_bytes() const {
    return image_file_.capacity_bytes() + mask_file_.capacity_bytes() + image_.pixels.capacity() +
           mask_.pixels.capacity() + gif_.scratch_bytes();
  }
  // non_binary_mask naming the mask when it used more than two colours.
  const std::optional<Error>& mask_warning() const { return mask_warning_; }

 private:
  FileReader image_file_;
  FileReader mask_file_;
  JpegDecoder jpeg_;
  GifDecoder gif_;
  int threshold_;  // for the non_binary_mask message
  JpegHeader image_header_;
  DctScale image_scale_;
  RgbImage image_;
  MaskImage mask_;
  std::optional<Error> mask_warning_;
};

}  // namespace segfeed::internal
