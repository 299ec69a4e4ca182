#pragma once

// The output conversion's vector kernels: what output_conversion.cc hands to
// conversion_avx2.cc and conversion_avx512.cc. Those files are compiled for
// their ISA, so this header holds only plain structs, constants, consteval
// table builders and declarations (see the rules in simd_dispatch.h); call a
// kernel only where CpuHasAvx2() / CpuHasAvx512().
//
// Each kernel writes whole steps of 8 (AVX2) or 16 (AVX-512) pixels and
// returns how many pixels it wrote; the caller's table loop does the rest.
// The values are exactly the OutputConverter's tables'.

#include <cstddef>
#include <cstdint>

namespace segfeed::augment {

// What the float32 kernels need of OutputOptions: channel c of level v is
// (v / 255 - mean[c]) / std[c] in float32 when `normalize`, else v / 255.
struct FloatConversion {
  bool normalize;
  float mean[3];
  float std[3];
};

// Byte positions that interleave 8 planar pixels (r0..r7 in bytes 0-7 and
// g0..g7 in bytes 8-15 of `rg`, b0..b7 in bytes 0-7 of `b`) into 24 bytes
// r0 g0 b0 r1 ...; -1 leaves a zero for the other source to fill.
struct InterleaveShuffles {
  int8_t rg_low[16], b_low[16], rg_high[16], b_high[16];
};
consteval InterleaveShuffles MakeInterleaveShuffles() {
  InterleaveShuffles s{};
  for (int out = 0; out < 24; ++out) {
    const int pixel = out / 3, channel = out % 3;
    int8_t* rg = out < 16 ? s.rg_low : s.rg_high;
    int8_t* b = out < 16 ? s.b_low : s.b_high;
    const int lane = out % 16;
    rg[lane] = channel == 2 ? -1 : static_cast<int8_t>(channel * 8 + pixel);
    b[lane] = channel == 2 ? static_cast<int8_t>(pixel) : -1;
  }
  for (int lane = 8; lane < 16; ++lane) s.rg_high[lane] = s.b_high[lane] = -1;
  return s;
}
constexpr InterleaveShuffles kInterleave = MakeInterleaveShuffles();

// Planar levels `r`, `g`, `b` of `count` pixels to packed uint8 NHWC.
int Uint8NhwcSpanAvx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                      uint8_t* out);

// Planar levels to packed float32 NHWC.
int Float32NhwcSpanAvx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                        const FloatConversion& conversion, float* out);
int Float32NhwcSpanAvx512(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                          const FloatConversion& conversion, float* out);

// Planar levels to float32 NCHW: one plane per channel, `plane_floats` apart.
int Float32NchwSpanAvx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                        const FloatConversion& conversion, float* out, ptrdiff_t plane_floats);
int Float32NchwSpanAvx512(const uint8_t* r, const uint8_t* g, const uint8_t* b, int count,
                          const FloatConversion& conversion, float* out, ptrdiff_t plane_floats);

// Interleaved RGB levels (`count` pixels) to packed float32 NHWC.
int Float32NhwcRowAvx512(const uint8_t* rgb, int count, const FloatConversion& conversion,
                         float* out);

// Label ids to packed int32 / int64: each byte as it is, `ignore_value` as
// `ignore_index`.
int LabelInt32SpanAvx2(const uint8_t* ids, int count, uint8_t ignore_value, int32_t ignore_index,
                       int32_t* out);
int LabelInt64SpanAvx2(const uint8_t* ids, int count, uint8_t ignore_value, int64_t ignore_index,
                       int64_t* out);

}  // namespace segfeed::augment
