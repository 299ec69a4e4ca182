#pragma once

// The opt-in lossy re-encode of `segfeed pack --photo-codec jpeg`: a PNG
// photo decoded to 8-bit RGB and encoded as a baseline JPEG (TurboJPEG,
// 4:2:0, accurate DCT) at the quality asked, then decoded again so the loss
// can be stated (the squared error against the PNG's pixels, for a PSNR).
// Datasets that ship PNG photos (Cityscapes) decode several times faster
// from JPEG; masks are never re-encoded.

#include <cstdint>
#include <span>
#include <string>

#include "result.h"

namespace segfeed::pack {

struct ReencodedPhoto {
  std::string jpeg;
  // Sum of squared differences over every sample (pixels x 3 channels) of
  // the JPEG's decode against the PNG's, and how many samples there were.
  double squared_error = 0;
  int64_t samples = 0;
};

// Re-encodes the PNG `png` (named `path` in errors) at `quality` (1-100).
// An error (corrupt_image) when the PNG does not decode.
Result<ReencodedPhoto> ReencodePngAsJpeg(std::span<const uint8_t> png, int quality,
                                         const std::string& path);

// 10 log10(255^2 / mean squared error), in dB; infinity for no error.
double PsnrDecibels(double squared_error, int64_t samples);

}  // namespace segfeed::pack
