#include "support/png_reader.h"

#include <spng.h>

#include <fstream>
#include <iterator>
#include <memory>

namespace segfeed::testing {
namespace {

struct SpngContextFree {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};

}  // namespace

DecodedPng ReadPng(const std::filesystem::path& path) {
  DecodedPng out;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::unique_ptr<spng_ctx, SpngContextFree> ctx(spng_ctx_new(0));
  int rc = spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  if (rc == 0) rc = spng_get_ihdr(ctx.get(), &ihdr);
  size_t size = 0;
  if (rc == 0) rc = spng_decoded_image_size(ctx.get(), SPNG_FMT_PNG, &size);
  if (rc == 0) {
    out.samples.resize(size);
    rc = spng_decode_image(ctx.get(), out.samples.data(), size, SPNG_FMT_PNG, 0);
  }
  if (rc != 0) {
    out.error = path.string() + ": " + spng_strerror(rc);
    return out;
  }
  out.width = static_cast<int>(ihdr.width);
  out.height = static_cast<int>(ihdr.height);
  out.bit_depth = ihdr.bit_depth;
  out.color_type = ihdr.color_type;
  spng_plte plte{};
  if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED && spng_get_plte(ctx.get(), &plte) == 0) {
    for (uint32_t i = 0; i < plte.n_entries; ++i) {
      out.palette.push_back({plte.entries[i].red, plte.entries[i].green, plte.entries[i].blue});
    }
  }
  return out;
}

}  // namespace segfeed::testing
