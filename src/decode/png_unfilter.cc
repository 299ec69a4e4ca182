#include "decode/png_unfilter.h"

#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace segfeed::decode {
namespace {

enum Filter : uint8_t { kNone = 0, kSub = 1, kUp = 2, kAverage = 3, kPaeth = 4 };

inline uint8_t PaethPredictor(int a, int b, int c) {
  // PNG's order of preference on ties: left, above, upper left.
  const int pa = std::abs(b - c);
  const int pb = std::abs(a - c);
  const int pc = std::abs(a + b - 2 * c);
  if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
  return static_cast<uint8_t>(pb <= pc ? b : c);
}

void Sub(const uint8_t* src, uint8_t* dst, size_t bytes, size_t bpp) {
  for (size_t i = 0; i < bpp && i < bytes; ++i) dst[i] = src[i];
  for (size_t i = bpp; i < bytes; ++i) dst[i] = static_cast<uint8_t>(src[i] + dst[i - bpp]);
}

void Up(const uint8_t* src, const uint8_t* prev, uint8_t* dst, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) dst[i] = static_cast<uint8_t>(src[i] + prev[i]);
}

// Average with no row above: the left byte halved.
void AverageFirstRow(const uint8_t* src, uint8_t* dst, size_t bytes, size_t bpp) {
  for (size_t i = 0; i < bpp && i < bytes; ++i) dst[i] = src[i];
  for (size_t i = bpp; i < bytes; ++i) dst[i] = static_cast<uint8_t>(src[i] + (dst[i - bpp] >> 1));
}

void Average(const uint8_t* src, const uint8_t* prev, uint8_t* dst, size_t bytes, size_t bpp) {
  for (size_t i = 0; i < bpp && i < bytes; ++i)
    dst[i] = static_cast<uint8_t>(src[i] + (prev[i] >> 1));
  for (size_t i = bpp; i < bytes; ++i)
    dst[i] = static_cast<uint8_t>(src[i] + ((dst[i - bpp] + prev[i]) >> 1));
}

void Paeth(const uint8_t* src, const uint8_t* prev, uint8_t* dst, size_t bytes, size_t bpp) {
  for (size_t i = 0; i < bpp && i < bytes; ++i) dst[i] = static_cast<uint8_t>(src[i] + prev[i]);
  for (size_t i = bpp; i < bytes; ++i) {
    dst[i] = static_cast<uint8_t>(src[i] + PaethPredictor(dst[i - bpp], prev[i], prev[i - bpp]));
  }
}

#if defined(__SSE2__)
// One 3- or 4-byte pixel in the low lanes of a register, read as 4 bytes
// (the row may be read past its end: see UnfilterRow).
inline __m128i LoadPixel(const uint8_t* at) {
  int32_t value;
  std::memcpy(&value, at, 4);
  return _mm_cvtsi32_si128(value);
}

// Exactly kBpp bytes: in place, the next pixel's filtered bytes follow.
template <int kBpp>
inline void StorePixel(uint8_t* at, __m128i pixel) {
  const auto value = static_cast<uint32_t>(_mm_cvtsi128_si32(pixel));
  if constexpr (kBpp == 4) {
    std::memcpy(at, &value, 4);
  } else {
    const auto low = static_cast<uint16_t>(value);
    std::memcpy(at, &low, 2);
    at[2] = static_cast<uint8_t>(value >> 16);
  }
}

