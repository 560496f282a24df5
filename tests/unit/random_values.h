#pragma once
// Reproducible test inputs: n floats uniform in [-1, 1) from a seed.

#include <cstdint>
#include <random>
#include <vector>

namespace gradsync::testing {

inline std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace gradsync::testing
