#include "augment/jitter_fixed_point.h"

#include <algorithm>
#include <cmath>

#include "augment/simd_dispatch.h"

namespace segfeed::internal {
namespace {

constexpr int kOneLevel = 64;            // fixed-point units per level
constexpr int kWhite = 255 * kOneLevel;  // 16320
constexpr int kQ15 = 1 << 15;

int16_t ToQ15(double fraction) {
  return static_cast<int16_t>(std::min<long>(kQ15 - 1, std::lround(fraction * kQ15)));
}

// _mm256_mulhrs_epi16 on one lane: round(a * b / 2^15), ties up.
inline int MulHrs(int a, int b) { return (a * b + (1 << 14)) >> 15; }

inline int Clamp(int v) { return std::min(std::max(v, 0), kWhite); }

// The kernels reach the new sextant k' as a code t in [0, 11] with
// k' = (t + 5) mod 6 (see RunScalar). In sextant k' (hue in [k', k' + 1)
// sixths of a turn) the largest, middle and smallest channels are: 0 r g b,
// 1 g r b, 2 g b r, 3 b g r, 4 b r g, 5 r b g; in even sextants the middle
// channel rises with the hue. One byte table per channel answers, for every
// code, whether the channel is the largest (bit 7) or the smallest (bit 6)
// and, in every table, whether the sextant is even (bit 5). AVX2 looks a
// table up with one byte shuffle and reads each answer as bit 7 after a
// shift (_mm256_blendv_epi8 looks only at bit 7), so three tables stay in
// registers instead of seven.
constexpr uint8_t kIsMax = 0x80, kIsMin = 0x40, kIsEven = 0x20;
using Table = FixedPointJitter::Table;
constexpr Table ChannelTable(std::initializer_list<int> max_sextants,
                             std::initializer_list<int> min_sextants) {
  Table table{};
  for (int t = 0; t < 12; ++t) {
    const int sextant = (t + 5) % 6;
    for (int s : max_sextants)
      if (sextant == s) table[t] |= kIsMax;
    for (int s : min_sextants)
      if (sextant == s) table[t] |= kIsMin;
    if (sextant % 2 == 0) table[t] |= kIsEven;
  }
  return table;
}
constexpr Table kChannelTables[3] = {ChannelTable({0, 5}, {2, 3}), ChannelTable({1, 2}, {4, 5}),
                                     ChannelTable({3, 4}, {0, 1})};

}  // namespace

std::optional<FixedPointJitter> FixedPointJitter::For(const AugmentParams& params,
                                                      const std::array<double, 3>& means) {
  if (params.contrast_factor > 1.0 || params.saturation_factor > 1.0) return std::nullopt;
  FixedPointJitter k;
  k.contrast_ = params.contrast_factor != 1.0;
  for (int c = 0; c < 3; ++c) k.mean_[c] = static_cast<int16_t>(std::lround(means[c] * kWhite));
  k.contrast_q15_ = ToQ15(params.contrast_factor);
  k.brightness_ = static_cast<int16_t>(std::lround(params.brightness_delta * kWhite));
  k.saturation_hue_ = params.saturation_factor != 1.0 || params.hue_delta != 0.0;
  k.scale_chroma_ = params.saturation_factor < 1.0;
  k.saturation_q15_ = ToQ15(params.saturation_factor);
  // The hue shift in sextants, in [0, 6): whole part and Q15 fraction.
  const double sextants = params.hue_delta * 6.0;
  const double shift = sextants - 6.0 * std::floor(sextants / 6.0);
  int whole = static_cast<int>(std::floor(shift));
  long fraction = std::lround((shift - whole) * kQ15);
  if (fraction == kQ15) {
    fraction = 0;
    ++whole;
  }
  k.shift_fraction_q15_ = static_cast<int16_t>(fraction);
  k.shift_whole_plus_2_ = static_cast<int16_t>(whole % 6 + 2);
  return k;
}

void FixedPointJitter::RunScalar(const uint8_t* p, int first, int count, uint8_t* r_out,
                                 uint8_t* g_out, uint8_t* b_out) const {
  for (int i = first; i < count; ++i) {
    int v[3];
    for (int c = 0; c < 3; ++c) {
      v[c] = p[3 * i + c] * kOneLevel;
      if (contrast_) v[c] = Clamp(mean_[c] + MulHrs(v[c] - mean_[c], contrast_q15_));
      v[c] = Clamp(v[c] + brightness_);
    }
    if (saturation_hue_) {
      const int r = v[0], g = v[1], b = v[2];
      const int value = std::max(r, std::max(g, b));
      const int least = std::min(r, std::min(g, b));
      const int middle = std::max(std::min(r, g), std::min(std::max(r, g), b));
      const int chroma = value - least;
      const int rise = middle - least;
      // Old sextant: 0/5 when red is largest (green above/below blue), 2/1
      // for green, 4/3 for blue; "falling" are the odd ones, where the hue
      // position inside the sextant is 1 - rise / chroma.
      const bool red_max = value == r;
      const bool green_max = !red_max && value == g;
      const bool falling = red_max ? b > g : (green_max ? r > b : g > r);
      const int base = red_max ? 0 : (green_max ? 2 : 4);
      const int position = falling ? chroma - rise : rise;  // chroma * u
      const int shifted = position + MulHrs(chroma, shift_fraction_q15_);
      const bool no_wrap = chroma > shifted;
      const int new_position = no_wrap ? shifted : shifted - chroma;  // chroma * u'
      const int t = base + shift_whole_plus_2_ - (falling ? 1 : 0) - (no_wrap ? 1 : 0);
      const int new_rise = kChannelTables[0][t] & kIsEven ? new_position : chroma - new_position;
      const int low = scale_chroma_ ? value - MulHrs(chroma, saturation_q15_) : value - chroma;
      const int mid = scale_chroma_ ? low + MulHrs(new_rise, saturation_q15_) : low + new_rise;
      for (int c = 0; c < 3; ++c) {
        const uint8_t role = kChannelTables[c][t];
        v[c] = role & kIsMax ? value : (role & kIsMin ? low : mid);
      }
    }
    r_out[i] = static_cast<uint8_t>((v[0] + kOneLevel / 2) >> 6);
    g_out[i] = static_cast<uint8_t>((v[1] + kOneLevel / 2) >> 6);
    b_out[i] = static_cast<uint8_t>((v[2] + kOneLevel / 2) >> 6);
  }
}

#ifdef SEGFEED_HAVE_AVX2_PATH
namespace {

// Byte j of 48 interleaved bytes (three 16-byte loads) belongs to channel
// j % 3 of pixel j / 3: per channel and load, the shuffle that moves its
// bytes to their pixel's position (-1 elsewhere).
struct Deinterleave {
  int8_t lanes[3][3][16];  // [channel][load][lane]
};
constexpr Deinterleave MakeDeinterleave() {
  Deinterleave d{};
  for (int channel = 0; channel < 3; ++channel)
    for (int load = 0; load < 3; ++load)
      for (int pixel = 0; pixel < 16; ++pixel) {
        const int byte = 3 * pixel + channel - 16 * load;
        d.lanes[channel][load][pixel] = byte >= 0 && byte < 16 ? static_cast<int8_t>(byte) : -1;
      }
  return d;
}
constexpr Deinterleave kDeinterleave = MakeDeinterleave();

__attribute__((target("avx2"))) inline __m128i Load16(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

__attribute__((target("avx2"))) inline __m256i Clamp16(__m256i v) {
  return _mm256_min_epi16(_mm256_max_epi16(v, _mm256_setzero_si256()), _mm256_set1_epi16(kWhite));
}

// A table in both 128-bit lanes: _mm256_shuffle_epi8 of it by a vector
// holding each lane's code in both bytes of each word gives word masks.
__attribute__((target("avx2"))) inline __m256i LoadTable(const Table& table) {
  return _mm256_broadcastsi128_si256(Load16(table.data()));
}

SEGFEED_AVX512_BEGIN

// Clamp16 for 32 words.
__attribute__((target(SEGFEED_AVX512_TARGET))) inline __m512i Clamp32(__m512i v) {
  return _mm512_min_epi16(_mm512_max_epi16(v, _mm512_setzero_si512()), _mm512_set1_epi16(kWhite));
}

SEGFEED_AVX512_END

}  // namespace

// NOLINTNEXTLINE(readability-function-size): one AVX2 loop body over 16 pixels
__attribute__((target("avx2"))) int FixedPointJitter::RunAvx2(const uint8_t* p, int count,
                                                              uint8_t* r_out, uint8_t* g_out,
                                                              uint8_t* b_out) const {
  const __m256i contrast = _mm256_set1_epi16(contrast_q15_);
  const __m256i brightness = _mm256_set1_epi16(brightness_);
  const __m256i saturation = _mm256_set1_epi16(saturation_q15_);
  const __m256i shift_fraction = _mm256_set1_epi16(shift_fraction_q15_);
  const __m256i shift_whole = _mm256_set1_epi16(shift_whole_plus_2_);
  const __m256i half_level = _mm256_set1_epi16(kOneLevel / 2);
  // Locals, not members: stores through the uint8_t outputs may alias
  // *this as far as the compiler knows, which would reload every member
  // after every store.
  const bool contrast_on = contrast_, saturation_hue = saturation_hue_;
  const bool scale_chroma = scale_chroma_;
  const __m256i means[3] = {_mm256_set1_epi16(mean_[0]), _mm256_set1_epi16(mean_[1]),
                            _mm256_set1_epi16(mean_[2])};
  const __m256i tables[3] = {LoadTable(kChannelTables[0]), LoadTable(kChannelTables[1]),
                             LoadTable(kChannelTables[2])};
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i loads[3] = {Load16(p + 3 * i), Load16(p + 3 * i + 16), Load16(p + 3 * i + 32)};
    __m256i v[3];
    for (int c = 0; c < 3; ++c) {
      __m128i bytes = _mm_setzero_si128();
      for (int load = 0; load < 3; ++load)
        bytes = _mm_or_si128(bytes,
                             _mm_shuffle_epi8(loads[load], Load16(kDeinterleave.lanes[c][load])));
      v[c] = _mm256_slli_epi16(_mm256_cvtepu8_epi16(bytes), 6);
      if (contrast_on) {
        v[c] = Clamp16(_mm256_add_epi16(
            means[c], _mm256_mulhrs_epi16(_mm256_sub_epi16(v[c], means[c]), contrast)));
      }
      v[c] = Clamp16(_mm256_add_epi16(v[c], brightness));
    }
    if (saturation_hue) {
      const __m256i r = v[0], g = v[1], b = v[2];
      const __m256i value = _mm256_max_epi16(r, _mm256_max_epi16(g, b));
      const __m256i least = _mm256_min_epi16(r, _mm256_min_epi16(g, b));
      const __m256i middle =
          _mm256_max_epi16(_mm256_min_epi16(r, g), _mm256_min_epi16(_mm256_max_epi16(r, g), b));
      const __m256i chroma = _mm256_sub_epi16(value, least);
      const __m256i rise = _mm256_sub_epi16(middle, least);
      const __m256i red_max = _mm256_cmpeq_epi16(value, r);
      const __m256i green_max = _mm256_andnot_si256(red_max, _mm256_cmpeq_epi16(value, g));
      const __m256i falling = _mm256_blendv_epi8(
          _mm256_blendv_epi8(_mm256_cmpgt_epi16(g, r), _mm256_cmpgt_epi16(r, b), green_max),
          _mm256_cmpgt_epi16(b, g), red_max);
      // base = 4, minus 4 where red is largest, minus 2 where green is.
      const __m256i base =
          _mm256_add_epi16(_mm256_set1_epi16(4),
                           _mm256_or_si256(_mm256_and_si256(red_max, _mm256_set1_epi16(-4)),
                                           _mm256_and_si256(green_max, _mm256_set1_epi16(-2))));
      const __m256i position = _mm256_blendv_epi8(rise, _mm256_sub_epi16(chroma, rise), falling);
      const __m256i shifted =
          _mm256_add_epi16(position, _mm256_mulhrs_epi16(chroma, shift_fraction));
      const __m256i no_wrap = _mm256_cmpgt_epi16(chroma, shifted);
      const __m256i new_position = _mm256_sub_epi16(shifted, _mm256_andnot_si256(no_wrap, chroma));
      // Masks are -1 where true: adding them subtracts 1.
      const __m256i code =
          _mm256_add_epi16(_mm256_add_epi16(base, shift_whole), _mm256_add_epi16(falling, no_wrap));
      const __m256i code2 = _mm256_or_si256(code, _mm256_slli_epi16(code, 8));
      // Each lane's table byte in both bytes of the word, so that shifting
      // the word moves bit 6 (or 5) of each byte to its bit 7.
      const __m256i roles[3] = {_mm256_shuffle_epi8(tables[0], code2),
                                _mm256_shuffle_epi8(tables[1], code2),
                                _mm256_shuffle_epi8(tables[2], code2)};
      const __m256i new_rise = _mm256_blendv_epi8(_mm256_sub_epi16(chroma, new_position),
                                                  new_position, _mm256_slli_epi16(roles[0], 2));
      __m256i low, mid;
      if (scale_chroma) {
        low = _mm256_sub_epi16(value, _mm256_mulhrs_epi16(chroma, saturation));
        mid = _mm256_add_epi16(low, _mm256_mulhrs_epi16(new_rise, saturation));
      } else {
        low = least;  // value - chroma
        mid = _mm256_add_epi16(low, new_rise);
      }
      for (int c = 0; c < 3; ++c) {
        v[c] = _mm256_blendv_epi8(mid, value, roles[c]);
        v[c] = _mm256_blendv_epi8(v[c], low, _mm256_slli_epi16(roles[c], 1));
      }
    }
    for (__m256i& channel : v)
      channel = _mm256_srli_epi16(_mm256_add_epi16(channel, half_level), 6);
    // packus works per 128-bit lane: r0-7 g0-7 | r8-15 g8-15, then qwords
    // reordered to r0-15 | g0-15.
    const __m256i rg = _mm256_permute4x64_epi64(_mm256_packus_epi16(v[0], v[1]), 0xD8);
    const __m256i bb = _mm256_permute4x64_epi64(_mm256_packus_epi16(v[2], v[2]), 0xD8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r_out + i), _mm256_castsi256_si128(rg));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(g_out + i), _mm256_extracti128_si256(rg, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(b_out + i), _mm256_castsi256_si128(bb));
  }
  return i;
}