// Sub as a prefix sum over the pixels of a register (4 at a time: 12 or
// 16 bytes). The carry into a block is the previous block's last output
// pixel in every pixel's place; since the sums are bytewise, the next carry
// is this carry plus this block's own last pixel (of its prefix sum, which
// does not wait for the carry): the only serial step is that one add a
// block, where adding the carry before the prefix sum put the whole sum on
// the chain.
template <int kBpp>
void SubSse2(const uint8_t* src, uint8_t* dst, size_t bytes) {
  constexpr size_t kBlock = 4 * kBpp;
  __m128i carry = _mm_setzero_si128();
  size_t i = 0;
  for (; i + kBlock <= bytes; i += kBlock) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    x = _mm_add_epi8(x, _mm_slli_si128(x, kBpp));
    x = _mm_add_epi8(x, _mm_slli_si128(x, 2 * kBpp));
    __m128i last;  // the block's 4th pixel, in each of its 4 places
    if constexpr (kBpp == 4) {
      last = _mm_shuffle_epi32(x, 0xFF);
    } else {
      last = _mm_and_si128(_mm_srli_si128(x, 9), _mm_cvtsi32_si128(0xFFFFFF));
      last = _mm_or_si128(last, _mm_slli_si128(last, 3));
      last = _mm_or_si128(last, _mm_slli_si128(last, 6));
    }
    const __m128i out = _mm_add_epi8(x, carry);
    carry = _mm_add_epi8(carry, last);
    if constexpr (kBpp == 4) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), out);
    } else {  // 12 bytes: the 4 after them are the next block's, unread in place
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + i), out);
      const int32_t high = _mm_cvtsi128_si32(_mm_srli_si128(out, 8));
      std::memcpy(dst + i + 8, &high, 4);
    }
  }
  // The carry's first pixel is the last one written: the left of the rest.
  __m128i left = carry;
  for (; i < bytes; i += kBpp) {
    left = _mm_add_epi8(left, LoadPixel(src + i));
    StorePixel<kBpp>(dst + i, left);
  }
}

template <int kBpp>
void AverageSse2(const uint8_t* src, const uint8_t* prev, uint8_t* dst, size_t bytes) {
  const __m128i one = _mm_set1_epi8(1);
  __m128i left = _mm_setzero_si128();
  for (size_t i = 0; i < bytes; i += kBpp) {
    const __m128i above = LoadPixel(prev + i);
    // _mm_avg_epu8 rounds up; PNG's average rounds down.
    const __m128i average =
        _mm_sub_epi8(_mm_avg_epu8(left, above), _mm_and_si128(_mm_xor_si128(left, above), one));
    left = _mm_add_epi8(average, LoadPixel(src + i));
    StorePixel<kBpp>(dst + i, left);
  }
}

// Selects `if_true` where mask is all ones, `if_false` where it is zero.
inline __m128i Select(__m128i mask, __m128i if_true, __m128i if_false) {
  return _mm_or_si128(_mm_and_si128(mask, if_true), _mm_andnot_si128(mask, if_false));
}

// Paeth on 16-bit lanes for one pixel. Each pixel waits for the one to its
// left, so what counts is the chain from it: the spec's three distances and
// their comparisons are a dozen dependent operations. The same choice, ties
// included (checked over every one of the 2^24 triples), as
//   t = 3 * upper_left - above - left, lo / hi = min / max(left, above):
//   hi if t <= lo, else lo if hi <= t, else upper_left,
// which takes about half as many. Returns the pixel (filtered bytes `x`
// plus the predictor), in 16-bit lanes.
inline __m128i PaethPixel(__m128i left, __m128i above, __m128i upper_left, __m128i x) {
  const __m128i three_c_minus_b =
      _mm_sub_epi16(_mm_add_epi16(_mm_slli_epi16(upper_left, 1), upper_left), above);
  const __m128i t = _mm_sub_epi16(three_c_minus_b, left);
  const __m128i lo = _mm_min_epi16(left, above);
  const __m128i hi = _mm_max_epi16(left, above);
  const __m128i lo_or_c = Select(_mm_cmpgt_epi16(hi, t), upper_left, lo);
  const __m128i predictor = Select(_mm_cmpgt_epi16(t, lo), lo_or_c, hi);
  return _mm_and_si128(_mm_add_epi16(predictor, x), _mm_set1_epi16(0xFF));
}

