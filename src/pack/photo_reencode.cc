#include "pack/photo_reencode.h"

#include <spng.h>
#include <turbojpeg.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

namespace segfeed::pack {
namespace {

struct SpngCloser {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
struct TjCloser {
  void operator()(void* handle) const { tjDestroy(handle); }
};
struct TjBufferFree {
  void operator()(unsigned char* buffer) const { tjFree(buffer); }
};

Error PhotoError(const std::string& path, const std::string& detail) {
  return Error{ErrorKind::kCorruptImage, path, detail};
}

}  // namespace

Result<ReencodedPhoto> ReencodePngAsJpeg(std::span<const uint8_t> png, int quality,
                                         const std::string& path) {
  std::unique_ptr<spng_ctx, SpngCloser> ctx(spng_ctx_new(0));
  if (!ctx) return PhotoError(path, "out of memory");
  int rc = spng_set_png_buffer(ctx.get(), png.data(), png.size());
  spng_ihdr header{};
  if (rc == 0) rc = spng_get_ihdr(ctx.get(), &header);
  size_t rgb_bytes = 0;
  if (rc == 0) rc = spng_decoded_image_size(ctx.get(), SPNG_FMT_RGB8, &rgb_bytes);
  std::vector<uint8_t> rgb(rgb_bytes);
  if (rc == 0) rc = spng_decode_image(ctx.get(), rgb.data(), rgb.size(), SPNG_FMT_RGB8, 0);
  if (rc != 0) return PhotoError(path, std::string("cannot re-encode: ") + spng_strerror(rc));
  const int width = static_cast<int>(header.width);
  const int height = static_cast<int>(header.height);

  std::unique_ptr<void, TjCloser> encoder(tjInitCompress());
  std::unique_ptr<void, TjCloser> decoder(tjInitDecompress());
  if (!encoder || !decoder) return PhotoError(path, tjGetErrorStr2(nullptr));
  unsigned char* jpeg = nullptr;
  unsigned long jpeg_bytes = 0;  // NOLINT(runtime/int): TurboJPEG's type
  rc = tjCompress2(encoder.get(), rgb.data(), width, 0, height, TJPF_RGB, &jpeg, &jpeg_bytes,
                   TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
  std::unique_ptr<unsigned char, TjBufferFree> owned(jpeg);
  if (rc != 0) return PhotoError(path, tjGetErrorStr2(encoder.get()));
  std::vector<uint8_t> decoded(rgb.size());
  if (tjDecompress2(decoder.get(), jpeg, jpeg_bytes, decoded.data(), width, 0, height, TJPF_RGB,
                    TJFLAG_ACCURATEDCT) != 0)
    return PhotoError(path, tjGetErrorStr2(decoder.get()));

  ReencodedPhoto photo;
  photo.jpeg.assign(reinterpret_cast<const char*>(jpeg), jpeg_bytes);
  for (size_t i = 0; i < rgb.size(); ++i) {
    const double difference = static_cast<double>(rgb[i]) - static_cast<double>(decoded[i]);
    photo.squared_error += difference * difference;
  }
  photo.samples = static_cast<int64_t>(rgb.size());
  return photo;
}

double PsnrDecibels(double squared_error, int64_t samples) {
  if (squared_error <= 0 || samples <= 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(255.0 * 255.0 * static_cast<double>(samples) / squared_error);
}

}  // namespace segfeed::pack
