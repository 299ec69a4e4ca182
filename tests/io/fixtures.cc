#include "io/fixtures.h"

#include <gif_lib.h>
#include <gtest/gtest.h>
#include <jpeglib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <string>

namespace segfeed::testing {

std::vector<uint8_t> TestPicture(int width, int height) {
  std::vector<uint8_t> rgb(static_cast<size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &rgb[(static_cast<size_t>(y) * width + x) * 3];
      p[0] = static_cast<uint8_t>(255 * x / std::max(1, width - 1));
      p[1] = static_cast<uint8_t>(255 * y / std::max(1, height - 1));
      p[2] = ((x / 16 + y / 12) % 2) ? 200 : 50;  // edges exercise the DCT
    }
  }
  return rgb;
}

Bytes EncodeJpegWithOpenCv(const std::vector<uint8_t>& rgb, int width, int height,
                           JpegVariant variant, int quality) {
  cv::Mat rgb_mat(height, width, CV_8UC3, const_cast<uint8_t*>(rgb.data()));
  cv::Mat converted;
  if (variant == JpegVariant::kGrayscale) {
    cv::cvtColor(rgb_mat, converted, cv::COLOR_RGB2GRAY);
  } else {
    cv::cvtColor(rgb_mat, converted, cv::COLOR_RGB2BGR);
  }
  std::vector<int> params = {cv::IMWRITE_JPEG_QUALITY, quality};
  if (variant == JpegVariant::kProgressive) {
    params.insert(params.end(), {cv::IMWRITE_JPEG_PROGRESSIVE, 1});
  }
  Bytes jpeg;
  EXPECT_TRUE(cv::imencode(".jpg", converted, jpeg, params));
  return jpeg;
}

