// libFuzzer target for PngDecoder: any input must give an error or pixels
// whose sizes match the header, never a crash, leak, hang or sanitizer
// report. A grey or palette mask of up to 8 bits is also decoded by libspng
// in one call (its own de-interlacing and layout) and must equal ours: this
// checks our unpacking and Adam7 placement on whatever the fuzzer finds.
// Stateful: one decoder serves every input, and after each one it decodes
// a fixed good interlaced mask and photo, which must come out exactly as
// from a fresh decoder, so any state an input leaves behind is a finding.
#include <spng.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "decode/png_decoder.h"

namespace {

using segfeed::decode::DecodedImage;
using segfeed::decode::MaskSampleFormat;
using segfeed::decode::MaskSamples;
using segfeed::decode::PngDecoder;
using segfeed::decode::PngHeader;

segfeed::DecodeOptions FuzzOptions() {
  segfeed::DecodeOptions options;
  options.max_pixels = 4'000'000;  // see jpeg_decoder_fuzzer.cc
  return options;
}

void Check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

// An interlaced PNG of `samples` (stored form) with the given layout.
std::vector<uint8_t> Encode(int width, int height, int bit_depth, int color_type,
                            const std::vector<uint8_t>& samples, int palette_size) {
  spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(width);
  ihdr.height = static_cast<uint32_t>(height);
  ihdr.bit_depth = static_cast<uint8_t>(bit_depth);
  ihdr.color_type = static_cast<uint8_t>(color_type);
  ihdr.interlace_method = SPNG_INTERLACE_ADAM7;
  int error = spng_set_ihdr(ctx, &ihdr);
  if (palette_size > 0) {
    spng_plte plte{};
    plte.n_entries = static_cast<uint32_t>(palette_size);
    for (int i = 0; i < palette_size; ++i) {
      plte.entries[i] = {static_cast<uint8_t>(60 * i), static_cast<uint8_t>(255 - 60 * i), 7, 0};
    }
    if (!error) error = spng_set_plte(ctx, &plte);
  }
  if (!error) {
    error =
        spng_encode_image(ctx, samples.data(), samples.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  }
  size_t size = 0;
  void* buffer = error ? nullptr : spng_get_png_buffer(ctx, &size, &error);
  Check(buffer != nullptr, "could not encode the good PNG");
  std::vector<uint8_t> png(static_cast<uint8_t*>(buffer), static_cast<uint8_t*>(buffer) + size);
  std::free(buffer);  // libspng hands the buffer over, allocated with malloc
  spng_ctx_free(ctx);
  return png;
}

// A 37x23 2-bit palette mask and a 29x17 8-bit RGB photo, both Adam7.
std::vector<uint8_t> MakeGoodMask() {
  constexpr int kWidth = 37, kHeight = 23, kRowBytes = (kWidth * 2 + 7) / 8;
  std::vector<uint8_t> samples(kRowBytes * kHeight, 0);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      const int index = (x * x + 3 * y) % 3;
      samples[y * kRowBytes + x / 4] |= static_cast<uint8_t>(index << (6 - 2 * (x % 4)));
    }
  }
  return Encode(kWidth, kHeight, 2, SPNG_COLOR_TYPE_INDEXED, samples, 3);
}

std::vector<uint8_t> MakeGoodImage() {
  constexpr int kWidth = 29, kHeight = 17;
  std::vector<uint8_t> samples(kWidth * kHeight * 3);
  for (size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<uint8_t>(i * 7 + i / 87);
  return Encode(kWidth, kHeight, 8, SPNG_COLOR_TYPE_TRUECOLOR, samples, 0);
}

// libspng's whole-image decode of a grey or palette file of up to 8 bits,
// unpacked to one value per pixel; empty when libspng refuses the file.
std::vector<uint8_t> DecodeWithSpngAtOnce(std::span<const uint8_t> bytes, const PngHeader& h) {
  std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(0), spng_ctx_free);
  size_t size = 0;
  if (spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size()) ||
      spng_decoded_image_size(ctx.get(), SPNG_FMT_PNG, &size))
    return {};
  std::vector<uint8_t> packed(size);
  if (spng_decode_image(ctx.get(), packed.data(), size, SPNG_FMT_PNG, 0)) return {};
  const size_t row_bytes = (static_cast<size_t>(h.width) * h.bit_depth + 7) / 8;
  std::vector<uint8_t> values(static_cast<size_t>(h.width) * h.height);
  for (int y = 0; y < h.height; ++y) {
    for (int x = 0; x < h.width; ++x) {
      const size_t bit = static_cast<size_t>(x) * h.bit_depth;
      const uint8_t byte = packed[y * row_bytes + bit / 8];
      values[static_cast<size_t>(y) * h.width + x] =
          static_cast<uint8_t>((byte >> (8 - h.bit_depth - bit % 8)) & ((1 << h.bit_depth) - 1));
    }
  }
  return values;
}

