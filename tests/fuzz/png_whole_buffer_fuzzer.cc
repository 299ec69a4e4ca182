// libFuzzer target for PngDecoder's whole-buffer path (png_whole_buffer.h)
// against libspng: for every input, PngDecoder and libspng's own decode of
// the file (configured as PngDecoder configures it: ancillary CRC errors
// skipped, the chunk limits, the image data and the chunks after it read to
// IEND) must both accept or both refuse, and when both accept give equal
// samples and photo pixels. The whole-buffer path leaves every file it does
// not take to libspng, so a disagreement means it took a file that libspng
// refuses, or unfiltered or converted it differently.
// Stateful: one decoder serves every input, as in a loader thread.
#include <spng.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "decode/png_decoder.h"
#include "decode/png_scanlines.h"
#include "decode/png_whole_buffer.h"

namespace {

using segfeed::decode::DecodedImage;
using segfeed::decode::MaskSamples;
using segfeed::decode::PngDecoder;
using segfeed::decode::PngHeader;

constexpr int64_t kMaxPixels = 4'000'000;  // see jpeg_decoder_fuzzer.cc

void Check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

// libspng's decode of the whole file to `format` (and the chunks after the
// image data, as PngDecoder reads them); empty when libspng refuses it.
std::vector<uint8_t> SpngDecode(std::span<const uint8_t> bytes, int format, spng_plte* plte) {
  std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(0), spng_ctx_free);
  spng_set_image_limits(ctx.get(), kMaxPixels, kMaxPixels);
  spng_set_chunk_limits(ctx.get(), bytes.size() ? bytes.size() : 1, size_t{8} << 20);
  spng_set_crc_action(ctx.get(), SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
  size_t size = 0;
  if (spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size()) ||
      spng_decoded_image_size(ctx.get(), format, &size))
    return {};
  std::vector<uint8_t> out(size);
  if (spng_decode_image(ctx.get(), out.data(), size, format, 0) || spng_decode_chunks(ctx.get()))
    return {};
  spng_ihdr ihdr{};
  spng_get_ihdr(ctx.get(), &ihdr);
  if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED && spng_get_plte(ctx.get(), plte)) return {};
  return out;
}

// PngDecoder's mask samples from libspng's SPNG_FMT_PNG rows, with
// PngDecoder's own placing of host-endian samples (libspng's path); empty
// when an index lies outside the palette (PngDecoder refuses that).
std::vector<uint8_t> ExpectedMask(const std::vector<uint8_t>& stored, const PngHeader& header,
                                  const spng_plte& plte) {
  using segfeed::decode::MaskFormatOf;
  using segfeed::decode::MaskPixelBytes;
  const auto row_bytes = static_cast<size_t>(header.width) * MaskPixelBytes(MaskFormatOf(header));
  const auto stored_row = static_cast<size_t>(segfeed::decode::StoredRowBytes(header));
  std::vector<uint8_t> mask(row_bytes * header.height);
  for (int y = 0; y < header.height; ++y) {
    uint8_t* dst = mask.data() + y * row_bytes;
    segfeed::decode::PlaceMaskPixels(header, {}, header.width, stored.data() + y * stored_row, dst);
    if (header.color_type == SPNG_COLOR_TYPE_INDEXED &&
        segfeed::decode::FirstIndexOutside(dst, header.width, 1, plte.n_entries) >= 0)
      return {};
  }
  return mask;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static PngDecoder decoder = [] {
    segfeed::DecodeOptions options;
    options.max_pixels = kMaxPixels;
    return PngDecoder(options);
  }();
  const std::span<const uint8_t> bytes(data, size);
  const auto header = decoder.ReadHeader(bytes, "fuzz.png", segfeed::ErrorKind::kCorruptMask);
  if (!header.ok() || header.value().interlaced) return 0;  // Adam7: libspng's alone
  spng_plte plte{};
  const std::vector<uint8_t> stored = SpngDecode(bytes, SPNG_FMT_PNG, &plte);
  const std::vector<uint8_t> expected_mask =
      stored.empty() ? stored : ExpectedMask(stored, header.value(), plte);
  MaskSamples mask;
  const bool mask_ok = decoder.DecodeMask(bytes, "fuzz.png", &mask).ok();
  Check(mask_ok == !expected_mask.empty(), "PngDecoder and libspng disagree on accepting a mask");
  if (mask_ok) Check(mask.bytes == expected_mask, "mask samples differ from libspng's");

  const std::vector<uint8_t> expected_image = SpngDecode(bytes, SPNG_FMT_RGB8, &plte);
  DecodedImage image;
  const bool image_ok = decoder.DecodeImage(bytes, "fuzz.png", &image).ok();
  // A palette index outside the PLTE: libspng expands it, PngDecoder refuses.
  const bool index_outside = !stored.empty() && expected_mask.empty();
  Check(image_ok == (!expected_image.empty() && !index_outside),
        "PngDecoder and libspng disagree on accepting a photo");
  if (image_ok) Check(image.pixels == expected_image, "photo pixels differ from libspng's");
  return 0;
}
