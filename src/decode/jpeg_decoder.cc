#include "decode/jpeg_decoder.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "decode/format_sniffer.h"
#include "source/file_reader.h"
#include "source/scratch_growth.h"

namespace segfeed::decode {
namespace {

Error ImageError(ErrorKind kind, std::string_view path, std::string detail) {
  return Error{kind, std::string(path), std::move(detail)};
}

// The start-of-frame segment says how the image is coded and at what
// precision; TurboJPEG 2.1 reports neither, so we walk the marker segments
// up to the first SOF.
struct FrameMarker {
  int marker = 0;     // 0xC0-0xCF; 0 when no SOF comes before the scan data or the end
  int precision = 0;  // bits per sample
  int width = 0;      // as the frame header claims, before libjpeg's checks
  int height = 0;
  // libjpeg's whole-image coefficient arrays (2 bytes per coefficient, 64
  // per 8x8 block of each component, padded to whole MCUs), which it keeps
  // for a file of more than one scan.
  int64_t coefficient_bytes = 0;
};

int64_t CoefficientBytes(std::span<const uint8_t> sof, int width, int height) {
  // SOF: FF Cn, length (2), precision, height (2), width (2), components,
  // then per component: id, sampling factors (H << 4 | V), table.
  if (sof.size() < 10) return 0;
  const int components = sof[9];
  if (components < 1 || sof.size() < 10 + 3 * static_cast<size_t>(components)) return 0;
  int h_max = 1, v_max = 1;
  for (int c = 0; c < components; ++c) {
    h_max = std::max(h_max, sof[11 + 3 * c] >> 4);
    v_max = std::max(v_max, sof[11 + 3 * c] & 15);
  }
  int64_t bytes = 0;
  for (int c = 0; c < components; ++c) {
    const int64_t h = std::max(1, sof[11 + 3 * c] >> 4), v = std::max(1, sof[11 + 3 * c] & 15);
    const int64_t blocks_wide = ((int64_t{width} * h + h_max - 1) / h_max + 7) / 8;
    const int64_t blocks_high = ((int64_t{height} * v + v_max - 1) / v_max + 7) / 8;
    bytes += (blocks_wide + h - 1) / h * h * ((blocks_high + v - 1) / v * v) * 64 * 2;
  }
  return bytes;
}

// Start-of-scan markers in the whole file. Entropy-coded data stuffs a zero
// after every FF byte, so FF DA is always a real marker.
int CountScans(std::span<const uint8_t> jpeg) {
  int scans = 0;
  const uint8_t* p = jpeg.data();
  const uint8_t* end = jpeg.data() + jpeg.size();
  while (p + 1 < end) {
    p = static_cast<const uint8_t*>(std::memchr(p, 0xFF, static_cast<size_t>(end - p - 1)));
    if (!p) break;
    if (p[1] == 0xDA) ++scans;
    ++p;
  }
  return scans;
}

FrameMarker FindStartOfFrame(std::span<const uint8_t> jpeg) {
  size_t pos = 2;  // after SOI
  while (pos + 4 <= jpeg.size()) {
    if (jpeg[pos] != 0xFF) return {};
    const uint8_t marker = jpeg[pos + 1];
    if (marker == 0xFF) {  // fill byte before a marker
      ++pos;
      continue;
    }
    // Markers without a length field.
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
      pos += 2;
      continue;
    }
    // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      if (pos + 9 > jpeg.size()) return {marker};
      FrameMarker frame{marker, jpeg[pos + 4], (jpeg[pos + 7] << 8) | jpeg[pos + 8],
                        (jpeg[pos + 5] << 8) | jpeg[pos + 6]};
      frame.coefficient_bytes = CoefficientBytes(jpeg.subspan(pos), frame.width, frame.height);
      return frame;
    }
    if (marker == 0xDA || marker == 0xD9) return {};  // SOS or EOI before any SOF
    const size_t length = (static_cast<size_t>(jpeg[pos + 2]) << 8) | jpeg[pos + 3];
    if (length < 2) return {};
    pos += 2 + length;
  }
  return {};
}

JpegColorspace ToColorspace(int tj_colorspace) {
  switch (tj_colorspace) {
    case TJCS_RGB:
      return JpegColorspace::kRgb;
    case TJCS_GRAY:
      return JpegColorspace::kGray;
    case TJCS_CMYK:
      return JpegColorspace::kCmyk;
    case TJCS_YCCK:
      return JpegColorspace::kYcck;
    default:
      return JpegColorspace::kYCbCr;
  }
}

