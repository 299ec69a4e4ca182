#pragma once

#include <cstdint>

namespace segfeed {

// SplitMix64's finaliser: a bijective 64-bit mix with full avalanche.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Counter-based random numbers: the n-th draw is a pure function of the key
// and n, so any thread can reproduce any sample's numbers without shared
// state. Keyed by up to three words, e.g. (seed, epoch, sample_id).
//
// The stream is SplitMix64 over a keyed counter; its statistical quality is
// ample for augmentation parameters and synthetic textures, and it is not
// meant for cryptography.
class CounterRng {
 public:
  explicit constexpr CounterRng(uint64_t k0, uint64_t k1 = 0, uint64_t k2 = 0)
      : key_(Mix64(Mix64(Mix64(k0) ^ k1) ^ k2)) {}

  // The draw at position `counter`, independent of any other draw.
  constexpr uint64_t At(uint64_t counter) const {
    return Mix64(key_ ^ (counter * 0xD1B54A32D192ED03ull));
  }
  constexpr uint64_t NextU64() { return At(counter_++); }

  // Uniform in [0, 1) with 53 random bits.
  constexpr double Uniform01() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  constexpr double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }
  constexpr bool Bernoulli(double p) { return Uniform01() < p; }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the bias is
  // below 2^-32 for the n used here).
  constexpr uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(NextU64()) * n) >> 64);
  }

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace segfeed