SEGFEED_AVX512_BEGIN

// RunAvx2 with 32 words per vector. Where RunAvx2 blends on byte masks, this
// keeps the same selections in mask registers: a word's role bits are tested
// directly instead of shifted into bit 7.
// NOLINTNEXTLINE(readability-function-size): one AVX-512 loop body over 32 pixels
__attribute__((target(SEGFEED_AVX512_TARGET))) int FixedPointJitter::RunAvx512(
    const uint8_t* p, int count, uint8_t* r_out, uint8_t* g_out, uint8_t* b_out) const {
  const __m512i contrast = _mm512_set1_epi16(contrast_q15_);
  const __m512i brightness = _mm512_set1_epi16(brightness_);
  const __m512i saturation = _mm512_set1_epi16(saturation_q15_);
  const __m512i shift_fraction = _mm512_set1_epi16(shift_fraction_q15_);
  const __m512i shift_whole = _mm512_set1_epi16(shift_whole_plus_2_);
  const __m512i half_level = _mm512_set1_epi16(kOneLevel / 2);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi16(1);
  const __m512i is_max = _mm512_set1_epi16(kIsMax);
  const __m512i is_min = _mm512_set1_epi16(kIsMin);
  const __m512i is_even = _mm512_set1_epi16(kIsEven);
  // Locals, not members (see RunAvx2).
  const bool contrast_on = contrast_, saturation_hue = saturation_hue_;
  const bool scale_chroma = scale_chroma_;
  const __m512i means[3] = {_mm512_set1_epi16(mean_[0]), _mm512_set1_epi16(mean_[1]),
                            _mm512_set1_epi16(mean_[2])};
  const __m512i tables[3] = {_mm512_broadcast_i32x4(Load16(kChannelTables[0].data())),
                             _mm512_broadcast_i32x4(Load16(kChannelTables[1].data())),
                             _mm512_broadcast_i32x4(Load16(kChannelTables[2].data()))};
  // The deinterleave shuffles of RunAvx2 in both 128-bit lanes: the low
  // lane takes pixels 0-15, the high lane pixels 16-31.
  __m256i shuffles[3][3];
  for (int c = 0; c < 3; ++c)
    for (int load = 0; load < 3; ++load)
      shuffles[c][load] = _mm256_broadcastsi128_si256(Load16(kDeinterleave.lanes[c][load]));
  int i = 0;
  for (; i + 32 <= count; i += 32) {
    const uint8_t* q = p + 3 * i;
    __m256i loads[3];
    for (int load = 0; load < 3; ++load)
      loads[load] = _mm256_inserti128_si256(_mm256_castsi128_si256(Load16(q + 16 * load)),
                                            Load16(q + 48 + 16 * load), 1);
    __m512i v[3];
    for (int c = 0; c < 3; ++c) {
      __m256i bytes = _mm256_setzero_si256();
      for (int load = 0; load < 3; ++load)
        bytes = _mm256_or_si256(bytes, _mm256_shuffle_epi8(loads[load], shuffles[c][load]));
      v[c] = _mm512_slli_epi16(_mm512_cvtepu8_epi16(bytes), 6);
      if (contrast_on) {
        v[c] = Clamp32(_mm512_add_epi16(
            means[c], _mm512_mulhrs_epi16(_mm512_sub_epi16(v[c], means[c]), contrast)));
      }
      v[c] = Clamp32(_mm512_add_epi16(v[c], brightness));
    }
    if (saturation_hue) {
      const __m512i r = v[0], g = v[1], b = v[2];
      const __m512i value = _mm512_max_epi16(r, _mm512_max_epi16(g, b));
      const __m512i least = _mm512_min_epi16(r, _mm512_min_epi16(g, b));
      const __m512i middle =
          _mm512_max_epi16(_mm512_min_epi16(r, g), _mm512_min_epi16(_mm512_max_epi16(r, g), b));
      const __m512i chroma = _mm512_sub_epi16(value, least);
      const __m512i rise = _mm512_sub_epi16(middle, least);
      const __mmask32 red_max = _mm512_cmpeq_epi16_mask(value, r);
      const __mmask32 green_max = _mm512_mask_cmpeq_epi16_mask(~red_max, value, g);
      const __mmask32 blue_max = ~(red_max | green_max);
      const __mmask32 falling = (red_max & _mm512_cmpgt_epi16_mask(b, g)) |
                                (green_max & _mm512_cmpgt_epi16_mask(r, b)) |
                                (blue_max & _mm512_cmpgt_epi16_mask(g, r));
      // base: 0 where red is largest, 2 where green is, else 4.
      __m512i base = _mm512_mask_mov_epi16(_mm512_set1_epi16(4), green_max, _mm512_set1_epi16(2));
      base = _mm512_mask_mov_epi16(base, red_max, zero);
      const __m512i position = _mm512_mask_sub_epi16(rise, falling, chroma, rise);
      const __m512i shifted =
          _mm512_add_epi16(position, _mm512_mulhrs_epi16(chroma, shift_fraction));
      const __mmask32 no_wrap = _mm512_cmpgt_epi16_mask(chroma, shifted);
      const __m512i new_position = _mm512_mask_sub_epi16(shifted, ~no_wrap, shifted, chroma);
      __m512i code = _mm512_add_epi16(base, shift_whole);
      code = _mm512_mask_sub_epi16(code, falling, code, one);
      code = _mm512_mask_sub_epi16(code, no_wrap, code, one);
      // Codes are below 16, so a byte shuffle within each 128-bit lane
      // looks them up; the low byte of each word is the answer.
      const __m512i roles[3] = {_mm512_shuffle_epi8(tables[0], code),
                                _mm512_shuffle_epi8(tables[1], code),
                                _mm512_shuffle_epi8(tables[2], code)};
      const __mmask32 even = _mm512_test_epi16_mask(roles[0], is_even);
      const __m512i new_rise =
          _mm512_mask_mov_epi16(_mm512_sub_epi16(chroma, new_position), even, new_position);
      __m512i low, mid;
      if (scale_chroma) {
        low = _mm512_sub_epi16(value, _mm512_mulhrs_epi16(chroma, saturation));
        mid = _mm512_add_epi16(low, _mm512_mulhrs_epi16(new_rise, saturation));
      } else {
        low = least;  // value - chroma
        mid = _mm512_add_epi16(low, new_rise);
      }
      for (int c = 0; c < 3; ++c) {
        v[c] = _mm512_mask_mov_epi16(mid, _mm512_test_epi16_mask(roles[c], is_max), value);
        v[c] = _mm512_mask_mov_epi16(v[c], _mm512_test_epi16_mask(roles[c], is_min), low);
      }
    }
    // Levels are 0..255 after the shift: truncating words to bytes is exact.
    uint8_t* outs[3] = {r_out, g_out, b_out};
    for (int c = 0; c < 3; ++c) {
      const __m512i levels = _mm512_srli_epi16(_mm512_add_epi16(v[c], half_level), 6);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(outs[c] + i), _mm512_cvtepi16_epi8(levels));
    }
  }
  return i;
}

SEGFEED_AVX512_END
#else
int FixedPointJitter::RunAvx2(const uint8_t*, int, uint8_t*, uint8_t*, uint8_t*) const { return 0; }
int FixedPointJitter::RunAvx512(const uint8_t*, int, uint8_t*, uint8_t*, uint8_t*) const {
  return 0;
}
#endif

}  // namespace segfeed::internal
