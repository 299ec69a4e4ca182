#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "output/output_file.h"
#include "result.h"

namespace segfeed::output {

// The writers below encode in memory, then write as OutputFile writes
// (complete or not at all, with the permissions any new file gets). The
// overloads taking a path prepare the OutputFile themselves. Errors are
// io_errors naming the file.

// Encodes RGB pixels (height x width x 3) as a baseline JPEG with 4:2:0
// chroma subsampling and the accurate integer DCT, so the bytes are the same
// on every machine. EncodeJpeg() keeps them in memory (the HTML report's
// thumbnails); errors name `path_for_errors`.
Result<std::string> EncodeJpeg(const uint8_t* rgb, int width, int height, int quality,
                               const std::filesystem::path& path_for_errors);
Status WriteJpeg(const OutputFile& file, const uint8_t* rgb, int width, int height, int quality);
Status WriteJpeg(const std::filesystem::path& path, const uint8_t* rgb, int width, int height,
                 int quality);

// The order a GIF stores its rows in: top to bottom, or interlaced in four
// passes (rows 0, 8, 16, ..., then 4, 12, ..., then 2, 6, ..., then the odd
// rows), as Pillow and many other tools write masks by default.
enum class GifRowOrder { kSequential, kInterlaced };

// Encodes a mask (height x width bytes, 0 or 1) as a GIF with a two-colour
// palette: index 0 black (background), index 1 white (foreground), the form
// Carvana's masks take. Errors name `path_for_errors`.
Result<std::string> EncodeMaskGif(const uint8_t* mask, int width, int height, GifRowOrder order,
                                  const std::filesystem::path& path_for_errors);
// Encodes and writes it.
Status WriteMaskGif(const OutputFile& file, const uint8_t* mask, int width, int height,
                    GifRowOrder order = GifRowOrder::kSequential);
Status WriteMaskGif(const std::filesystem::path& path, const uint8_t* mask, int width, int height,
                    GifRowOrder order = GifRowOrder::kSequential);

// The PNG writers encode with libspng (zlib's default level, libspng's
// adaptive filters), so the same pixels give the same bytes with the same
// libspng and zlib. `width` and `height` must be at least 1; rows are packed.

// Writes 8-bit pixels (height x width x channels) as a PNG: channels 3 is
// RGB, 1 is grey. Lossless, so the file holds exactly these bytes.
Status WritePng(const OutputFile& file, const uint8_t* pixels, int width, int height, int channels);

// Writes palette indices (height x width bytes) as an 8-bit indexed PNG with
// `palette` as its PLTE chunk (1 to 256 entries), the form VOC's label maps
// take: the indices are stored as they are, so a reader that asks for the
// PNG's own format gets them back. An index outside the palette is an error
// naming the file (PNG readers reject such files).
Status WritePalettePng(const OutputFile& file, const uint8_t* indices, int width, int height,
                       std::span<const std::array<uint8_t, 3>> palette);

// Writes grey values (height x width) as a greyscale PNG of 8 bits per
// pixel, or of 16 bits from uint16_t values (in this machine's byte order;
// the file holds them big-endian, as PNG requires). Label-id maps (Cityscapes,
// ADE20K) take the 8-bit form, depth maps and many-class label maps the
// 16-bit one.
Status WriteGreyPng(const OutputFile& file, const uint8_t* values, int width, int height);
Status WriteGreyPng(const OutputFile& file, const uint16_t* values, int width, int height);

// The overloads taking a path prepare the OutputFile themselves.
Status WritePng(const std::filesystem::path& path, const uint8_t* pixels, int width, int height,
                int channels);
Status WritePalettePng(const std::filesystem::path& path, const uint8_t* indices, int width,
                       int height, std::span<const std::array<uint8_t, 3>> palette);
Status WriteGreyPng(const std::filesystem::path& path, const uint8_t* values, int width,
                    int height);

}  // namespace segfeed::output