Bytes EncodeJpegWithLibjpeg(const std::vector<uint8_t>& rgb, int width, int height,
                            LibjpegVariant variant) {
  // libjpeg's default error handler exits the process; acceptable here
  // because these inputs are valid and this is test-only code.
  jpeg_compress_struct cinfo{};
  jpeg_error_mgr jerr{};
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* out = nullptr;
  unsigned long out_size = 0;  // NOLINT(runtime/int): libjpeg's type
  jpeg_mem_dest(&cinfo, &out, &out_size);
  cinfo.image_width = width;
  cinfo.image_height = height;
  const bool ink = variant == LibjpegVariant::kCmyk || variant == LibjpegVariant::kYcck;
  cinfo.input_components = ink ? 4 : 3;
  cinfo.in_color_space = ink ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 90, TRUE);
  if (variant == LibjpegVariant::kArithmetic || variant == LibjpegVariant::kArithmeticProgressive)
    cinfo.arith_code = TRUE;
  if (variant == LibjpegVariant::kProgressive411) {
    cinfo.comp_info[0].h_samp_factor = 4;
    cinfo.comp_info[0].v_samp_factor = 1;
  }
  if (variant == LibjpegVariant::kProgressive444) {
    cinfo.comp_info[0].h_samp_factor = 1;
    cinfo.comp_info[0].v_samp_factor = 1;
  }
  if (variant == LibjpegVariant::kProgressive ||
      variant == LibjpegVariant::kArithmeticProgressive ||
      variant == LibjpegVariant::kProgressive411 || variant == LibjpegVariant::kProgressive444)
    jpeg_simple_progression(&cinfo);
  if (variant == LibjpegVariant::kCmyk) jpeg_set_colorspace(&cinfo, JCS_CMYK);
  if (variant == LibjpegVariant::kYcck) jpeg_set_colorspace(&cinfo, JCS_YCCK);
  if (variant == LibjpegVariant::kRgbCoded) jpeg_set_colorspace(&cinfo, JCS_RGB);
  jpeg_start_compress(&cinfo, TRUE);
  std::vector<uint8_t> row(static_cast<size_t>(width) * cinfo.input_components);
  while (cinfo.next_scanline < cinfo.image_height) {
    const uint8_t* src = &rgb[static_cast<size_t>(cinfo.next_scanline) * width * 3];
    for (int x = 0; x < width; ++x) {
      if (ink) {
        for (int c = 0; c < 3; ++c) row[x * 4 + c] = 255 - src[x * 3 + c];
        row[x * 4 + 3] = 0;
      } else {
        for (int c = 0; c < 3; ++c) row[x * 3 + c] = src[x * 3 + c];
      }
    }
    JSAMPROW rows[1] = {row.data()};
    jpeg_write_scanlines(&cinfo, rows, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  Bytes jpeg(out, out + out_size);
  std::free(out);
  return jpeg;
}

std::vector<uint8_t> DecodeJpegWithOpenCv(const Bytes& jpeg, int* width, int* height) {
  cv::Mat bgr = cv::imdecode(jpeg, cv::IMREAD_COLOR);
  EXPECT_FALSE(bgr.empty());
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  *width = rgb.cols;
  *height = rgb.rows;
  return std::vector<uint8_t>(rgb.data, rgb.data + rgb.total() * 3);
}

Bytes WithJpegFrameSize(Bytes jpeg, int width, int height) {
  for (size_t i = 2; i + 9 < jpeg.size();) {
    EXPECT_EQ(jpeg[i], 0xFF);
    const uint8_t marker = jpeg[i + 1];
    if (marker >= 0xC0 && marker <= 0xC2) {
      // FF Cn, length (2), precision (1), height (2), width (2)
      jpeg[i + 5] = static_cast<uint8_t>(height >> 8);
      jpeg[i + 6] = static_cast<uint8_t>(height);
      jpeg[i + 7] = static_cast<uint8_t>(width >> 8);
      jpeg[i + 8] = static_cast<uint8_t>(width);
      return jpeg;
    }
    i += 2 + ((jpeg[i + 2] << 8) | jpeg[i + 3]);
  }
  ADD_FAILURE() << "no SOF marker";
  return jpeg;
}

namespace {

int WriteToVector(GifFileType* gif, const GifByteType* data, int length) {
  auto* out = static_cast<Bytes*>(gif->UserData);
  out->insert(out->end(), data, data + length);
  return length;
}

constexpr int kPassFirstRow[4] = {0, 4, 2, 1};
constexpr int kPassRowStep[4] = {8, 8, 4, 2};

}  // namespace

Bytes EncodeGif(const GifPicture& picture) {
  Bytes out;
  int error = 0;
  GifFileType* gif = EGifOpen(&out, WriteToVector, &error);
  EXPECT_NE(gif, nullptr);
  int colours = 2;
  while (colours < static_cast<int>(picture.palette.size())) colours *= 2;
  std::vector<GifColorType> palette(colours, GifColorType{0, 0, 0});
  for (size_t i = 0; i < picture.palette.size(); ++i) {
    palette[i] = {picture.palette[i][0], picture.palette[i][1], picture.palette[i][2]};
  }
  ColorMapObject* map = GifMakeMapObject(colours, palette.data());
  EXPECT_EQ(EGifPutScreenDesc(gif, picture.screen_width, picture.screen_height, 8, 0, map), GIF_OK);
  for (const GifFrame& frame : picture.frames) {
    if (frame.transparent_index >= 0) {
      GraphicsControlBlock control{};
      control.TransparentColor = frame.transparent_index;
      GifByteType block[4];
      const size_t length = EGifGCBToExtension(&control, block);
      EXPECT_EQ(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(length), block),
                GIF_OK);
    }
    EXPECT_EQ(EGifPutImageDesc(gif, frame.left, frame.top, frame.width, frame.height,
                               frame.interlaced, nullptr),
              GIF_OK);
    auto put_row = [&](int y) {
      auto* row = const_cast<GifPixelType*>(&frame.indices[static_cast<size_t>(y) * frame.width]);
      EXPECT_EQ(EGifPutLine(gif, row, frame.width), GIF_OK);
    };
    if (frame.interlaced) {
      for (int pass = 0; pass < 4; ++pass) {
        for (int y = kPassFirstRow[pass]; y < frame.height; y += kPassRowStep[pass]) put_row(y);
      }
    } else {
      for (int y = 0; y < frame.height; ++y) put_row(y);
    }
  }
  GifFreeMapObject(map);
  EXPECT_EQ(EGifCloseFile(gif, &error), GIF_OK);
  return out;
}

