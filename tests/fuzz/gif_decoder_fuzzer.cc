// libFuzzer target for GifDecoder: any input must give an error or a mask
// of 0/1 bytes, never a crash, leak, hang or sanitizer report. When giflib's
// own line decoder also accepts the input, both masks must be identical:
// this checks our LZW decoder against giflib's on whatever the fuzzer finds.
// Stateful: one decoder serves every input, and after each one it decodes a
// fixed good interlaced GIF, which must come out exactly as from a fresh
// decoder, so any state an input leaves behind is a finding.
#include <gif_lib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "decode/gif_decoder.h"
#include "fuzz/giflib_reference.h"

namespace {

using segfeed::decode::GifDecoder;
using segfeed::decode::MaskImage;

segfeed::DecodeOptions FuzzOptions() {
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;  // see jpeg_decoder_fuzzer.cc
  return options;
}

int AppendToVector(GifFileType* gif, const GifByteType* data, int length) {
  auto* out = static_cast<std::vector<uint8_t>*>(gif->UserData);
  out->insert(out->end(), data, data + length);
  return length;
}

// A 40x30 interlaced two-colour mask with an offset frame smaller than the
// screen: the decoder's canvas, de-interlacing and palette paths.
std::vector<uint8_t> MakeGoodGif() {
  constexpr int kWidth = 40, kHeight = 30, kFrameWidth = 36, kFrameHeight = 26;
  std::vector<uint8_t> out;
  int error = 0;
  GifFileType* gif = EGifOpen(&out, AppendToVector, &error);
  const GifColorType colours[2] = {{0, 0, 0}, {255, 255, 255}};
  ColorMapObject* map = GifMakeMapObject(2, colours);
  bool ok = gif && map && EGifPutScreenDesc(gif, kWidth, kHeight, 1, 0, map) == GIF_OK &&
            EGifPutImageDesc(gif, 2, 3, kFrameWidth, kFrameHeight, true, nullptr) == GIF_OK;
  // Interlaced frames take their rows in GIF's four-pass order.
  constexpr int kFirstRow[4] = {0, 4, 2, 1}, kRowStep[4] = {8, 8, 4, 2};
  for (int pass = 0; ok && pass < 4; ++pass) {
    for (int y = kFirstRow[pass]; ok && y < kFrameHeight; y += kRowStep[pass]) {
      GifPixelType row[kFrameWidth];
      for (int x = 0; x < kFrameWidth; ++x)
        row[x] = static_cast<GifPixelType>((x * x + 3 * y) % 7 < 3);
      ok = EGifPutLine(gif, row, kFrameWidth) == GIF_OK;
    }
  }
  GifFreeMapObject(map);
  if (!gif || EGifCloseFile(gif, &error) != GIF_OK || !ok) std::abort();
  return out;
}

MaskImage DecodeOrAbort(GifDecoder& decoder, std::span<const uint8_t> gif) {
  MaskImage mask;
  if (!decoder.Decode(gif, "good.gif", &mask).ok()) {
    std::fprintf(stderr, "the good GIF failed after the input\n");
    std::abort();
  }
  return mask;
}

struct Harness {
  std::vector<uint8_t> good = MakeGoodGif();
  MaskImage reference = [this] {
    GifDecoder fresh(FuzzOptions());
    return DecodeOrAbort(fresh, good);
  }();
  GifDecoder decoder{FuzzOptions()};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness harness;  // one decoder for the whole run: that is the point
  GifDecoder& decoder = harness.decoder;
  const segfeed::DecodeOptions options = FuzzOptions();
  MaskImage mask;
  const std::span<const uint8_t> bytes(data, size);
  // Twice: the second run reuses buffers sized by the first.
  bool decoded = true;
  for (int run = 0; run < 2 && decoded; ++run) {
    decoded = decoder.Decode(bytes, "fuzz.gif", &mask).ok();
    if (!decoded) break;
    if (mask.pixels.size() != static_cast<size_t>(mask.width) * mask.height) std::abort();
    for (uint8_t value : mask.pixels) {
      if (value > 1) std::abort();
    }
  }
  if (decoded) {
    const auto reference = segfeed::testing::DecodeMaskWithGiflibLines(
        bytes,
        options.mask_foreground == segfeed::MaskForeground::kLuminance
            ? std::optional<int>(options.mask_threshold)
            : std::nullopt,
        options.max_pixels);
    if (reference && (reference->width != mask.width || reference->height != mask.height ||
                      reference->pixels != mask.pixels)) {
      std::fprintf(stderr, "GifDecoder and giflib's DGifGetLine disagree\n");
      std::abort();
    }
  }
  const MaskImage good = DecodeOrAbort(decoder, harness.good);
  if (good.width != harness.reference.width || good.pixels != harness.reference.pixels) {
    std::fprintf(stderr, "the good GIF decoded differently after the input\n");
    std::abort();
  }
  return 0;
}
