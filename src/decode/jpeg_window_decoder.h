#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "decode/jpeg_decoder.h"
#include "result.h"
#include "segfeed/options.h"

namespace segfeed::decode {

// Decodes only a window of a JPEG photo with libjpeg's API (TurboJPEG 2.1
// has no cropping): the rows above the window are entropy-decoded and
// skipped (jpeg_skip_scanlines), the columns outside it are not converted
// (jpeg_crop_scanline), and the decode stops after the window's last row,
// so the rows below are never read. The window is widened by one iMCU on
// every side first: libjpeg's fancy upsampling of 4:2:0 and 4:2:2 chroma
// treats the first and last column (and row) of what it decodes as an
// edge, and a pixel one iMCU inside is computed from the same samples as in
// the whole decode. So every pixel of the window is the whole decode's, bit
// for bit (same IDCT, upsampling and colour conversion as TurboJPEG's RGB
// decode); tests/decode/jpeg_window_decoder_test.cc holds it to that.
//
// Every file gets a fresh libjpeg decompressor, destroyed before Decode()
// returns: nothing passes from one file to the next. libjpeg's errors
// longjmp back into the one function that called libjpeg, which holds no
// C++ object, so no destructor is ever skipped; nothing is printed.
// Warnings ("Premature end of JPEG file") are errors unless options say to
// ignore them, as with TurboJPEG. A file cut short after the window's last
// row decodes fine here: what the sample reads is intact (`segfeed check`
// decodes whole files and still reports it). One per thread; not
// thread-safe.
class JpegWindowDecoder {
 public:
  // Reads SEGFEED_JPEG_WINDOW, a switch for tests that compare the two
  // paths: "always" decodes every window given this way (progressive files
  // too, whatever its size, with the poison byte 0xA5 outside it), "never"
  // none; unset or anything else, Chooses() decides by measurement.
  explicit JpegWindowDecoder(const DecodeOptions& options);

  // Whether decoding `window` alone pays for `header`'s file at `scale`
  // (measured in BENCHMARKS.md, "Decoding only the window"): a file of one
  // scan whose window is at most kMaxWindowFraction of the image's area. A
  // progressive or multi-scan file is entropy-decoded whole before its
  // first row comes out, so the window saves only the inverse DCT and the
  // colour conversion: TurboJPEG decodes it. Never for a file of more
  // scans than TurboJPEG accepts (it refuses them).
  bool Chooses(const JpegHeader& header, DctScale scale, const ImageWindow& window) const;
  static constexpr double kMaxWindowFraction = 0.75;

  // Decodes the part of `jpeg` (its header accepted by JpegDecoder, which
  // also checked its limits) that covers `window` (in pixels at `scale`)
  // into `out`, RGB, at the whole image's size: rows and columns outside
  // the decoded rectangle (out->decoded, the window widened and aligned)
  // are left as they were and must not be read. corrupt_image naming
  // `path` with libjpeg's message on error.
  Status Decode(std::span<const uint8_t> jpeg, DctScale scale, const ImageWindow& window,
                std::string_view path, DecodedImage* out);

 private:
  enum class Mode { kMeasured, kAlways, kNever };
  DecodeOptions options_;
  Mode mode_ = Mode::kMeasured;
  int poison_byte_ = -1;
};

}  // namespace segfeed::decode
