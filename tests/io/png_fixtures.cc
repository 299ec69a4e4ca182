#include "io/png_fixtures.h"

#include <gtest/gtest.h>
#include <spng.h>

#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace segfeed::testing {
namespace {

uint32_t ReadBigEndian32(const Bytes& bytes, size_t at) {
  return (uint32_t{bytes[at]} << 24) | (uint32_t{bytes[at + 1]} << 16) |
         (uint32_t{bytes[at + 2]} << 8) | bytes[at + 3];
}

void WriteBigEndian32(Bytes* bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) (*bytes)[at + i] = static_cast<uint8_t>(value >> (24 - 8 * i));
}

// PNG's CRC-32 (ISO 3309, as zlib's crc32) over `size` bytes.
uint32_t Crc32(const uint8_t* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

// Recomputes the CRC of the chunk at `offset` after its data was edited.
void FixCrc(Bytes* png, size_t offset) {
  const uint32_t length = ReadBigEndian32(*png, offset);
  const uint32_t crc = Crc32(png->data() + offset + 4, length + 4);
  WriteBigEndian32(png, offset + 8 + length, crc);
}

const PngChunk* FindChunk(const std::vector<PngChunk>& chunks, const std::string& type) {
  for (const PngChunk& chunk : chunks) {
    if (chunk.type == type) return &chunk;
  }
  return nullptr;
}

Bytes Prefix(const Bytes& bytes, size_t size) {
  return Bytes(bytes.begin(), bytes.begin() + static_cast<long>(size));
}

}  // namespace

Bytes EncodePngWithSpng(const PngPicture& picture) {
  spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  EXPECT_NE(ctx, nullptr);
  if (!ctx) return {};
  spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(picture.width);
  ihdr.height = static_cast<uint32_t>(picture.height);
  ihdr.bit_depth = static_cast<uint8_t>(picture.bit_depth);
  ihdr.color_type = static_cast<uint8_t>(picture.color_type);
  ihdr.interlace_method = picture.interlaced ? SPNG_INTERLACE_ADAM7 : SPNG_INTERLACE_NONE;
  int error = spng_set_ihdr(ctx, &ihdr);
  if (!error && !picture.palette.empty()) {
    spng_plte plte{};
    plte.n_entries = static_cast<uint32_t>(picture.palette.size());
    for (size_t i = 0; i < picture.palette.size(); ++i) {
      plte.entries[i].red = picture.palette[i][0];
      plte.entries[i].green = picture.palette[i][1];
      plte.entries[i].blue = picture.palette[i][2];
    }
    error = spng_set_plte(ctx, &plte);
  }
  if (!error) {
    error = spng_encode_image(ctx, picture.samples.data(), picture.samples.size(), SPNG_FMT_PNG,
                              SPNG_ENCODE_FINALIZE);
  }
  EXPECT_EQ(error, 0) << spng_strerror(error);
  size_t size = 0;
  void* buffer = spng_get_png_buffer(ctx, &size, &error);
  Bytes png;
  if (buffer) {
    png.assign(static_cast<uint8_t*>(buffer), static_cast<uint8_t*>(buffer) + size);
    std::free(buffer);  // libspng hands the buffer over, allocated with malloc
  }
  spng_ctx_free(ctx);
  return png;
}

Bytes PackPngSamples(const std::vector<uint16_t>& values, int width, int height, int channels,
                     int bit_depth) {
  const size_t samples_per_row = static_cast<size_t>(width) * channels;
  const size_t row_bytes = (samples_per_row * bit_depth + 7) / 8;
  Bytes out(row_bytes * height, 0);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = out.data() + y * row_bytes;
    for (size_t i = 0; i < samples_per_row; ++i) {
      const uint16_t value = values[y * samples_per_row + i];
      if (bit_depth == 16) {
        std::memcpy(row + 2 * i, &value, 2);
      } else {
        const size_t bit = i * bit_depth;
        row[bit / 8] |= static_cast<uint8_t>(value << (8 - bit_depth - bit % 8));
      }
    }
  }
  return out;
}

