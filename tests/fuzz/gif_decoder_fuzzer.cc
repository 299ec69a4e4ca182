// libFuzzer target for GifDecoder: any input must give an error or a mask
// of 0/1 bytes, never a crash, leak, hang or sanitizer report. When giflib's
// own line decoder also accepts the input, both masks must be identical:
// this checks our LZW decoder against giflib's on whatever the fuzzer finds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "fuzz/giflib_reference.h"
#include "io/gif_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;  // see jpeg_decoder_fuzzer.cc
  segfeed::internal::GifDecoder decoder(options);
  segfeed::internal::MaskImage mask;
  const std::span<const uint8_t> bytes(data, size);
  // Twice with one decoder: the second run reuses buffers sized by the first.
  for (int run = 0; run < 2; ++run) {
    if (!decoder.Decode(bytes, "fuzz.gif", &mask).ok()) return 0;
    if (mask.pixels.size() != static_cast<size_t>(mask.width) * mask.height) std::abort();
    for (uint8_t value : mask.pixels) {
      if (value > 1) std::abort();
    }
  }
  const auto reference = segfeed::testing::DecodeMaskWithGiflibLines(
      bytes, options.mask_threshold, options.max_pixels);
  if (reference && (reference->width != mask.width || reference->height != mask.height ||
                    reference->pixels != mask.pixels)) {
    std::fprintf(stderr, "GifDecoder and giflib's DGifGetLine disagree\n");
    std::abort();
  }
  return 0;
}