Bytes ThreeColourMaskGif(int width, int height) {
  GifPicture picture;
  picture.screen_width = width;
  picture.screen_height = height;
  picture.palette = {Rgb{0, 0, 0}, Rgb{255, 255, 255}, Rgb{200, 200, 200}, Rgb{0, 0, 0}};
  GifFrame frame;
  frame.width = width;
  frame.height = height;
  for (int i = 0; i < width * height; ++i) frame.indices.push_back(static_cast<uint8_t>(i % 3));
  picture.frames.push_back(frame);
  return EncodeGif(picture);
}

Bytes EncodeMaskGif(const std::vector<uint8_t>& mask, int width, int height, bool interlaced) {
  GifPicture picture;
  picture.screen_width = width;
  picture.screen_height = height;
  picture.frames.push_back({0, 0, width, height, interlaced, -1, mask});
  return EncodeGif(picture);
}

std::vector<uint8_t> TestMask(int width, int height) {
  std::vector<uint8_t> mask(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double dx = (x - width / 2.0) / (width / 3.0);
      const double dy = (y - height / 2.0) / (height / 4.0);
      mask[static_cast<size_t>(y) * width + x] = (dx * dx + dy * dy < 1.0) || (y % 11 == 3);
    }
  }
  return mask;
}

namespace {
int ReadFromVector(GifFileType* gif, GifByteType* buffer, int length) {
  auto* source = static_cast<std::pair<const Bytes*, size_t>*>(gif->UserData);
  const size_t n = std::min<size_t>(length, source->first->size() - source->second);
  std::copy_n(source->first->data() + source->second, n, buffer);
  source->second += n;
  return static_cast<int>(n);
}
}  // namespace

std::vector<uint8_t> SlurpFirstFrame(const Bytes& gif_bytes, int* width, int* height) {
  std::pair<const Bytes*, size_t> source{&gif_bytes, 0};
  int error = 0;
  GifFileType* gif = DGifOpen(&source, ReadFromVector, &error);
  EXPECT_NE(gif, nullptr);
  EXPECT_EQ(DGifSlurp(gif), GIF_OK);
  EXPECT_GE(gif->ImageCount, 1);
  const SavedImage& image = gif->SavedImages[0];
  *width = image.ImageDesc.Width;
  *height = image.ImageDesc.Height;
  std::vector<uint8_t> raster(image.RasterBits,
                              image.RasterBits + static_cast<size_t>(*width) * *height);
  DGifCloseFile(gif, &error);
  return raster;
}

FrameLzw FirstFrameLzwData(const Bytes& gif_bytes) {
  std::pair<const Bytes*, size_t> source{&gif_bytes, 0};
  int error = 0;
  GifFileType* gif = DGifOpen(&source, ReadFromVector, &error);
  EXPECT_NE(gif, nullptr);
  FrameLzw lzw;
  GifRecordType record = UNDEFINED_RECORD_TYPE;
  while (gif && DGifGetRecordType(gif, &record) == GIF_OK && record != IMAGE_DESC_RECORD_TYPE &&
         record != TERMINATE_RECORD_TYPE) {
    int code = 0;
    GifByteType* block = nullptr;
    if (record == EXTENSION_RECORD_TYPE && DGifGetExtension(gif, &code, &block) == GIF_OK) {
      while (block && DGifGetExtensionNext(gif, &block) == GIF_OK) {
      }
    }
  }
  GifByteType* block = nullptr;
  if (gif && record == IMAGE_DESC_RECORD_TYPE && DGifGetImageDesc(gif) == GIF_OK &&
      DGifGetCode(gif, &lzw.min_code_size, &block) == GIF_OK) {
    while (block) {
      lzw.data.insert(lzw.data.end(), block + 1, block + 1 + block[0]);
      if (DGifGetCodeNext(gif, &block) != GIF_OK) break;
    }
  }
  EXPECT_FALSE(lzw.data.empty());
  if (gif) DGifCloseFile(gif, &error);
  return lzw;
}