JpegSubsampling ToSubsampling(int tj_subsampling) {
  switch (tj_subsampling) {
    case TJSAMP_444:
      return JpegSubsampling::k444;
    case TJSAMP_422:
      return JpegSubsampling::k422;
    case TJSAMP_GRAY:
      return JpegSubsampling::kGray;
    case TJSAMP_440:
      return JpegSubsampling::k440;
    case TJSAMP_411:
      return JpegSubsampling::k411;
    default:
      return JpegSubsampling::k420;
  }
}

// TurboJPEG's constant for `subsampling`.
int ToTurboSubsampling(JpegSubsampling subsampling) {
  switch (subsampling) {
    case JpegSubsampling::k444:
      return TJSAMP_444;
    case JpegSubsampling::k422:
      return TJSAMP_422;
    case JpegSubsampling::kGray:
      return TJSAMP_GRAY;
    case JpegSubsampling::k440:
      return TJSAMP_440;
    case JpegSubsampling::k411:
      return TJSAMP_411;
    case JpegSubsampling::k420:
      break;
  }
  return TJSAMP_420;
}

// LIMITSCANS refuses progressive files with more than 500 scans, a known
// way to make a tiny file take minutes to decode.
int DecodeFlags(const DecodeOptions& options) {
  int flags = TJFLAG_LIMITSCANS;
  if (options.jpeg_warnings == JpegWarnings::kAreErrors) flags |= TJFLAG_STOPONWARNING;
  return flags;
}

}  // namespace

void JpegDecoder::HandleDeleter::operator()(void* handle) const { tjDestroy(handle); }

JpegDecoder::JpegDecoder(const DecodeOptions& options) : options_(options) {
  StartNewFile();
  int count = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&count);
  for (int i = 0; factors && i < count; ++i) {
    if (factors[i].num <= factors[i].denom) {
      downscales_.push_back(DctScale{factors[i].num, factors[i].denom});
    }
  }
  // Largest first, so ChooseScale() can stop at the first that is too small.
  std::sort(downscales_.begin(), downscales_.end(),
            [](const DctScale& a, const DctScale& b) { return a.num * b.denom > b.num * a.denom; });
}

JpegDecoder::~JpegDecoder() = default;

// libjpeg keeps quantization and Huffman tables in the decompressor from one
// stream to the next (for abbreviated streams), and TurboJPEG 2.1 leaves it
// in a state that fails the next stream after some header errors ("two SOI
// markers"). A handle per file costs a few microseconds against milliseconds
// of decoding and guarantees that no file inherits anything from another.
void JpegDecoder::StartNewFile() {
  handle_.reset(tjInitDecompress());
  if (!handle_) throw std::bad_alloc();
}

