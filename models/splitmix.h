#pragma once
// SplitMix64: a counter-based 64-bit mixer. Any value can be drawn on its own
// from its key, so initial parameters and synthetic samples depend only on
// their seed and index, on every process and standard library alike.

#include <cstdint>

namespace gradsync {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace gradsync