void CheckMask(std::span<const uint8_t> bytes, const PngHeader& header, const MaskSamples& mask) {
  Check(mask.width == header.width && mask.height == header.height &&
            mask.bit_depth == header.bit_depth,
        "mask size differs from the header");
  Check(static_cast<int64_t>(mask.bytes.size()) == PngDecoder::MaskSampleBytes(header),
        "mask bytes differ from MaskSampleBytes");
  if (mask.has_palette) {
    Check(!mask.palette.empty() && mask.palette.size() <= 256, "bad palette size");
    for (uint8_t index : mask.bytes) Check(index < mask.palette.size(), "index outside palette");
  }
  if (mask.format == MaskSampleFormat::kIndex8 && header.bit_depth < 8) {
    for (uint8_t value : mask.bytes) Check(value < (1 << header.bit_depth), "value over depth");
  }
  if (mask.format == MaskSampleFormat::kIndex8 && (header.color_type == 0 || mask.has_palette)) {
    const std::vector<uint8_t> reference = DecodeWithSpngAtOnce(bytes, header);
    Check(reference.empty() || reference == mask.bytes,
          "PngDecoder and libspng's whole-image decode disagree");
  }
}

struct Harness {
  std::vector<uint8_t> good_mask = MakeGoodMask();
  std::vector<uint8_t> good_image = MakeGoodImage();
  MaskSamples reference_mask = [this] {
    PngDecoder fresh(FuzzOptions());
    MaskSamples mask;
    Check(fresh.DecodeMask(good_mask, "good.png", &mask).ok(), "the good mask failed");
    return mask;
  }();
  DecodedImage reference_image = [this] {
    PngDecoder fresh(FuzzOptions());
    DecodedImage image;
    Check(fresh.DecodeImage(good_image, "good.png", &image).ok(), "the good photo failed");
    return image;
  }();
  PngDecoder decoder{FuzzOptions()};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness harness;  // one decoder for the whole run: that is the point
  PngDecoder& decoder = harness.decoder;
  const std::span<const uint8_t> bytes(data, size);
  const auto header = decoder.ReadHeader(bytes, "fuzz.png", segfeed::ErrorKind::kCorruptMask);
  MaskSamples mask;
  DecodedImage image;
  // Twice each: the second run reuses buffers sized by the first.
  for (int run = 0; run < 2; ++run) {
    if (!decoder.DecodeMask(bytes, "fuzz.png", &mask).ok()) break;
    Check(header.ok(), "a mask decoded whose header was refused");
    CheckMask(bytes, header.value(), mask);
  }
  for (int run = 0; run < 2; ++run) {
    if (!decoder.DecodeImage(bytes, "fuzz.png", &image).ok()) break;
    Check(header.ok(), "a photo decoded whose header was refused");
    Check(image.width == header.value().width && image.height == header.value().height &&
              static_cast<int64_t>(image.pixels.size()) == PngDecoder::ImageBytes(header.value()),
          "photo size differs from the header");
  }
  // Bounded by one stored row of the largest file allowed (4M pixels of
  // 16-bit RGBA in one row), never an image.
  Check(decoder.scratch_bytes() <= size_t{4'000'000} * 8, "scratch larger than a row");
  MaskSamples good_mask;
  Check(decoder.DecodeMask(harness.good_mask, "good.png", &good_mask).ok(),
        "the good mask failed after the input");
  Check(good_mask.bytes == harness.reference_mask.bytes &&
            good_mask.palette == harness.reference_mask.palette,
        "the good mask decoded differently after the input");
  DecodedImage good_image;
  Check(decoder.DecodeImage(harness.good_image, "good.png", &good_image).ok(),
        "the good photo failed after the input");
  Check(good_image.pixels == harness.reference_image.pixels,
        "the good photo decoded differently after the input");
  return 0;
}
