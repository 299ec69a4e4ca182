#include "decode/png_decoder.h"

#include <spng.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "decode/decode_budget.h"
#include "decode/format_sniffer.h"
#include "decode/png_scanlines.h"
#include "decode/png_whole_buffer.h"
#include "source/scratch_growth.h"

namespace segfeed::decode {
namespace {

struct SpngCloser {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
using SpngContext = std::unique_ptr<spng_ctx, SpngCloser>;

// Ancillary chunks libspng keeps in memory (text, ICC profile, EXIF, after
// inflating compressed ones): enough for any real file, small enough that a
// zTXt bomb is an error instead of an allocation.
constexpr size_t kChunkCacheBytes = size_t{8} << 20;
// libspng's own buffers for a file: the current and previous scanline and
// a row for conversion or de-interlacing, each about one stored scanline.
constexpr int64_t kSpngScanlines = 3;

// Deflate codes at most 258 bytes in one match of at least 2 bits (RFC
// 1951), so no zlib stream inflates to more than 1032 times its size.
constexpr int64_t kMaxDeflateRatio = 1032;

// The errors of one file: each names the path and says, for libspng's
// failures, libspng's reason and whether the data ran out.
class PngErrors {
 public:
  PngErrors(std::span<const uint8_t> bytes, std::string_view path, ErrorKind corrupt_kind)
      : bytes_(bytes), path_(path), corrupt_kind_(corrupt_kind) {}

  Error Fail(ErrorKind kind, std::string detail) const {
    return Error{kind, std::string(path_), std::move(detail)};
  }
  Error Corrupt(std::string detail) const { return Fail(corrupt_kind_, std::move(detail)); }

