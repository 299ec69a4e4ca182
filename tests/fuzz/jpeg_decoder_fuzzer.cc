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

#include "decode/jpeg_decoder.h"

namespace {

using segfeed::decode::DctScale;
using segfeed::decode::DecodedImage;
using segfeed::decode::JpegDecoder;

segfeed::DecodeOptions FuzzOptions(segfeed::JpegWarnings warnings,
                                   segfeed::DecodeColour colour = segfeed::DecodeColour::kRgb) {
  // A small limit keeps hostile headers from making every run allocate (and
  // zero) hundreds of megabytes, which would only measure the allocator.
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;
  options.jpeg_warnings = warnings;
  options.decode_colour = colour;
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

DecodedImage DecodeOrAbort(JpegDecoder& decoder, std::span<const uint8_t> jpeg) {
  DecodedImage image;
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
  // Both warning policies: with warnings ignored, libjpeg-turbo decodes
  // damaged data to the end, the deeper path; and the YCbCr planes.
  segfeed::DecodeOptions options[3] = {
      FuzzOptions(segfeed::JpegWarnings::kAreErrors),
      FuzzOptions(segfeed::JpegWarnings::kAreIgnored),
      FuzzOptions(segfeed::JpegWarnings::kAreIgnored, segfeed::DecodeColour::kYCbCr)};
  DecodedImage references[3] = {Reference(options[0]), Reference(options[1]),
                                Reference(options[2])};
  JpegDecoder decoders[3] = {JpegDecoder(options[0]), JpegDecoder(options[1]),
                             JpegDecoder(options[2])};

  DecodedImage Reference(const segfeed::DecodeOptions& decode) {
    JpegDecoder fresh(decode);
    return DecodeOrAbort(fresh, good);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness harness;  // the same decoders for the whole run: that is the point
  const size_t which = size % 3;
  JpegDecoder& decoder = harness.decoders[which];
  DecodedImage image;
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
  const DecodedImage good = DecodeOrAbort(decoder, harness.good);
  const DecodedImage& reference = harness.references[which];
  if (good.width != reference.width || good.pixels != reference.pixels) {
    std::fprintf(stderr, "the good JPEG decoded differently after the input\n");
    std::abort();
  }
  return 0;
}
