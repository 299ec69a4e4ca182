#include "io/defective_files.h"

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

namespace segfeed::testing {
namespace {

// Offset of the first segment with `marker` (its 0xFF byte) before the scan
// data, or the size of `jpeg` when there is none.
size_t FindJpegSegment(const Bytes& jpeg, uint8_t marker) {
  size_t pos = 2;
  while (pos + 4 <= jpeg.size() && jpeg[pos] == 0xFF) {
    if (jpeg[pos + 1] == marker) return pos;
    if (jpeg[pos + 1] == 0xDA) break;
    pos += 2 + ((jpeg[pos + 2] << 8) | jpeg[pos + 3]);
  }
  return jpeg.size();
}

size_t SegmentEnd(const Bytes& jpeg, size_t segment) {
  return segment + 2 + ((jpeg[segment + 2] << 8) | jpeg[segment + 3]);
}

// `jpeg` with one byte of the first `marker` segment (offset from its 0xFF)
// set to `value`.
Bytes WithSegmentByte(Bytes jpeg, uint8_t marker, size_t offset, uint8_t value) {
  const size_t segment = FindJpegSegment(jpeg, marker);
  EXPECT_LT(segment, jpeg.size()) << "no marker " << int{marker};
  if (segment < jpeg.size()) jpeg[segment + offset] = value;
  return jpeg;
}

Bytes WithoutSegments(const Bytes& jpeg, uint8_t marker) {
  Bytes out = jpeg;
  for (size_t segment = FindJpegSegment(out, marker); segment < out.size();
       segment = FindJpegSegment(out, marker)) {
    out.erase(out.begin() + static_cast<long>(segment),
              out.begin() + static_cast<long>(SegmentEnd(out, segment)));
  }
  return out;
}

Bytes Prefix(const Bytes& bytes, size_t size) {
  return Bytes(bytes.begin(), bytes.begin() + static_cast<long>(size));
}

// A format the loader does not read (PNG photos and masks it does).
Bytes BmpBytes() {
  cv::Mat picture(8, 8, CV_8UC3, cv::Scalar(10, 120, 240));
  Bytes bmp;
  EXPECT_TRUE(cv::imencode(".bmp", picture, bmp));
  return bmp;
}

// Offset of the first image descriptor (0x2C) of a GIF, after the screen
// descriptor, the global colour table and any extension blocks.
size_t FindGifImageDescriptor(const Bytes& gif) {
  size_t pos = 13;
  if (gif[10] & 0x80) pos += 3u << ((gif[10] & 7) + 1);
  while (pos < gif.size() && gif[pos] == 0x21) {
    pos += 2;  // introducer and label
    while (pos < gif.size() && gif[pos] != 0) pos += 1 + gif[pos];
    ++pos;  // block terminator
  }
  EXPECT_LT(pos, gif.size());
  EXPECT_EQ(gif[pos], 0x2C);
  return pos;
}

void SetLittleEndian16(Bytes* bytes, size_t offset, int value) {
  (*bytes)[offset] = static_cast<uint8_t>(value);
  (*bytes)[offset + 1] = static_cast<uint8_t>(value >> 8);
}

}  // namespace

std::vector<DefectiveFile> DefectiveJpegs(const Bytes& good, int width, int height) {
  constexpr uint8_t kSof0 = 0xC0, kSos = 0xDA, kApp0 = 0xE0, kDqt = 0xDB;
  const ErrorKind corrupt = ErrorKind::kCorruptImage;
  std::vector<DefectiveFile> files;
  // SOF: FF C0, length (2), precision (1), height (2), width (2), components
  // (1), then per component: id, sampling factors, table.
  files.push_back(
      {"precision_12", WithSegmentByte(good, kSof0, 4, 12), ErrorKind::kUnsupportedFormat});
  files.push_back(
      {"zero_height", WithSegmentByte(WithSegmentByte(good, kSof0, 5, 0), kSof0, 6, 0), corrupt});
  files.push_back(
      {"zero_width", WithSegmentByte(WithSegmentByte(good, kSof0, 7, 0), kSof0, 8, 0), corrupt});
  files.push_back({"zero_components", WithSegmentByte(good, kSof0, 9, 0), corrupt});
  files.push_back({"bad_sampling_factors", WithSegmentByte(good, kSof0, 11, 0x00), corrupt});
  // SOS: FF DA, length (2), components (1), then the first component's id.
  files.push_back({"scan_names_unknown_component", WithSegmentByte(good, kSos, 5, 0x7F), corrupt});
  {
    Bytes two_soi = good;
    two_soi.insert(two_soi.begin() + 2, {0xFF, 0xD8});
    files.push_back({"two_soi_markers", two_soi, corrupt});
  }
  files.push_back({"bad_marker_length",
                   WithSegmentByte(WithSegmentByte(good, kApp0, 2, 0), kApp0, 3, 1), corrupt});
  files.push_back(
      {"frame_65535x65535", WithJpegFrameSize(good, 65535, 65535), ErrorKind::kTooLarge});
  files.push_back({"cut_after_frame_header",
                   Prefix(good, SegmentEnd(good, FindJpegSegment(good, kSof0))), corrupt});
  files.push_back({"cut_inside_scan", Prefix(good, good.size() * 3 / 4), corrupt});
  files.push_back({"no_quantization_table", WithoutSegments(good, kDqt), corrupt});
  files.push_back(
      {"lossless_sof3", WithSegmentByte(good, kSof0, 1, 0xC3), ErrorKind::kUnsupportedFormat});
  files.push_back(
      {"cmyk",
       EncodeJpegWithLibjpeg(TestPicture(width, height), width, height, LibjpegVariant::kCmyk),
       ErrorKind::kUnsupportedFormat});
  files.push_back({"bmp_bytes", BmpBytes(), ErrorKind::kUnsupportedFormat});
  {
    Bytes garbage = {0xFF, 0xD8, 0xFF};
    const Bytes noise = RandomBytes(500, 11);
    garbage.insert(garbage.end(), noise.begin(), noise.end());
    files.push_back({"random_bytes_after_soi", garbage, corrupt});
  }
  return files;
}

std::vector<DefectiveFile> DefectiveGifs(const Bytes& good) {
  const ErrorKind corrupt = ErrorKind::kCorruptMask;
  const size_t image = FindGifImageDescriptor(good);
  const size_t lzw = image + 10;  // minimum code size, then the sub-blocks
  std::vector<DefectiveFile> files;
  files.push_back({"cut_in_header", Prefix(good, 9), corrupt});
  files.push_back({"cut_in_image_data", Prefix(good, lzw + (good.size() - lzw) / 2), corrupt});
  {
    Bytes no_image = Prefix(good, image);
    no_image.push_back(0x3B);
    files.push_back({"no_image", no_image, corrupt});
  }
  {
    Bytes huge = good;
    SetLittleEndian16(&huge, 6, 65535);
    SetLittleEndian16(&huge, 8, 65535);
    files.push_back({"screen_65535x65535", huge, ErrorKind::kTooLarge});
  }
  {
    Bytes zero = good;
    SetLittleEndian16(&zero, 6, 0);
    files.push_back({"zero_width_screen", zero, corrupt});
  }
  {
    Bytes zero = good;
    SetLittleEndian16(&zero, image + 5, 0);
    files.push_back({"zero_width_frame", zero, corrupt});
  }
  {
    Bytes huge = good;
    SetLittleEndian16(&huge, image + 5, 65535);
    SetLittleEndian16(&huge, image + 7, 65535);
    files.push_back({"frame_65535x65535", huge, ErrorKind::kTooLarge});
  }
  {
    Bytes bad_code_size = good;
    bad_code_size[lzw] = 12;
    files.push_back({"lzw_code_size_12", bad_code_size, corrupt});
  }
  {
    // Every code byte of the first sub-block set: codes far beyond the
    // table, which a correct decoder must refuse.
    Bytes damaged = good;
    const size_t block = lzw + 1;
    for (size_t i = block + 1; i < block + 1 + damaged[block] && i < damaged.size(); ++i)
      damaged[i] = 0xFF;
    files.push_back({"lzw_codes_out_of_range", damaged, corrupt});
  }
  files.push_back({"bmp_bytes", BmpBytes(), ErrorKind::kUnsupportedFormat});
  files.push_back({"random_bytes", RandomBytes(400, 5), ErrorKind::kUnsupportedFormat});
  return files;
}

}  // namespace segfeed::testing