std::vector<uint16_t> TestSamples(int width, int height, int channels, int bit_depth) {
  const uint32_t levels = 1u << bit_depth;
  std::vector<uint16_t> values(static_cast<size_t>(width) * height * channels);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        const uint32_t ramp = (static_cast<uint32_t>(y * width + x) * 2654435761u) >> 7;
        values[(static_cast<size_t>(y) * width + x) * channels + c] =
            static_cast<uint16_t>((ramp + 977u * c + ((x / 3 + y / 2) % 2) * 31u) % levels);
      }
    }
  }
  return values;
}

Bytes EncodePngWithOpenCv(const std::vector<uint16_t>& values, int width, int height, int channels,
                          int bit_depth, bool bilevel) {
  const int depth = bit_depth == 16 ? CV_16U : CV_8U;
  cv::Mat rgb(height, width, CV_MAKETYPE(depth, channels));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width * channels; ++x) {
      const uint16_t value = values[static_cast<size_t>(y) * width * channels + x];
      if (depth == CV_16U) {
        rgb.ptr<uint16_t>(y)[x] = value;
      } else {
        rgb.ptr<uint8_t>(y)[x] = static_cast<uint8_t>(value);
      }
    }
  }
  cv::Mat bgr = rgb;
  if (channels == 3) cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  if (channels == 4) cv::cvtColor(rgb, bgr, cv::COLOR_RGBA2BGRA);
  Bytes png;
  std::vector<int> params;
  if (bilevel) params = {cv::IMWRITE_PNG_BILEVEL, 1};
  EXPECT_TRUE(cv::imencode(".png", bgr, png, params));
  return png;
}

Bytes DecodePngWithOpenCv(const Bytes& png, int* width, int* height, int* channels) {
  cv::Mat bgr = cv::imdecode(png, cv::IMREAD_UNCHANGED);
  EXPECT_FALSE(bgr.empty());
  EXPECT_EQ(bgr.depth(), CV_8U);
  cv::Mat rgb = bgr;
  if (bgr.channels() == 3) cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  if (bgr.channels() == 4) cv::cvtColor(bgr, rgb, cv::COLOR_BGRA2RGBA);
  *width = rgb.cols;
  *height = rgb.rows;
  *channels = rgb.channels();
  Bytes out;
  for (int y = 0; y < rgb.rows; ++y)
    out.insert(out.end(), rgb.ptr<uint8_t>(y), rgb.ptr<uint8_t>(y) + rgb.cols * rgb.channels());
  return out;
}

std::vector<PngChunk> PngChunks(const Bytes& png) {
  std::vector<PngChunk> chunks;
  size_t offset = 8;
  while (offset + 12 <= png.size()) {
    PngChunk chunk;
    chunk.offset = offset;
    chunk.length = ReadBigEndian32(png, offset);
    chunk.type.assign(reinterpret_cast<const char*>(png.data() + offset + 4), 4);
    chunks.push_back(chunk);
    offset += 12 + size_t{chunk.length};
  }
  return chunks;
}

Bytes MakePngChunk(const std::string& type, const Bytes& data) {
  Bytes chunk(12 + data.size());
  WriteBigEndian32(&chunk, 0, static_cast<uint32_t>(data.size()));
  std::memcpy(chunk.data() + 4, type.data(), 4);
  if (!data.empty()) std::memcpy(chunk.data() + 8, data.data(), data.size());
  FixCrc(&chunk, 0);
  return chunk;
}

Bytes InsertPngChunk(const Bytes& png, const std::string& before, const Bytes& chunk) {
  const std::vector<PngChunk> chunks = PngChunks(png);
  const PngChunk* at = FindChunk(chunks, before);
  EXPECT_NE(at, nullptr) << "no " << before << " chunk";
  Bytes out = png;
  if (at) out.insert(out.begin() + static_cast<long>(at->offset), chunk.begin(), chunk.end());
  return out;
}

Bytes RemovePngChunks(const Bytes& png, const std::string& type) {
  Bytes out(png.begin(), png.begin() + 8);
  for (const PngChunk& chunk : PngChunks(png)) {
    if (chunk.type == type) continue;
    out.insert(out.end(), png.begin() + static_cast<long>(chunk.offset),
               png.begin() + static_cast<long>(chunk.offset + 12 + chunk.length));
  }
  return out;
}

