#include "output/image_writers.h"

#include <gif_lib.h>
#include <spng.h>
#include <turbojpeg.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace segfeed::output {
namespace {

Error WriteError(const std::filesystem::path& path, const std::string& reason) {
  return Error{ErrorKind::kIoError, path.string(), "cannot write: " + reason};
}

struct TjHandleCloser {
  void operator()(void* handle) const { tjDestroy(handle); }
};
struct TjBufferFree {
  void operator()(unsigned char* buffer) const { tjFree(buffer); }
};
// giflib pushes the encoded bytes through this callback, into a string.
int AppendToString(GifFileType* gif, const GifByteType* bytes, int length) {
  static_cast<std::string*>(gif->UserData)
      ->append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(length));
  return length;
}

struct SpngContextFree {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
// spng_get_png_buffer() hands over a buffer from libspng's allocator, which
// is malloc() unless a context is made with other allocators.
struct SpngBufferFree {
  void operator()(void* buffer) const { std::free(buffer); }
};

// Encodes `pixels` (the PNG's own sample layout, `bytes` long) with libspng
// in memory and writes the file. `palette` is set for indexed images only.
Status EncodePng(const OutputFile& file, const void* pixels, size_t bytes, int width, int height,
                 uint8_t color_type, uint8_t bit_depth, const spng_plte* palette) {
  if (width < 1 || height < 1) {
    return WriteError(file.path(), "PNG needs a size of at least 1x1 (got " +
                                       std::to_string(width) + "x" + std::to_string(height) + ")");
  }
  std::unique_ptr<spng_ctx, SpngContextFree> ctx(spng_ctx_new(SPNG_CTX_ENCODER));
  if (!ctx) return WriteError(file.path(), "cannot create a PNG encoder (out of memory)");
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(width);
  ihdr.height = static_cast<uint32_t>(height);
  ihdr.bit_depth = bit_depth;
  ihdr.color_type = color_type;
  int rc = spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
  if (rc == 0) rc = spng_set_ihdr(ctx.get(), &ihdr);
  // libspng's API is not const-correct; it copies the palette.
  if (rc == 0 && palette) rc = spng_set_plte(ctx.get(), const_cast<spng_plte*>(palette));
  if (rc == 0) rc = spng_encode_image(ctx.get(), pixels, bytes, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  if (rc != 0)
    return WriteError(file.path(), std::string("PNG encoding failed: ") + spng_strerror(rc));
  size_t png_bytes = 0;
  std::unique_ptr<void, SpngBufferFree> png(spng_get_png_buffer(ctx.get(), &png_bytes, &rc));
  if (!png)
    return WriteError(file.path(), std::string("PNG encoding failed: ") + spng_strerror(rc));
  return file.Write(std::string_view(static_cast<const char*>(png.get()), png_bytes));
}

size_t Pixels(int width, int height) {
  return width > 0 && height > 0 ? static_cast<size_t>(width) * static_cast<size_t>(height) : 0;
}

}  // namespace

Result<std::string> EncodeJpeg(const uint8_t* rgb, int width, int height, int quality,
                               const std::filesystem::path& path_for_errors) {
  std::unique_ptr<void, TjHandleCloser> encoder(tjInitCompress());
  if (!encoder) return WriteError(path_for_errors, tjGetErrorStr2(nullptr));
  unsigned char* jpeg = nullptr;
  unsigned long jpeg_bytes = 0;  // NOLINT(runtime/int): TurboJPEG's type
  int rc = tjCompress2(encoder.get(), rgb, width, 0, height, TJPF_RGB, &jpeg, &jpeg_bytes,
                       TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
  std::unique_ptr<unsigned char, TjBufferFree> owned(jpeg);
  if (rc != 0) return WriteError(path_for_errors, tjGetErrorStr2(encoder.get()));
  return std::string(reinterpret_cast<const char*>(jpeg), jpeg_bytes);
}

Status WriteJpeg(const OutputFile& file, const uint8_t* rgb, int width, int height, int quality) {
  Result<std::string> encoded = EncodeJpeg(rgb, width, height, quality, file.path());
  if (!encoded.ok()) return encoded.error();
  return file.Write(encoded.value());
}

Status WriteJpeg(const std::filesystem::path& path, const uint8_t* rgb, int width, int height,
                 int quality) {
  Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WriteJpeg(file.value(), rgb, width, height, quality);
}

Status WritePng(const OutputFile& file, const uint8_t* pixels, int width, int height,
                int channels) {
  if (channels != 1 && channels != 3) return WriteError(file.path(), "PNG needs 1 or 3 channels");
  return EncodePng(file, pixels, Pixels(width, height) * channels, width, height,
                   channels == 3 ? SPNG_COLOR_TYPE_TRUECOLOR : SPNG_COLOR_TYPE_GRAYSCALE, 8,
                   nullptr);
}

Status WritePalettePng(const OutputFile& file, const uint8_t* indices, int width, int height,
                       std::span<const std::array<uint8_t, 3>> palette) {
  if (palette.empty() || palette.size() > 256) {
    return WriteError(file.path(), "a PNG palette needs 1 to 256 colours (got " +
                                       std::to_string(palette.size()) + ")");
  }
  const size_t pixels = Pixels(width, height);
  for (size_t i = 0; i < pixels; ++i) {
    if (indices[i] >= palette.size()) {
      return WriteError(file.path(), "palette index " + std::to_string(indices[i]) + " at pixel " +
                                         std::to_string(i) + " is outside the palette of " +
                                         std::to_string(palette.size()) + " colours");
    }
  }
  spng_plte plte{};
  plte.n_entries = static_cast<uint32_t>(palette.size());
  for (size_t i = 0; i < palette.size(); ++i) {
    plte.entries[i].red = palette[i][0];
    plte.entries[i].green = palette[i][1];
    plte.entries[i].blue = palette[i][2];
  }
  return EncodePng(file, indices, pixels, width, height, SPNG_COLOR_TYPE_INDEXED, 8, &plte);
}

Status WriteGreyPng(const OutputFile& file, const uint8_t* values, int width, int height) {
  return EncodePng(file, values, Pixels(width, height), width, height, SPNG_COLOR_TYPE_GRAYSCALE, 8,
                   nullptr);
}

Status WriteGreyPng(const OutputFile& file, const uint16_t* values, int width, int height) {
  // SPNG_FMT_PNG takes 16-bit samples in host byte order and stores them
  // big-endian.
  return EncodePng(file, values, Pixels(width, height) * sizeof(uint16_t), width, height,
                   SPNG_COLOR_TYPE_GRAYSCALE, 16, nullptr);
}

Status WritePng(const std::filesystem::path& path, const uint8_t* pixels, int width, int height,
                int channels) {
  Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WritePng(file.value(), pixels, width, height, channels);
}

Status WritePalettePng(const std::filesystem::path& path, const uint8_t* indices, int width,
                       int height, std::span<const std::array<uint8_t, 3>> palette) {
  Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WritePalettePng(file.value(), indices, width, height, palette);
}

Status WriteGreyPng(const std::filesystem::path& path, const uint8_t* values, int width,
                    int height) {
  Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WriteGreyPng(file.value(), values, width, height);
}

Result<std::string> EncodeMaskGif(const uint8_t* mask, int width, int height, GifRowOrder order,
                                  const std::filesystem::path& path_for_errors) {
  // Encoded in memory: giflib's own file writer creates files with mode
  // 0600, unlike every other file segfeed writes.
  std::string encoded;
  int error = 0;
  GifFileType* gif = EGifOpen(&encoded, AppendToString, &error);
  if (!gif) return WriteError(path_for_errors, GifErrorString(error));
  const GifColorType palette[2] = {{0, 0, 0}, {255, 255, 255}};
  ColorMapObject* color_map = GifMakeMapObject(2, palette);
  const bool interlaced = order == GifRowOrder::kInterlaced;
  bool ok = color_map != nullptr &&
            EGifPutScreenDesc(gif, width, height, 1, 0, color_map) == GIF_OK &&
            EGifPutImageDesc(gif, 0, 0, width, height, interlaced, nullptr) == GIF_OK;
  auto put_row = [&](int y) {
    // giflib's API is not const-correct; it only reads the line.
    if (ok)
      ok = EGifPutLine(gif, const_cast<GifPixelType*>(mask + static_cast<size_t>(y) * width),
                       width) == GIF_OK;
  };
  if (interlaced) {
    constexpr int kPassFirstRow[4] = {0, 4, 2, 1};
    constexpr int kPassRowStep[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; ++pass) {
      for (int y = kPassFirstRow[pass]; y < height; y += kPassRowStep[pass]) put_row(y);
    }
  } else {
    for (int y = 0; y < height; ++y) put_row(y);
  }
  if (!ok) error = gif->Error;
  GifFreeMapObject(color_map);
  int close_error = 0;
  // EGifCloseFile frees `gif` whether or not it succeeds.
  if (EGifCloseFile(gif, &close_error) != GIF_OK && ok) {
    ok = false;
    error = close_error;
  }
  if (!ok) return WriteError(path_for_errors, GifErrorString(error));
  return encoded;
}

Status WriteMaskGif(const OutputFile& file, const uint8_t* mask, int width, int height,
                    GifRowOrder order) {
  Result<std::string> encoded = EncodeMaskGif(mask, width, height, order, file.path());
  if (!encoded.ok()) return encoded.error();
  return file.Write(encoded.value());
}

Status WriteMaskGif(const std::filesystem::path& path, const uint8_t* mask, int width, int height,
                    GifRowOrder order) {
  Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WriteMaskGif(file.value(), mask, width, height, order);
}

}  // namespace segfeed::output