// One pixel's bytes, zero-extended to 16-bit lanes.
inline __m128i LoadPixel16(const uint8_t* at) {
  return _mm_unpacklo_epi8(LoadPixel(at), _mm_setzero_si128());
}

template <int kBpp>
void PaethSse2(const uint8_t* src, const uint8_t* prev, uint8_t* dst, size_t bytes) {
  __m128i left = _mm_setzero_si128();        // a
  __m128i upper_left = _mm_setzero_si128();  // c
  for (size_t i = 0; i < bytes; i += kBpp) {
    const __m128i above = LoadPixel16(prev + i);  // b
    left = PaethPixel(left, above, upper_left, LoadPixel16(src + i));
    StorePixel<kBpp>(dst + i, _mm_packus_epi16(left, left));
    upper_left = above;
  }
}

// Two Paeth rows, the second's pixel i right after the first's: its row
// above is the first row's pixels as they come out of the registers, and
// the two chains overlap.
template <int kBpp>
void PaethPairSse2(const uint8_t* src0, const uint8_t* src1, const uint8_t* prev, uint8_t* dst0,
                   uint8_t* dst1, size_t bytes) {
  __m128i left0 = _mm_setzero_si128(), upper_left0 = _mm_setzero_si128();
  __m128i left1 = _mm_setzero_si128(), upper_left1 = _mm_setzero_si128();
  for (size_t i = 0; i < bytes; i += kBpp) {
    const __m128i above0 = LoadPixel16(prev + i);
    left0 = PaethPixel(left0, above0, upper_left0, LoadPixel16(src0 + i));
    left1 = PaethPixel(left1, left0, upper_left1, LoadPixel16(src1 + i));
    StorePixel<kBpp>(dst0 + i, _mm_packus_epi16(left0, left0));
    StorePixel<kBpp>(dst1 + i, _mm_packus_epi16(left1, left1));
    upper_left0 = above0;
    upper_left1 = left0;
  }
}

// One-byte pixels (8-bit grey and palette, and every depth below 8): Sub
// as a prefix sum over 16 bytes, the previous block's last byte added to
// all of them.
inline __m128i PrefixSum16(__m128i x, __m128i carry) {
  x = _mm_add_epi8(x, _mm_slli_si128(x, 1));
  x = _mm_add_epi8(x, _mm_slli_si128(x, 2));
  x = _mm_add_epi8(x, _mm_slli_si128(x, 4));
  x = _mm_add_epi8(x, _mm_slli_si128(x, 8));
  return _mm_add_epi8(x, carry);
}

// The last byte of `x` in every lane: the next block's carry.
inline __m128i BroadcastLastByte(__m128i x) {
  const __m128i high = _mm_unpackhi_epi8(x, x);          // bytes 8..15 doubled
  const __m128i word = _mm_shufflehi_epi16(high, 0xFF);  // byte 15 in lanes 4..7
  return _mm_shuffle_epi32(word, 0xFF);                  // and everywhere
}

void SubBytesSse2(const uint8_t* src, uint8_t* dst, size_t bytes) {
  __m128i carry = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 16 <= bytes; i += 16) {
    const __m128i x =
        PrefixSum16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)), carry);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), x);
    carry = BroadcastLastByte(x);
  }
  uint8_t left = i > 0 ? dst[i - 1] : 0;
  for (; i < bytes; ++i) dst[i] = left = static_cast<uint8_t>(src[i] + left);
}

