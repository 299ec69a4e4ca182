// libFuzzer target for JpegDecoder: any input must give a header error, a
// decode error or pixels, never a crash, leak, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <span>

#include "io/jpeg_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A small limit keeps hostile headers from making every run allocate (and
  // zero) hundreds of megabytes, which would only measure the allocator.
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;
  // Both warning policies: with warnings ignored, libjpeg-turbo decodes
  // damaged data to the end, the deeper path.
  options.jpeg_warnings = (size % 2) ? segfeed::JpegWarnings::kAreIgnored
                                     : segfeed::JpegWarnings::kAreErrors;
  segfeed::internal::JpegDecoder decoder(options);
  segfeed::internal::RgbImage image;
  const std::span<const uint8_t> bytes(data, size);
  auto header = decoder.ReadHeader(bytes, "fuzz.jpg");
  if (!header.ok()) return 0;
  const int width = header.value().width;
  const int height = header.value().height;
  // Full size and a DCT-scaled size (scaled IDCT and upsampling paths).
  for (auto scale : {segfeed::internal::DctScale{},
                     decoder.ChooseScale(width, height, width / 3, height / 3)}) {
    (void)decoder.Decode(bytes, header.value(), scale, "fuzz.jpg", &image);
  }
  return 0;
}