  Error Spng(int spng_error, const std::string& where) const {
    const std::string reason = spng_strerror(spng_error);
    if (spng_error == SPNG_ECHUNK_LIMITS) {
      return Fail(ErrorKind::kTooLarge, "PNG ancillary chunks need more than " +
                                            std::to_string(kChunkCacheBytes) + " bytes " + where +
                                            " (libspng: " + reason + ")");
    }
    // With the whole file in memory, every read past its end is this.
    if (spng_error == SPNG_IO_EOF || spng_error == SPNG_IO_ERROR || spng_error == SPNG_EIO ||
        spng_error == SPNG_EOF) {
      return Corrupt("truncated PNG: data ends after " + std::to_string(bytes_.size()) + " bytes " +
                     where + " (libspng: " + reason + ")");
    }
    return Corrupt("corrupt PNG: " + reason + " " + where);
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string_view path_;
  ErrorKind corrupt_kind_;
};

uint32_t BigEndian32(std::span<const uint8_t> bytes, size_t at) {
  return (uint32_t{bytes[at]} << 24) | (uint32_t{bytes[at + 1]} << 16) |
         (uint32_t{bytes[at + 2]} << 8) | bytes[at + 3];
}

// The bytes of IDAT chunk data in the file, as far as the file goes.
int64_t ImageDataBytes(std::span<const uint8_t> bytes) {
  int64_t total = 0;
  for (size_t at = 8; at + 8 <= bytes.size();) {  // after the signature
    const size_t length = BigEndian32(bytes, at);
    const size_t data = at + 8;
    if (std::memcmp(&bytes[at + 4], "IDAT", 4) == 0)
      total += static_cast<int64_t>(std::min(length, bytes.size() - data));
    if (std::memcmp(&bytes[at + 4], "IEND", 4) == 0) break;
    at = data + length + 4;  // and the CRC
  }
  return total;
}

Error TooManyPixels(const PngErrors& errors, uint32_t width, uint32_t height, int64_t max_pixels) {
  const int64_t pixels = int64_t{width} * height;
  return errors.Fail(ErrorKind::kTooLarge,
                     "PNG header claims " + std::to_string(width) + "x" + std::to_string(height) +
                         " = " + std::to_string(pixels) +
                         " pixels, more than max_pixels = " + std::to_string(max_pixels));
}

// A fresh libspng context over `bytes` with its IHDR read and checked
// against max_pixels. A context per file: libspng keeps chunk state, a
// sticky error and its buffers in it, none of which may reach the next file.
Result<SpngContext> OpenPng(std::span<const uint8_t> bytes, int64_t max_pixels,
                            const PngErrors& errors, PngHeader* header) {
  if (SniffFormat(bytes) != SniffedFormat::kPng) {
    return errors.Fail(ErrorKind::kUnsupportedFormat,
                       "not a PNG file (" + DescribeContent(bytes) + ")");
  }
  SpngContext ctx(spng_ctx_new(0));
  if (!ctx) throw std::bad_alloc();
  // Neither side alone can exceed max_pixels when the other is at least 1;
  // the product is checked below. libspng refuses sides over 2^31 - 1.
  const auto side_limit = static_cast<uint32_t>(std::min<int64_t>(max_pixels, INT32_MAX));
  int error = spng_set_image_limits(ctx.get(), side_limit, side_limit);
  // No chunk can be larger than the file, and what libspng caches of the
  // ancillary ones is bounded.
  if (!error)
    error = spng_set_chunk_limits(ctx.get(), std::max<size_t>(bytes.size(), 1), kChunkCacheBytes);
  // A damaged ancillary chunk (text, time) cannot change a pixel: skip it.
  if (!error) error = spng_set_crc_action(ctx.get(), SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
  if (!error) error = spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size());
  if (error) return errors.Spng(error, "setting up the decoder");
  spng_ihdr ihdr{};
  error = spng_get_ihdr(ctx.get(), &ihdr);
  if (error == SPNG_EUSER_WIDTH || error == SPNG_EUSER_HEIGHT) {
    // libspng compared one side with the limit; the message gives both.
    return TooManyPixels(errors, BigEndian32(bytes, 16), BigEndian32(bytes, 20), max_pixels);
  }
  if (error) return errors.Spng(error, "in the header");
  if (int64_t{ihdr.width} * ihdr.height > max_pixels)
    return TooManyPixels(errors, ihdr.width, ihdr.height, max_pixels);
  header->width = static_cast<int>(ihdr.width);
  header->height = static_cast<int>(ihdr.height);
  header->bit_depth = ihdr.bit_depth;
  header->color_type = ihdr.color_type;
  header->interlaced = ihdr.interlace_method != SPNG_INTERLACE_NONE;
  return ctx;
}

// The PLTE entries of a palette file; corrupt without one.
Status ReadPalette(spng_ctx* ctx, const PngErrors& errors, spng_plte* plte) {
  const int error = spng_get_plte(ctx, plte);
  if (error == SPNG_ECHUNKAVAIL) return errors.Corrupt("palette PNG without a PLTE chunk");
  if (error) return errors.Spng(error, "reading the palette");
  return {};
}

// The chunks before the image data, read and checked by libspng (IHDR,
// PLTE and tRNS rules, order, CRCs) before the whole-buffer path looks at
// the image data; in the words of libspng's own first call, which reads
// them too.
Status ReadChunksBeforeImage(spng_ctx* ctx, const PngErrors& errors) {
  if (const int error = spng_decode_chunks(ctx); error)
    return errors.Spng(error, "before the image data");
  return {};
}

Error PaletteIndexOutside(const PngErrors& errors, int index, uint32_t palette_size, int row) {
  return errors.Corrupt("corrupt PNG: palette index " + std::to_string(index) + " outside the " +
                        std::to_string(palette_size) + "-colour palette (row " +
                        std::to_string(row) + ")");
}

// After the last row: libspng stops reading when the image data is
// complete, before the last IDAT's CRC. Reading on to IEND checks it, and
// refuses a file cut after its image data.
Status FinishFile(spng_ctx* ctx, const PngErrors& errors) {
  if (const int error = spng_decode_chunks(ctx); error)
    return errors.Spng(error, "after the image data");
  return {};
}

// Progressive decoding in SPNG_FMT_PNG, one stored scanline at a time into
// `scanline`, calling place(image_row, columns, pixel_count, scanline) for
// each; `place` returns a Status to stop on bad data. Interlaced files come
// in pass order, each scanline holding that pass's pixels of its row.
template <typename Place>
Status ForEachScanline(spng_ctx* ctx, const PngHeader& header, const PngErrors& errors,
                       std::vector<uint8_t>* scanline, Place&& place) {
  int error = spng_decode_image(ctx, nullptr, 0, SPNG_FMT_PNG, SPNG_DECODE_PROGRESSIVE);
  if (error) return errors.Spng(error, "before the image data");
  source::ResizeScratch(scanline, static_cast<size_t>(StoredRowBytes(header)));
  do {
    spng_row_info row{};
    error = spng_get_row_info(ctx, &row);
    if (error) break;
    error = spng_decode_scanline(ctx, scanline->data(), scanline->size());
    if (error && error != SPNG_EOI) break;
    const PassColumns columns = ColumnsOf(header, row.pass);
    if (Status placed = place(static_cast<int>(row.row_num), columns, PassWidth(header, columns),
                              scanline->data());
        !placed.ok())
      return placed;
  } while (!error);
  if (error != SPNG_EOI) return errors.Spng(error, "in the image data");
  return FinishFile(ctx, errors);
}

}  // namespace

Result<PngHeader> PngDecoder::ReadHeader(std::span<const uint8_t> bytes, std::string_view path,
                                         ErrorKind corrupt_kind) {
  const PngErrors errors(bytes, path, corrupt_kind);
  PngHeader header;
  Result<SpngContext> ctx = OpenPng(bytes, options_.max_pixels, errors, &header);
  if (!ctx.ok()) return ctx.error();
  return header;
}

int64_t PngDecoder::ImageBytes(const PngHeader& header) {
  return int64_t{header.width} * header.height * 3;
}

Status PngDecoder::CheckImageDataCanHoldPixels(std::span<const uint8_t> bytes,
                                               const PngHeader& header, std::string_view path,
                                               ErrorKind corrupt_kind) {
  // Every pixel's samples are stored once, interlaced or not; filter bytes
  // and row padding only add to this.
  const int64_t sample_bytes =
      int64_t{header.width} * header.height * Channels(header.color_type) * header.bit_depth / 8;
  const int64_t data_bytes = ImageDataBytes(bytes);
  if (data_bytes * kMaxDeflateRatio >= sample_bytes) return {};
  return PngErrors(bytes, path, corrupt_kind)
      .Corrupt("truncated PNG: " + std::to_string(data_bytes) +
               " bytes of image data cannot hold the " + std::to_string(header.width) + "x" +
               std::to_string(header.height) + " pixels its header claims (" +
               std::to_string(sample_bytes) + " bytes of samples; deflate compresses at most " +
               std::to_string(kMaxDeflateRatio) + ":1)");
}

int64_t PngDecoder::ImageRowBytes(const PngHeader& header) {
  const bool palette = header.color_type == SPNG_COLOR_TYPE_INDEXED;
  return (kSpngScanlines + (palette ? 1 : 0)) * StoredRowBytes(header);
}

Error PngDecoder::OverBudget(std::string_view path, const PngHeader& header, int64_t needed_bytes,
                             int64_t budget_bytes) {
  return OverDecodeBudget(path, "PNG",
                          std::to_string(header.width) + "x" + std::to_string(header.height),
                          needed_bytes, budget_bytes);
}

int64_t PngDecoder::MaskSampleBytes(const PngHeader& header) {
  return int64_t{header.width} * header.height * MaskPixelBytes(MaskFormatOf(header));
}

Status PngDecoder::DecodeImage(std::span<const uint8_t> bytes, std::string_view path,
                               DecodedImage* out, int64_t budget_bytes) {
  const PngErrors errors(bytes, path, ErrorKind::kCorruptImage);
  PngHeader header;
  Result<SpngContext> opened = OpenPng(bytes, options_.max_pixels, errors, &header);
  if (!opened.ok()) return opened.error();
  spng_ctx* const ctx = opened.value().get();
  const bool palette = header.color_type == SPNG_COLOR_TYPE_INDEXED;
  // libspng converts everything but palette files to RGB8 itself, straight
  // into the output rows; palette indices go through the scanline scratch,
  // because libspng does not check them against the palette.
  const int64_t stored_row_bytes = StoredRowBytes(header);
  const int64_t needed =
      std::max<int64_t>(static_cast<int64_t>(out->pixels.capacity()), ImageBytes(header)) +
      (palette ? std::max<int64_t>(static_cast<int64_t>(row_.capacity()), stored_row_bytes) : 0) +
      kSpngScanlines * stored_row_bytes;
  if (needed > budget_bytes) return OverBudget(path, header, needed, budget_bytes);
  if (Status enough = CheckImageDataCanHoldPixels(bytes, header, path, ErrorKind::kCorruptImage);
      !enough.ok())
    return enough;
  out->width = header.width;
  out->height = header.height;
  out->layout = DecodedImage::Layout::kRgb;
  source::ResizeScratch(&out->pixels, static_cast<size_t>(ImageBytes(header)));
  const size_t row_bytes = static_cast<size_t>(header.width) * 3;
  spng_plte plte{};
  if (PngWholeBuffer::Takes(header)) {
    Status read = palette ? ReadPalette(ctx, errors, &plte) : ReadChunksBeforeImage(ctx, errors);
    if (!read.ok()) return read;
    if (needed + Whole().ScratchNeeded(bytes, header, out->pixels.size()) <= budget_bytes &&
        DecodeImageWhole(bytes, header, palette ? &plte : nullptr, out))
      return {};
  }

  if (!palette) {
    // Interlaced rows arrive once per pass, each call adding that pass's
    // pixels to the row: the output row is where they accumulate.
    int error = spng_decode_image(ctx, nullptr, 0, SPNG_FMT_RGB8, SPNG_DECODE_PROGRESSIVE);
    if (error) return errors.Spng(error, "before the image data");
    do {
      spng_row_info row{};
      error = spng_get_row_info(ctx, &row);
      if (error) break;
      error = spng_decode_row(ctx, out->pixels.data() + row.row_num * row_bytes, row_bytes);
    } while (!error);
    if (error != SPNG_EOI) return errors.Spng(error, "in the image data");
    return FinishFile(ctx, errors);
  }

  if (Status status = ReadPalette(ctx, errors, &plte); !status.ok()) return status;
  return ForEachScanline(
      ctx, header, errors, &row_,
      [&](int y, const PassColumns& columns, int count, const uint8_t* src) -> Status {
        uint8_t* dst = out->pixels.data() + y * row_bytes + 3 * columns.first_column;
        const int step = 3 * columns.column_step;
        for (int i = 0; i < count; ++i) {
          const uint8_t index =
              header.bit_depth < 8 ? PackedSample(src, i, header.bit_depth) : src[i];
          if (index >= plte.n_entries) return PaletteIndexOutside(errors, index, plte.n_entries, y);
          const spng_plte_entry& colour = plte.entries[index];
          dst[i * step] = colour.red;
          dst[i * step + 1] = colour.green;
          dst[i * step + 2] = colour.blue;
        }
        return {};
      });
}

Status PngDecoder::DecodeMask(std::span<const uint8_t> bytes, std::string_view path,
                              MaskSamples* out, int64_t budget_bytes) {
  const PngErrors errors(bytes, path, ErrorKind::kCorruptMask);
  PngHeader header;
  Result<SpngContext> opened = OpenPng(bytes, options_.max_pixels, errors, &header);
  if (!opened.ok()) return opened.error();
  spng_ctx* const ctx = opened.value().get();
  const MaskSampleFormat format = MaskFormatOf(header);
  const int64_t stored_row_bytes = StoredRowBytes(header);
  const int64_t out_row_bytes = int64_t{header.width} * MaskPixelBytes(format);
  // The common masks (8-bit grey or palette, 16-bit grey, 8-bit RGB, not
  // interlaced) are stored as they are output: libspng writes each scanline
  // straight into its output row, and no scratch is needed.
  const bool in_place = !header.interlaced && stored_row_bytes == out_row_bytes &&
                        (header.bit_depth == 8 || format == MaskSampleFormat::kGrey16) &&
                        header.color_type != SPNG_COLOR_TYPE_GRAYSCALE_ALPHA &&
                        header.color_type != SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
  const int64_t needed =
      std::max<int64_t>(static_cast<int64_t>(out->bytes.capacity()), MaskSampleBytes(header)) +
      (in_place ? 0 : std::max<int64_t>(static_cast<int64_t>(row_.capacity()), stored_row_bytes)) +
      kSpngScanlines * stored_row_bytes;
  if (needed > budget_bytes) return OverBudget(path, header, needed, budget_bytes);
  if (Status enough = CheckImageDataCanHoldPixels(bytes, header, path, ErrorKind::kCorruptMask);
      !enough.ok())
    return enough;
  const bool palette = header.color_type == SPNG_COLOR_TYPE_INDEXED;
  spng_plte plte{};
  out->palette.clear();
  if (palette) {
    if (Status status = ReadPalette(ctx, errors, &plte); !status.ok()) return status;
    for (uint32_t i = 0; i < plte.n_entries; ++i) {
      out->palette.push_back({plte.entries[i].red, plte.entries[i].green, plte.entries[i].blue});
    }
  }
  out->format = format;
  out->width = header.width;
  out->height = header.height;
  out->bit_depth = header.bit_depth;
  out->has_palette = palette;
  source::ResizeScratch(&out->bytes, static_cast<size_t>(MaskSampleBytes(header)));
  const auto row_bytes = static_cast<size_t>(out_row_bytes);
  if (PngWholeBuffer::Takes(header)) {
    if (Status read = ReadChunksBeforeImage(ctx, errors); !read.ok()) return read;
    if (needed + Whole().ScratchNeeded(bytes, header, out->bytes.size()) <= budget_bytes &&
        DecodeMaskWhole(bytes, header, plte.n_entries, out))
      return {};
  }

  if (in_place) {
    int error = spng_decode_image(ctx, nullptr, 0, SPNG_FMT_PNG, SPNG_DECODE_PROGRESSIVE);
    if (error) return errors.Spng(error, "before the image data");
    do {
      spng_row_info row{};
      error = spng_get_row_info(ctx, &row);
      if (error) break;
      uint8_t* dst = out->bytes.data() + row.row_num * row_bytes;
      error = spng_decode_scanline(ctx, dst, row_bytes);
      if (error && error != SPNG_EOI) break;
      if (palette) {
        if (const int index = FirstIndexOutside(dst, header.width, 1, plte.n_entries); index >= 0)
          return PaletteIndexOutside(errors, index, plte.n_entries, static_cast<int>(row.row_num));
      }
    } while (!error);
    if (error != SPNG_EOI) return errors.Spng(error, "in the image data");
    return FinishFile(ctx, errors);
  }
  return ForEachScanline(
      ctx, header, errors, &row_,
      [&](int y, const PassColumns& columns, int count, const uint8_t* src) -> Status {
        uint8_t* dst = out->bytes.data() + y * row_bytes;
        PlaceMaskPixels(header, columns, count, src, dst);
        if (palette) {
          const int index = FirstIndexOutside(dst + columns.first_column, count,
                                              columns.column_step, plte.n_entries);
          if (index >= 0) return PaletteIndexOutside(errors, index, plte.n_entries, y);
        }
        return {};
      });
}

bool PngDecoder::DecodeImageWhole(std::span<const uint8_t> bytes, const PngHeader& header,
                                  const void* palette, DecodedImage* out) {
  // The output holds the joined image data until the rows are inflated.
  if (!Whole().Inflate(bytes, header, out->pixels)) return false;
  const auto* plte = static_cast<const spng_plte*>(palette);
  const size_t row_bytes = static_cast<size_t>(header.width) * 3;
  uint8_t* const pixels = out->pixels.data();
  // 8-bit RGB is stored as it is output: unfiltered straight into its row.
  const bool direct = header.color_type == SPNG_COLOR_TYPE_TRUECOLOR && header.bit_depth == 8;
  return UnfilterRows(
      header, Whole().rows(), [&](int y) { return direct ? pixels + y * row_bytes : nullptr; },
      [&](int y, const uint8_t* stored) {
        uint8_t* dst = pixels + y * row_bytes;
        if (plte == nullptr) {
          if (!direct) StoredRowToRgb8(header, stored, dst);
          return true;
        }
        for (int x = 0; x < header.width; ++x) {
          const uint8_t index =
              header.bit_depth < 8 ? PackedSample(stored, x, header.bit_depth) : stored[x];
          // libspng's path words the error, with its row.
          if (index >= plte->n_entries) return false;
          dst[3 * x] = plte->entries[index].red;
          dst[3 * x + 1] = plte->entries[index].green;
          dst[3 * x + 2] = plte->entries[index].blue;
        }
        return true;
      });
}

bool PngDecoder::DecodeMaskWhole(std::span<const uint8_t> bytes, const PngHeader& header,
                                 uint32_t palette_size, MaskSamples* out) {
  if (!Whole().Inflate(bytes, header, out->bytes)) return false;
  const auto row_bytes = static_cast<size_t>(header.width) * MaskPixelBytes(out->format);
  uint8_t* const samples = out->bytes.data();
  // 8-bit grey, palette indices and 8-bit RGB are stored as they are output.
  const bool direct =
      header.bit_depth == 8 && StoredRowBytes(header) == static_cast<int64_t>(row_bytes);
  const bool palette = header.color_type == SPNG_COLOR_TYPE_INDEXED;
  return UnfilterRows(
      header, Whole().rows(), [&](int y) { return direct ? samples + y * row_bytes : nullptr; },
      [&](int y, const uint8_t* stored) {
        uint8_t* dst = samples + y * row_bytes;
        if (!direct) PlaceMaskPixels(header, PassColumns{}, header.width, stored, dst, true);
        // An index outside the palette: libspng's path words the error.
        return !palette || FirstIndexOutside(dst, header.width, 1, palette_size) < 0;
      });
}

}  // namespace segfeed::decode
