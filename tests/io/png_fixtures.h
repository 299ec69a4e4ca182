#pragma once

// Small synthetic PNG inputs for the io tests, made in memory with libspng's
// encoder (every colour type, bit depth and Adam7) and OpenCV's (libpng, as
// other tools write them), plus chunk surgery for defective files.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/defective_files.h"
#include "io/fixtures.h"
#include "segfeed/errors.h"

namespace segfeed::testing {

// A PNG to encode: samples in the form the file stores them (rows packed
// below 8 bits, most significant bits first; 16-bit samples host-endian),
// which is also what PngDecoder reads with SPNG_FMT_PNG.
struct PngPicture {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  int color_type = 0;  // 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
  bool interlaced = false;
  std::vector<Rgb> palette;  // PLTE, for colour type 3
  Bytes samples;
};

// Encodes with libspng (SPNG_ENCODE_TO_BUFFER).
Bytes EncodePngWithSpng(const PngPicture& picture);

// Values 0 .. 2^bit_depth - 1, one per byte, height x width x channels,
// packed into PNG rows at `bit_depth` (1, 2, 4 or 8); 16 stores each value
// as a host-endian uint16.
Bytes PackPngSamples(const std::vector<uint16_t>& values, int width, int height, int channels,
                     int bit_depth);

// A deterministic picture of `channels` samples per pixel covering every
// value of `bit_depth` (a ramp plus a pattern), as values for PackPngSamples.
std::vector<uint16_t> TestSamples(int width, int height, int channels, int bit_depth);

// Encodes with OpenCV's imencode(".png"): `values` (as TestSamples gives
// them, RGB order) in an 8- or 16-bit Mat of 1, 3 or 4 channels; `bilevel`
// asks for a 1-bit file (values must be 0 or 255).
Bytes EncodePngWithOpenCv(const std::vector<uint16_t>& values, int width, int height, int channels,
                          int bit_depth, bool bilevel = false);

// Decodes 8-bit PNG with OpenCV's imdecode (libpng), IMREAD_UNCHANGED,
// back in RGB order: an independent reading of a file libspng wrote.
Bytes DecodePngWithOpenCv(const Bytes& png, int* width, int* height, int* channels);

// A chunk of a PNG file: where it starts (its length field) and its type.
struct PngChunk {
  size_t offset = 0;
  uint32_t length = 0;  // of the data
  std::string type;
};
std::vector<PngChunk> PngChunks(const Bytes& png);

// The chunk's bytes (length, type, data, CRC) with a correct CRC.
Bytes MakePngChunk(const std::string& type, const Bytes& data);
// `png` with `chunk` (from MakePngChunk) inserted before its first chunk of
// type `before`.
Bytes InsertPngChunk(const Bytes& png, const std::string& before, const Bytes& chunk);
// `png` without its chunks of type `type`.
Bytes RemovePngChunks(const Bytes& png, const std::string& type);
// `png` with its image data replaced by `donor`'s IDAT chunks.
Bytes WithIdatFrom(const Bytes& png, const Bytes& donor);
// `png` with its IHDR width and height replaced (CRC recomputed).
Bytes WithPngSize(Bytes png, uint32_t width, uint32_t height);

// Defects of a non-interlaced PNG made with EncodePngWithSpng: cut after
// the signature, in the IHDR, before and inside the image data; bad IHDR and
// IDAT CRCs; damaged compressed data (CRC fixed); an unknown critical chunk;
// zero width, bit depth 3; no IDAT; a 60000x60000 header; a palette file
// without PLTE and one whose index lies beyond its palette; GIF, random
// bytes, nothing. `corrupt` is the decoder's corrupt kind (image or mask).
std::vector<DefectiveFile> DefectivePngs(const Bytes& good_png, ErrorKind corrupt);

}  // namespace segfeed::testing