Bytes WithIdatFrom(const Bytes& png, const Bytes& donor) {
  Bytes out = RemovePngChunks(png, "IEND");
  out = RemovePngChunks(out, "IDAT");
  for (const PngChunk& chunk : PngChunks(donor)) {
    if (chunk.type != "IDAT") continue;
    out.insert(out.end(), donor.begin() + static_cast<long>(chunk.offset),
               donor.begin() + static_cast<long>(chunk.offset + 12 + chunk.length));
  }
  const Bytes iend = MakePngChunk("IEND", {});
  out.insert(out.end(), iend.begin(), iend.end());
  return out;
}

Bytes WithPngSize(Bytes png, uint32_t width, uint32_t height) {
  WriteBigEndian32(&png, 16, width);
  WriteBigEndian32(&png, 20, height);
  FixCrc(&png, 8);
  return png;
}

std::vector<DefectiveFile> DefectivePngs(const Bytes& good, ErrorKind corrupt) {
  const std::vector<PngChunk> chunks = PngChunks(good);
  const PngChunk* idat = FindChunk(chunks, "IDAT");
  EXPECT_NE(idat, nullptr);
  if (!idat) return {};
  std::vector<DefectiveFile> files;
  files.push_back({"cut_after_signature", Prefix(good, 8), corrupt});
  files.push_back({"cut_in_ihdr", Prefix(good, 20), corrupt});
  files.push_back({"cut_before_idat", Prefix(good, idat->offset), corrupt});
  files.push_back({"cut_inside_idat", Prefix(good, idat->offset + 8 + idat->length / 2), corrupt});
  files.push_back({"cut_before_idat_crc", Prefix(good, idat->offset + 8 + idat->length), corrupt});
  Bytes bad_ihdr_crc = good;
  bad_ihdr_crc[29] ^= 0x01;  // the IHDR's CRC follows its 13 data bytes
  files.push_back({"bad_ihdr_crc", bad_ihdr_crc, corrupt});
  Bytes bad_idat_crc = good;
  bad_idat_crc[idat->offset + 8 + idat->length] ^= 0x80;
  files.push_back({"bad_idat_crc", bad_idat_crc, corrupt});
  Bytes damaged_data = good;
  // The zlib header's second byte (its check bits) and the data after it.
  for (size_t i = 1; i < idat->length; i += 7) damaged_data[idat->offset + 8 + i] ^= 0x5A;
  FixCrc(&damaged_data, idat->offset);
  files.push_back({"damaged_compressed_data", damaged_data, corrupt});
  files.push_back({"unknown_critical_chunk",
                   InsertPngChunk(good, "IDAT", MakePngChunk("QUUX", Bytes{1, 2, 3})), corrupt});
  Bytes zero_width = WithPngSize(good, 0, ReadBigEndian32(good, 20));
  files.push_back({"zero_width", zero_width, corrupt});
  Bytes bit_depth_3 = good;
  bit_depth_3[24] = 3;
  FixCrc(&bit_depth_3, 8);
  files.push_back({"bit_depth_3", bit_depth_3, corrupt});
  files.push_back({"no_idat", RemovePngChunks(good, "IDAT"), corrupt});
  files.push_back({"header_60000x60000", WithPngSize(good, 60000, 60000), ErrorKind::kTooLarge});

  PngPicture palette;
  palette.width = 8;
  palette.height = 4;
  palette.color_type = 3;
  palette.palette = {Rgb{0, 0, 0}, Rgb{255, 0, 0}, Rgb{0, 255, 0}, Rgb{0, 0, 255}};
  palette.samples.assign(32, 1);
  const Bytes good_palette = EncodePngWithSpng(palette);
  files.push_back({"palette_without_plte", RemovePngChunks(good_palette, "PLTE"), corrupt});
  palette.samples[13] = 7;
  files.push_back({"palette_index_beyond_palette", EncodePngWithSpng(palette), corrupt});

  files.push_back(
      {"gif", Bytes{'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0}, ErrorKind::kUnsupportedFormat});
  files.push_back({"random_bytes", RandomBytes(300, 11), ErrorKind::kUnsupportedFormat});
  files.push_back({"empty", Bytes{}, ErrorKind::kUnsupportedFormat});
  return files;
}

}  // namespace segfeed::testing
