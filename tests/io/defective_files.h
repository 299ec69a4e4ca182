#pragma once

// One defective file of every kind the decoders must refuse, derived from a
// good file, for tests that decode a bad file and then a good one on the
// same decoder: state that survives an error is the bug they look for.

#include <string>
#include <vector>

#include "io/fixtures.h"
#include "segfeed/errors.h"

namespace segfeed::testing {

struct DefectiveFile {
  std::string name;  // what is wrong, usable in a file name
  Bytes bytes;
  ErrorKind kind;  // what the decoder must report
};

// Defects of a baseline JPEG made with EncodeJpegWithOpenCv: unsupported
// precision, zero sizes and component count, bad sampling factors, a scan
// naming an unknown component, two SOI markers, a bad marker length, a
// 65535x65535 frame, a file cut after its frame header or inside its scan,
// no quantization table, lossless coding, CMYK, PNG and random bytes.
std::vector<DefectiveFile> DefectiveJpegs(const Bytes& good_jpeg, int width, int height);

// Defects of a GIF made with EncodeMaskGif: cut in the header and in the
// image data, no image, a 65535x65535 screen, a zero-sized screen and
// frame, a frame larger than max_pixels, a bad LZW minimum code size,
// damaged LZW codes, PNG and random bytes.
std::vector<DefectiveFile> DefectiveGifs(const Bytes& good_gif);

}  // namespace segfeed::testing
