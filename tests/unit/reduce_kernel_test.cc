#include <gtest/gtest.h>

#include <vector>

#include "strategies/core/reduce_kernel.h"

namespace gradsync {
namespace {

// Lengths around every vector width (4, 8, 16 floats) and their remainders.
TEST(ReduceKernel, SumsEveryElementExactlyForAnyLength) {
  for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 33u, 1000u, 4099u}) {
    std::vector<float> dst(n + 1), src(n + 1);
    for (std::size_t i = 0; i <= n; ++i) {
      dst[i] = static_cast<float>(i % 97);
      src[i] = static_cast<float>(3 * (i % 89)) - 50.0f;
    }
    const float sentinel = dst[n];
    sum_into(dst.data(), src.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(dst[i], static_cast<float>(i % 97) + static_cast<float>(3 * (i % 89)) - 50.0f)
          << "n=" << n << " i=" << i;
    EXPECT_EQ(dst[n], sentinel) << "wrote past the end for n=" << n;
  }
}

TEST(ReduceKernel, HandlesUnalignedStarts) {
  std::vector<float> dst(40, 1.0f), src(40, 2.0f);
  sum_into(dst.data() + 1, src.data() + 3, 33);
  EXPECT_EQ(dst[0], 1.0f);
  for (int i = 1; i <= 33; ++i) EXPECT_EQ(dst[i], 3.0f);
  EXPECT_EQ(dst[34], 1.0f);
}

}  // namespace
}  // namespace gradsync
