#include "output/image_writers.h"

#include <gif_lib.h>
#include <turbojpeg.h>

#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace segfeed::tools {
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

}  // namespace

internal::Status WriteJpeg(const OutputFile& file, const uint8_t* rgb, int width, int height,
                           int quality) {
  std::unique_ptr<void, TjHandleCloser> encoder(tjInitCompress());
  if (!encoder) return WriteError(file.path(), tjGetErrorStr2(nullptr));
  unsigned char* jpeg = nullptr;
  unsigned long jpeg_bytes = 0;  // NOLINT(runtime/int): TurboJPEG's type
  int rc = tjCompress2(encoder.get(), rgb, width, 0, height, TJPF_RGB, &jpeg, &jpeg_bytes,
                       TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
  std::unique_ptr<unsigned char, TjBufferFree> owned(jpeg);
  if (rc != 0) return WriteError(file.path(), tjGetErrorStr2(encoder.get()));
  return file.Write(std::string_view(reinterpret_cast<const char*>(jpeg), jpeg_bytes));
}

internal::Status WriteJpeg(const std::filesystem::path& path, const uint8_t* rgb, int width,
                           int height, int quality) {
  internal::Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WriteJpeg(file.value(), rgb, width, height, quality);
}

internal::Status WritePng(const OutputFile& file, const uint8_t* pixels, int width, int height,
                          int channels) {
  if (channels != 1 && channels != 3) return WriteError(file.path(), "PNG needs 1 or 3 channels");
  // OpenCV only reads through the Mat header here.
  const cv::Mat source(height, width, channels == 3 ? CV_8UC3 : CV_8UC1,
                       const_cast<uint8_t*>(pixels));
  cv::Mat bgr;
  if (channels == 3) cv::cvtColor(source, bgr, cv::COLOR_RGB2BGR);  // OpenCV's codecs expect BGR
  std::vector<uchar> png;
  try {
    if (!cv::imencode(".png", channels == 3 ? bgr : source, png))
      return WriteError(file.path(), "PNG encoding failed");
  } catch (const cv::Exception& e) {
    return WriteError(file.path(), e.what());
  }
  return file.Write(std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
}

internal::Result<std::string> EncodeMaskGif(const uint8_t* mask, int width, int height,
                                            GifRowOrder order,
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

internal::Status WriteMaskGif(const OutputFile& file, const uint8_t* mask, int width, int height,
                              GifRowOrder order) {
  internal::Result<std::string> encoded = EncodeMaskGif(mask, width, height, order, file.path());
  if (!encoded.ok()) return encoded.error();
  return file.Write(encoded.value());
}

internal::Status WriteMaskGif(const std::filesystem::path& path, const uint8_t* mask, int width,
                              int height, GifRowOrder order) {
  internal::Result<OutputFile> file = OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return WriteMaskGif(file.value(), mask, width, height, order);
}

}  // namespace segfeed::tools
