// libFuzzer target for JpegWindowDecoder: any input must give an error or
// pixels, never a crash, leak, hang or sanitizer report; where TurboJPEG's
// whole decode succeeds, the window must decode too, to the same pixels.
// Stateful: one decoder serves every input, and after each one it decodes a
// window of a fixed good JPEG, which must come out as the whole decode's.
#include <turbojpeg.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "decode/jpeg_decoder.h"
#include "decode/jpeg_window_decoder.h"

namespace {

using segfeed::decode::DctScale;
using segfeed::decode::DecodedImage;
using segfeed::decode::ImageWindow;
using segfeed::decode::JpegDecoder;
using segfeed::decode::JpegWindowDecoder;

segfeed::DecodeOptions FuzzOptions() {
  // A small limit keeps hostile headers from making every run allocate
  // hundreds of megabytes (see jpeg_decoder_fuzzer.cc).
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;
  return options;
}

// A 64x48 gradient, 4:2:0, quality 75.
std::vector<uint8_t> MakeGoodJpeg() {
  constexpr int kWidth = 64, kHeight = 48;
  std::vector<uint8_t> rgb(kWidth * kHeight * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>((i * 7) ^ (i / 192));
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;  // NOLINT(runtime/int): TurboJPEG's type
  if (!handle || tjCompress2(handle, rgb.data(), kWidth, 0, kHeight, TJPF_RGB, &jpeg, &size,
                             TJSAMP_420, 75, 0) != 0) {
    std::abort();
  }
  std::vector<uint8_t> bytes(jpeg, jpeg + size);
  tjFree(jpeg);
  tjDestroy(handle);
  return bytes;
}

// Aborts unless every pixel of `window` is the same in both images.
void ExpectWindowEqual(const DecodedImage& part, const DecodedImage& whole,
                       const ImageWindow& window, const char* what) {
  bool same = part.width == whole.width && part.height == whole.height;
  for (int y = window.y; same && y < window.y + window.height; ++y) {
    const size_t row = (static_cast<size_t>(y) * whole.width + window.x) * 3;
    same = std::equal(whole.pixels.begin() + row,
                      whole.pixels.begin() + row + static_cast<size_t>(window.width) * 3,
                      part.pixels.begin() + row);
  }
  if (same) return;
  std::fprintf(stderr, "%s: the window differs from the whole decode\n", what);
  std::abort();
}

// A window of an image of width x height from two input bytes.
ImageWindow WindowFrom(int width, int height, uint8_t a, uint8_t b) {
  const int x = width * (a & 15) / 16, y = height * (a >> 4) / 16;
  const int w = std::max(1, (width - x) * ((b & 15) + 1) / 16);
  const int h = std::max(1, (height - y) * ((b >> 4) + 1) / 16);
  return {x, y, w, h};
}

struct Harness {
  std::vector<uint8_t> good = MakeGoodJpeg();
  JpegDecoder whole{FuzzOptions()};
  JpegWindowDecoder window{FuzzOptions()};
  DecodedImage good_whole;
  Harness() {
    auto header = whole.ReadHeader(good, "good.jpg");
    if (!header.ok() ||
        !whole.Decode(good, header.value(), DctScale{}, "good.jpg", &good_whole).ok())
      std::abort();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness harness;  // the same decoders for the whole run: that is the point
  const std::span<const uint8_t> bytes(data, size);
  auto header = harness.whole.ReadHeader(bytes, "fuzz.jpg");
  DecodedImage part;
  if (header.ok() && size >= 2) {
    const int width = header.value().width, height = header.value().height;
    for (auto scale :
         {DctScale{}, harness.whole.ChooseScale(width, height, width / 3, height / 3)}) {
      const ImageWindow window =
          WindowFrom(scale.Apply(width), scale.Apply(height), data[size - 1], data[size - 2]);
      const bool window_ok = harness.window.Decode(bytes, scale, window, "fuzz.jpg", &part).ok();
      DecodedImage whole;
      const bool whole_ok =
          harness.whole.Decode(bytes, header.value(), scale, "fuzz.jpg", &whole).ok();
      if (whole_ok && !window_ok) {
        std::fprintf(stderr, "the window failed where the whole decode succeeded\n");
        std::abort();
      }
      if (whole_ok) ExpectWindowEqual(part, whole, window, "input");
    }
  }
  const ImageWindow good_window{24, 16, 20, 14};
  if (!harness.window.Decode(harness.good, DctScale{}, good_window, "good.jpg", &part).ok()) {
    std::fprintf(stderr, "the good JPEG failed after the input\n");
    std::abort();
  }
  ExpectWindowEqual(part, harness.good_whole, good_window, "the good JPEG after the input");
  return 0;
}