// Paeth for one-byte pixels is serial byte by byte, but where the row above
// is flat (above == upper left, as it is almost everywhere in a label map)
// pa = |above - upper left| = 0 is never beaten and the predictor is the
// left byte: those 16 bytes are Sub, a prefix sum. Elsewhere, byte by byte.
void PaethBytesSse2(const uint8_t* src, const uint8_t* prev, uint8_t* dst, size_t bytes) {
  if (bytes == 0) return;
  dst[0] = static_cast<uint8_t>(src[0] + prev[0]);  // left and upper left are 0
  size_t i = 1;
  while (i + 16 <= bytes) {
    const __m128i above = _mm_loadu_si128(reinterpret_cast<const __m128i*>(prev + i));
    const __m128i upper_left = _mm_loadu_si128(reinterpret_cast<const __m128i*>(prev + i - 1));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(above, upper_left)) == 0xFFFF) {
      const __m128i x = PrefixSum16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)),
                                    _mm_set1_epi8(static_cast<char>(dst[i - 1])));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), x);
      i += 16;
      continue;
    }
    for (const size_t end = i + 16; i < end; ++i)
      dst[i] = static_cast<uint8_t>(src[i] + PaethPredictor(dst[i - 1], prev[i], prev[i - 1]));
  }
  for (; i < bytes; ++i)
    dst[i] = static_cast<uint8_t>(src[i] + PaethPredictor(dst[i - 1], prev[i], prev[i - 1]));
}

template <int kBpp>
bool UnfilterSse2(uint8_t filter, const uint8_t* src, const uint8_t* prev, uint8_t* dst,
                  size_t bytes) {
  switch (filter) {
    case kSub:
      SubSse2<kBpp>(src, dst, bytes);
      return true;
    case kAverage:
      AverageSse2<kBpp>(src, prev, dst, bytes);
      return true;
    case kPaeth:
      PaethSse2<kBpp>(src, prev, dst, bytes);
      return true;
    default:
      return false;
  }
}
#endif

}  // namespace

void UnfilterRow(uint8_t filter, const uint8_t* src, const uint8_t* prev, uint8_t* dst,
                 size_t bytes, int pixel_bytes) {
  const auto bpp = static_cast<size_t>(pixel_bytes);
  if (prev == nullptr) {
    // The row above is zeros: Up is None and Paeth predicts the left byte.
    if (filter == kUp) filter = kNone;
    if (filter == kPaeth) filter = kSub;
    if (filter == kAverage) return AverageFirstRow(src, dst, bytes, bpp);
  }
  if (filter == kNone) {
    if (dst != src) std::memcpy(dst, src, bytes);
    return;
  }
  if (filter == kUp) return Up(src, prev, dst, bytes);
#if defined(__SSE2__)
  // Rows are whole pixels at 8 bits, so the pixel loops end on the row's end.
  if (pixel_bytes == 3 && UnfilterSse2<3>(filter, src, prev, dst, bytes)) return;
  if (pixel_bytes == 4 && UnfilterSse2<4>(filter, src, prev, dst, bytes)) return;
  if (pixel_bytes == 1 && filter == kSub) return SubBytesSse2(src, dst, bytes);
  if (pixel_bytes == 1 && filter == kPaeth) return PaethBytesSse2(src, prev, dst, bytes);
#endif
  switch (filter) {
    case kSub:
      return Sub(src, dst, bytes, bpp);
    case kAverage:
      return Average(src, prev, dst, bytes, bpp);
    default:
      return Paeth(src, prev, dst, bytes, bpp);
  }
}

bool UnfilterRowPair(uint8_t filter0, uint8_t filter1, const uint8_t* src0, const uint8_t* src1,
                     const uint8_t* prev, uint8_t* dst0, uint8_t* dst1, size_t bytes,
                     int pixel_bytes) {
#if defined(__SSE2__)
  if (filter0 != kPaeth || filter1 != kPaeth || prev == nullptr) return false;
  if (pixel_bytes == 3) {
    PaethPairSse2<3>(src0, src1, prev, dst0, dst1, bytes);
    return true;
  }
  if (pixel_bytes == 4) {
    PaethPairSse2<4>(src0, src1, prev, dst0, dst1, bytes);
    return true;
  }
#else
  (void)filter0, (void)filter1, (void)src0, (void)src1, (void)prev, (void)dst0, (void)dst1,
      (void)bytes, (void)pixel_bytes;
#endif
  return false;
}

}  // namespace segfeed::decode