Bytes LzwLiteralStream(const std::vector<uint8_t>& pixels, int min_code_size, bool end_code) {
  Bytes out;
  uint64_t bits = 0;
  int bit_count = 0;
  int code_size = min_code_size + 1;
  int next_code = (1 << min_code_size) + 2;
  auto put = [&](int code) {
    bits |= uint64_t(code) << bit_count;
    bit_count += code_size;
    while (bit_count >= 8) {
      out.push_back(static_cast<uint8_t>(bits));
      bits >>= 8;
      bit_count -= 8;
    }
  };
  put(1 << min_code_size);  // clear
  for (size_t i = 0; i < pixels.size(); ++i) {
    put(pixels[i]);
    if (i > 0 && next_code < 4096) ++next_code;
    if (next_code >= (1 << code_size) && code_size < 12) ++code_size;
  }
  if (end_code) put((1 << min_code_size) + 1);
  if (bit_count > 0) out.push_back(static_cast<uint8_t>(bits));
  return out;
}

Bytes GifWithLzwData(int width, int height, int palette_size, int min_code_size, const Bytes& lzw) {
  int bits = 1;
  while ((1 << bits) < palette_size) ++bits;
  Bytes gif = {'G',
               'I',
               'F',
               '8',
               '9',
               'a',
               static_cast<uint8_t>(width),
               static_cast<uint8_t>(width >> 8),
               static_cast<uint8_t>(height),
               static_cast<uint8_t>(height >> 8),
               static_cast<uint8_t>(0x80 | (bits - 1)),
               0,
               0};
  for (int i = 0; i < (1 << bits); ++i) {
    const auto grey = static_cast<uint8_t>(i * 255 / ((1 << bits) - 1));
    gif.insert(gif.end(), {grey, grey, grey});
  }
  gif.insert(gif.end(),
             {0x2C, 0, 0, 0, 0, static_cast<uint8_t>(width), static_cast<uint8_t>(width >> 8),
              static_cast<uint8_t>(height), static_cast<uint8_t>(height >> 8), 0,
              static_cast<uint8_t>(min_code_size)});
  for (size_t i = 0; i < lzw.size(); i += 255) {
    const size_t n = std::min<size_t>(255, lzw.size() - i);
    gif.push_back(static_cast<uint8_t>(n));
    gif.insert(gif.end(), lzw.begin() + i, lzw.begin() + i + n);
  }
  gif.insert(gif.end(), {0, 0x3B});
  return gif;
}

void WriteFile(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

Bytes RandomBytes(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  Bytes bytes(count);
  for (auto& b : bytes) b = static_cast<uint8_t>(generator());
  return bytes;
}

namespace {
// A "VmHWM:" or "VmRSS:" line of /proc/self/status, in bytes.
int64_t StatusFieldBytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;
  }
  return -1;
}
}  // namespace

int64_t PeakRssGrowthBytes(const std::function<void()>& work) {
  {
    // Writing 5 resets the peak RSS (VmHWM) to the current RSS (Linux 4.0+).
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
  }
  const int64_t before = StatusFieldBytes("VmRSS:");
  // Without the reset (old kernel, restricted /proc) an earlier peak would
  // hide the growth; report "unmeasurable" instead of a wrong number.
  if (StatusFieldBytes("VmHWM:") > before + (1 << 20)) return -1;
  work();
  const int64_t peak = StatusFieldBytes("VmHWM:");
  return peak - before;
}

}  // namespace segfeed::testing