Result<JpegHeader> JpegDecoder::ReadHeader(std::span<const uint8_t> jpeg, std::string_view path) {
  if (SniffFormat(jpeg) != SniffedFormat::kJpeg) {
    return ImageError(ErrorKind::kUnsupportedFormat, path,
                      "not a JPEG file (" + DescribeContent(jpeg) + ")");
  }
  StartNewFile();
  JpegHeader header;
  const FrameMarker frame = FindStartOfFrame(jpeg);
  const int sof = frame.marker;
  // Lossless (C3, C7, CB, CF) and hierarchical (C5-C7, CD-CF) processes.
  if (sof == 0xC3 || sof == 0xCB || (sof >= 0xC5 && sof <= 0xC7) || sof >= 0xCD) {
    char name[8];
    std::snprintf(name, sizeof name, "SOF%d", sof - 0xC0);
    return ImageError(ErrorKind::kUnsupportedFormat, path,
                      std::string("lossless or hierarchical JPEG (") + name + ") is not supported");
  }
  if (sof != 0 && frame.precision != 8) {
    return ImageError(ErrorKind::kUnsupportedFormat, path,
                      std::to_string(frame.precision) +
                          "-bit JPEG (data precision in the frame header) is not supported; "
                          "only 8-bit JPEG is");
  }
  header.progressive = sof == 0xC2 || sof == 0xCA;
  header.arithmetic = sof >= 0xC9;

  // Before libjpeg sees the header: it refuses sizes over 65500 as corrupt,
  // and a size over the limit is too_large whatever libjpeg thinks of it.
  if (Status too_large = CheckPixelLimit(frame.width, frame.height, path); !too_large.ok()) {
    return too_large.error();
  }

  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle_.get(), jpeg.data(), static_cast<unsigned long>(jpeg.size()),
                          &width, &height, &subsampling, &colorspace) != 0) {
    return ImageError(ErrorKind::kCorruptImage, path,
                      std::string("bad JPEG header: ") + tjGetErrorStr2(handle_.get()));
  }
  // TurboJPEG accepts a tables-only stream, which is also what a file cut
  // inside its tables looks like: success with a 0x0 image.
  if (width < 1 || height < 1) {
    return ImageError(ErrorKind::kCorruptImage, path,
                      "JPEG has no frame header (SOF): the file holds only tables or markers");
  }
  header.width = width;
  header.height = height;
  header.subsampling = ToSubsampling(subsampling);
  header.colorspace = ToColorspace(colorspace);
  // Again with libjpeg's reading (the frame may not be the first SOF seen).
  if (Status too_large = CheckPixelLimit(width, height, path); !too_large.ok())
    return too_large.error();
  header.scans = CountScans(jpeg);
  if (header.scans > 1) header.coefficient_bytes = frame.coefficient_bytes;
  // Every scan of a progressive file passes over the whole image: the work,
  // not only the memory, must be bounded, or one small file stalls an epoch.
  const int64_t pixel_scans = int64_t{width} * height * std::max(1, header.scans);
  if (pixel_scans > options_.max_pixel_scans) {
    return ImageError(ErrorKind::kTooLarge, path,
                      "JPEG has " + std::to_string(header.scans) + " scans over " +
                          std::to_string(width) + "x" + std::to_string(height) +
                          " pixels = " + std::to_string(pixel_scans) +
                          " pixel-scans of work, more than max_pixel_scans = " +
                          std::to_string(options_.max_pixel_scans));
  }

  if (header.colorspace == JpegColorspace::kCmyk || header.colorspace == JpegColorspace::kYcck) {
    return ImageError(ErrorKind::kUnsupportedFormat, path,
                      std::string(header.colorspace == JpegColorspace::kCmyk ? "CMYK" : "YCCK") +
                          " JPEG is not supported (convert the image to RGB)");
  }
  return header;
}

Status JpegDecoder::CheckDataCanHoldBlocks(std::span<const uint8_t> jpeg, const JpegHeader& header,
                                           std::string_view path) {
  if (header.arithmetic) return {};
  const int64_t blocks = (int64_t{header.width} + 7) / 8 * ((int64_t{header.height} + 7) / 8);
  const int64_t bits = static_cast<int64_t>(jpeg.size()) * 8;
  if (bits >= blocks) return {};
  return ImageError(ErrorKind::kCorruptImage, path,
                    "truncated JPEG: " + std::to_string(jpeg.size()) + " bytes cannot hold the " +
                        std::to_string(blocks) + " 8x8 blocks of the " +
                        std::to_string(header.width) + "x" + std::to_string(header.height) +
                        " pixels its frame header claims (at least 1 bit each)");
}

Status JpegDecoder::CheckPixelLimit(int width, int height, std::string_view path) const {
  const int64_t pixels = static_cast<int64_t>(width) * height;
  if (pixels <= options_.max_pixels) return {};
  return ImageError(ErrorKind::kTooLarge, path,
                    "JPEG header claims " + std::to_string(width) + "x" + std::to_string(height) +
                        " = " + std::to_string(pixels) +
                        " pixels, more than max_pixels = " + std::to_string(options_.max_pixels));
}

DctScale JpegDecoder::ChooseScale(int source_width, int source_height, int output_width,
                                  int output_height) const {
  DctScale best;  // 1/1
  if (output_width <= 0 || output_height <= 0) return best;
  for (const DctScale& scale : downscales_) {
    if (scale.Apply(source_width) < output_width || scale.Apply(source_height) < output_height) {
      break;  // this and every smaller scale would upscale again later
    }
    best = scale;
  }
  return best;
}

bool JpegDecoder::DecodesToPlanes(const JpegHeader& header) const {
  return options_.decode_colour == DecodeColour::kYCbCr &&
         (header.colorspace == JpegColorspace::kYCbCr ||
          header.colorspace == JpegColorspace::kGray);
}

int64_t JpegDecoder::DecodedBytes(const JpegHeader& header, DctScale scale) const {
  const int width = scale.Apply(header.width), height = scale.Apply(header.height);
  if (!DecodesToPlanes(header)) return int64_t{width} * height * 3;
  // tjPlaneSizeYUV() with the strides DecodePlanes() passes.
  const int subsampling = ToTurboSubsampling(header.subsampling);
  int64_t bytes = 0;
  for (int plane = 0; plane < (subsampling == TJSAMP_GRAY ? 1 : 3); ++plane) {
    bytes += int64_t{tjPlaneWidth(plane, width, subsampling)} *
             tjPlaneHeight(plane, height, subsampling);
  }
  return bytes;
}

