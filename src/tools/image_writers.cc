#include "tools/image_writers.h"

#include <gif_lib.h>
#include <turbojpeg.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

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
struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

internal::Status WriteJpeg(const std::filesystem::path& path, const uint8_t* rgb, int width,
                           int height, int quality) {
  std::unique_ptr<void, TjHandleCloser> encoder(tjInitCompress());
  if (!encoder) return WriteError(path, tjGetErrorStr2(nullptr));
  unsigned char* jpeg = nullptr;
  unsigned long jpeg_bytes = 0;  // NOLINT(runtime/int): TurboJPEG's type
  int rc = tjCompress2(encoder.get(), rgb, width, 0, height, TJPF_RGB, &jpeg, &jpeg_bytes,
                       TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
  std::unique_ptr<unsigned char, TjBufferFree> owned(jpeg);
  if (rc != 0) return WriteError(path, tjGetErrorStr2(encoder.get()));

  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) return WriteError(path, std::strerror(errno));
  if (std::fwrite(jpeg, 1, jpeg_bytes, file.get()) != jpeg_bytes) {
    return WriteError(path, std::strerror(errno));
  }
  if (std::fclose(file.release()) != 0) return WriteError(path, std::strerror(errno));
  return {};
}

internal::Status WriteMaskGif(const std::filesystem::path& path, const uint8_t* mask, int width,
                              int height) {
  int error = 0;
  GifFileType* gif = EGifOpenFileName(path.c_str(), false, &error);
  if (!gif) {
    // giflib reports an open failure as its own code; errno still holds why.
    return WriteError(path, errno != 0 ? std::strerror(errno) : GifErrorString(error));
  }
  const GifColorType palette[2] = {{0, 0, 0}, {255, 255, 255}};
  ColorMapObject* color_map = GifMakeMapObject(2, palette);
  bool ok = color_map != nullptr &&
            EGifPutScreenDesc(gif, width, height, 1, 0, color_map) == GIF_OK &&
            EGifPutImageDesc(gif, 0, 0, width, height, false, nullptr) == GIF_OK;
  for (int y = 0; ok && y < height; ++y) {
    // giflib's API is not const-correct; it only reads the line.
    ok = EGifPutLine(gif, const_cast<GifPixelType*>(mask + static_cast<size_t>(y) * width),
                     width) == GIF_OK;
  }
  if (!ok) error = gif->Error;
  GifFreeMapObject(color_map);
  int close_error = 0;
  // EGifCloseFile frees `gif` whether or not it succeeds.
  if (EGifCloseFile(gif, &close_error) != GIF_OK && ok) {
    ok = false;
    error = close_error;
  }
  if (!ok) return WriteError(path, GifErrorString(error));
  return {};
}

}  // namespace segfeed::tools
