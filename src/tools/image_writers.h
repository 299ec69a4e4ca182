#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "result.h"
#include "tools/output_file.h"

namespace segfeed::tools {

// Encodes RGB pixels (height x width x 3) as a baseline JPEG with 4:2:0
// chroma subsampling and the accurate integer DCT, so the bytes are the same
// on every machine. Returns an io_error naming `path` if it cannot be written.
internal::Status WriteJpeg(const std::filesystem::path& path, const uint8_t* rgb, int width,
                           int height, int quality);

// Writes a mask (height x width bytes, 0 or 1) as a GIF with a two-colour
// palette: index 0 black (background), index 1 white (foreground), the form
// Carvana's masks take.
internal::Status WriteMaskGif(const std::filesystem::path& path, const uint8_t* mask, int width,
                              int height);

// Writes 8-bit pixels (height x width x channels, rows packed) as a PNG:
// channels 3 is RGB, 1 is grey. Lossless, so the file holds exactly these
// bytes. Encoded in memory, then written as OutputFile writes (complete or
// not at all). Returns an io_error naming the file if it cannot be encoded
// or written.
internal::Status WritePng(const OutputFile& file, const uint8_t* pixels, int width, int height, int channels);

}  // namespace segfeed::tools