Status JpegDecoder::Decode(std::span<const uint8_t> jpeg, const JpegHeader& header, DctScale scale,
                           std::string_view path, DecodedImage* out) {
  if (Status enough = CheckDataCanHoldBlocks(jpeg, header, path); !enough.ok()) return enough;
  if (DecodesToPlanes(header)) return DecodePlanes(jpeg, header, scale, path, out);
  StartNewFile();
  out->width = scale.Apply(header.width);
  out->height = scale.Apply(header.height);
  out->layout = DecodedImage::Layout::kRgb;
  out->windowed = false;
  out->luma_stride = out->luma_rows = 0;
  out->chroma_width = out->chroma_height = 0;
  out->chroma_step_x = out->chroma_step_y = 1;
  // resize() keeps the capacity, so this allocates only for a larger image
  // than any before on this thread.
  source::ResizeScratch(&out->pixels, static_cast<size_t>(out->width) * out->height * 3);
  if (tjDecompress2(handle_.get(), jpeg.data(), static_cast<unsigned long>(jpeg.size()),
                    out->pixels.data(), out->width, 0, out->height, TJPF_RGB,
                    DecodeFlags(options_)) != 0)
    return DecodeFailure(path);
  return {};
}

Status JpegDecoder::DecodePlanes(std::span<const uint8_t> jpeg, const JpegHeader& header,
                                 DctScale scale, std::string_view path, DecodedImage* out) {
  StartNewFile();
  const int subsampling = ToTurboSubsampling(header.subsampling);
  const int width = scale.Apply(header.width);
  const int height = scale.Apply(header.height);
  out->width = width;
  out->height = height;
  out->layout = DecodedImage::Layout::kYCbCrPlanes;
  out->windowed = false;
  const bool grey = subsampling == TJSAMP_GRAY;
  // TurboJPEG writes tjPlaneHeight(0) rows of tjPlaneWidth(0) bytes: the
  // size rounded up to whole chroma samples, one row and one column more
  // than the photo at an odd size. The chroma planes are its ceil(size /
  // step) samples, the last one covering the padding.
  out->luma_stride = tjPlaneWidth(0, width, subsampling);
  out->luma_rows = tjPlaneHeight(0, height, subsampling);
  out->chroma_width = grey ? 0 : tjPlaneWidth(1, width, subsampling);
  out->chroma_height = grey ? 0 : tjPlaneHeight(1, height, subsampling);
  out->chroma_step_x = grey ? 1 : tjMCUWidth[subsampling] / 8;
  out->chroma_step_y = grey ? 1 : tjMCUHeight[subsampling] / 8;
  const size_t luma_bytes = static_cast<size_t>(out->luma_stride) * out->luma_rows;
  const size_t chroma_bytes = static_cast<size_t>(out->chroma_width) * out->chroma_height;
  source::ResizeScratch(&out->pixels, luma_bytes + 2 * chroma_bytes);
  unsigned char* planes[3] = {out->pixels.data(), out->pixels.data() + luma_bytes,
                              out->pixels.data() + luma_bytes + chroma_bytes};
  int strides[3] = {out->luma_stride, out->chroma_width, out->chroma_width};
  if (tjDecompressToYUVPlanes(handle_.get(), jpeg.data(), static_cast<unsigned long>(jpeg.size()),
                              planes, width, strides, height, DecodeFlags(options_)) != 0)
    return DecodeFailure(path);
  return {};
}

Status JpegDecoder::DecodeFailure(std::string_view path) const {
  // Without STOPONWARNING, TurboJPEG finishes the image and still returns
  // -1 for a warning; that is the caller's choice to accept.
  const bool warning_only = tjGetErrorCode(handle_.get()) == TJERR_WARNING;
  if (warning_only && options_.jpeg_warnings == JpegWarnings::kAreIgnored) return {};
  return ImageError(ErrorKind::kCorruptImage, path,
                    std::string(warning_only ? "JPEG data warning: " : "corrupt JPEG data: ") +
                        tjGetErrorStr2(handle_.get()));
}

Result<JpegHeader> ReadJpegHeaderFile(const std::filesystem::path& path,
                                      const DecodeOptions& options) {
  source::FileReader file(options.max_file_bytes);
  auto bytes = file.Read(path);
  if (!bytes.ok()) return bytes.error();
  JpegDecoder decoder(options);
  return decoder.ReadHeader(bytes.value(), path.native());
}

}  // namespace segfeed::decode
