// libFuzzer target for JpegDecoder: any input must give a header error, a
// decode error or pixels, never a crash, leak, hang or sanitizer report.
// Stateful: one decoder serves every input, and after each one it decodes a
// fixed good JPEG, which must come out exactly as from a fresh decoder, so
// any state an input leaves behind (tables, an error) is a finding.
#include <turbojpeg.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "io/jpeg_decoder.h"

namespace {

using segfeed::internal::DctScale;
using segfeed::internal::JpegDecoder;
using segfeed::internal::RgbImage;

segfeed::DecodeOptions FuzzOptions(segfeed::JpegWarnings warnings) {
  // A small limit keeps hostile headers from making every run allocate (and
  // zero) hundreds of megabytes, which would only measure the allocator.
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;
  options.jpeg_warnings = warnings;
  return options;
}

// A 64x48 gradient, 4:2:0, quality 75: its own tables and Huffman codes.
std::vector<uint8_t> MakeGoodJpeg() {
  constexpr int kWidth = 64, kHeight = 48;
  std::vector<uint8_t> rgb(kWidth * kHeight * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>((i * 7) ^ (i / 192));
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (!handle || tjCompress2(handle, rgb.data(), kWidth, 0, kHeight, TJPF_RGB, &jpeg, &size,
                             TJSAMP_420, 75, 0) != 0) {
    std::abort();
  }
  std::vector<uint8_t> bytes(jpeg, jpeg + size);
  tjFree(jpeg);
  tjDestroy(handle);
  return bytes;
}

RgbImage DecodeOrAbort(JpegDecoder& decoder, std::span<const uint8_t> jpeg) {
  RgbImage image;
  auto header = decoder.ReadHeader(jpeg, "good.jpg");
  if (!header.ok() || !decoder.Decode(jpeg, header.value(), DctScale{}, "good.jpg", &image).ok()) {
    std::fprintf(stderr, "the good JPEG failed after the input: %s\n",
                 (header.ok() ? std::string("decode") : header.error().Message()).c_str());
    std::abort();
  }
  return image;
}

struct Harness {
  std::vector<uint8_t> good = MakeGoodJpeg();
  RgbImage reference = [this] {
    JpegDecoder fresh(FuzzOptions(segfeed::JpegWarnings::kAreErrors));
    return DecodeOrAbort(fresh, good);
  }();
  // Both warning policies: with warnings ignored, libjpeg-turbo decodes
  // damaged data to the end, the deeper path.
  JpegDecoder decoders[2] = {JpegDecoder(FuzzOptions(segfeed::JpegWarnings::kAreErrors)),
                             JpegDecoder(FuzzOptions(segfeed::JpegWarnings::kAreIgnored))};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness harness;  // the same decoders for the whole run: that is the point
  JpegDecoder& decoder = harness.decoders[size % 2];
  RgbImage image;
  const std::span<const uint8_t> bytes(data, size);
  auto header = decoder.ReadHeader(bytes, "fuzz.jpg");
  if (header.ok()) {
    const int width = header.value().width;
    const int height = header.value().height;
    // Full size and a DCT-scaled size (scaled IDCT and upsampling paths).
    for (auto scale : {DctScale{}, decoder.ChooseScale(width, height, width / 3, height / 3)}) {
      (void)decoder.Decode(bytes, header.value(), scale, "fuzz.jpg", &image);
    }
  }
  const RgbImage good = DecodeOrAbort(decoder, harness.good);
  if (good.width != harness.reference.width || good.pixels != harness.reference.pixels) {
    std::fprintf(stderr, "the good JPEG decoded differently after the input\n");
    std::abort();
  }
  return 0;
}
