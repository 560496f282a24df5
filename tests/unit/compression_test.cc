// The fp16 and bf16 conversions at the values where they are easy to get
// wrong (limits, rounding ties, subnormals, inf and nan), the buffer forms,
// and the 16-bit reductions.
#include "strategies/core/compression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "strategies/core/reduce_kernel.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Fp16, ExactValuesConvertBothWays) {
  EXPECT_EQ(fp32_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(fp32_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(fp32_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(fp32_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(fp32_to_fp16(65504.0f), 0x7bff);  // the largest finite fp16
  EXPECT_EQ(fp16_to_fp32(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_fp32(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_fp32(0x3555), 0.333251953125f);
}

TEST(Fp16, RoundsToNearestEvenAndOverflowsToInf) {
  EXPECT_EQ(fp32_to_fp16(65519.0f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7c00);  // the tie goes to the even "65536": inf
  EXPECT_EQ(fp32_to_fp16(1e6f), 0x7c00);
  EXPECT_EQ(fp32_to_fp16(-1e6f), 0xfc00);
  EXPECT_EQ(fp32_to_fp16(kInf), 0x7c00);
  EXPECT_EQ(fp16_to_fp32(0x7c00), kInf);
  EXPECT_EQ(fp16_to_fp32(0xfc00), -kInf);
  // 2049 lies halfway between 2048 (even mantissa) and 2050: down; 2051 up to 2052.
  EXPECT_EQ(fp16_to_fp32(fp32_to_fp16(2049.0f)), 2048.0f);
  EXPECT_EQ(fp16_to_fp32(fp32_to_fp16(2051.0f)), 2052.0f);
  EXPECT_EQ(fp16_to_fp32(fp32_to_fp16(2050.9f)), 2050.0f);
}

TEST(Fp16, SubnormalsAreKept) {
  const float smallest = std::ldexp(1.0f, -24);  // the smallest positive fp16 subnormal
  EXPECT_EQ(fp32_to_fp16(smallest), 0x0001);
  EXPECT_EQ(fp16_to_fp32(0x0001), smallest);
  EXPECT_EQ(fp16_to_fp32(0x03ff), std::ldexp(1023.0f, -24));  // the largest subnormal
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1023.0f, -24)), 0x03ff);
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -14)), 0x0400);  // the smallest normal
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // a tie: to even, zero
  EXPECT_EQ(fp32_to_fp16(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 of the smallest: up
  EXPECT_EQ(fp32_to_fp16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5: tie, to even 2
}

TEST(Fp16, NanStaysNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::uint16_t half = fp32_to_fp16(nan);
  EXPECT_EQ(half & 0x7c00, 0x7c00);
  EXPECT_NE(half & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(fp16_to_fp32(half)));
  EXPECT_TRUE(std::isnan(fp16_to_fp32(0x7e00)));
}

TEST(Bf16, ExactValuesAndRoundingTiesToEven) {
  EXPECT_EQ(fp32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_fp32(0x3f80), 1.0f);
  EXPECT_EQ(fp32_to_bf16(-0.0f), 0x8000);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to the even one, 1.
  EXPECT_EQ(fp32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up.
  EXPECT_EQ(fp32_to_bf16(1.0f + std::ldexp(3.0f, -8)), 0x3f82);
  EXPECT_EQ(fp32_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3f81);
  EXPECT_EQ(bf16_to_fp32(fp32_to_bf16(257.0f)), 256.0f);  // integers exact only to 256
  EXPECT_EQ(fp32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to inf
  EXPECT_EQ(fp32_to_bf16(kInf), 0x7f80);
  EXPECT_TRUE(std::isnan(bf16_to_fp32(fp32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  // A nan whose payload sits in the low 16 bits must not become inf.
  EXPECT_TRUE(std::isnan(bf16_to_fp32(fp32_to_bf16(std::bit_cast<float>(0x7f800001u)))));
}

TEST(Compression, BuffersConvertLikeSingleValues) {
  std::vector<float> values;
  for (int i = -3000; i <= 3000; ++i) values.push_back(static_cast<float>(i) * 0.37f);
  values.push_back(kInf);
  values.push_back(std::ldexp(5.0f, -24));
  for (Compression format : {Compression::fp16, Compression::bf16}) {
    std::vector<std::uint16_t> packed(values.size());
    std::vector<float> back(values.size());
    compress(values, packed, format);
    decompress(packed, back, format);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint16_t one = format == Compression::fp16 ? fp32_to_fp16(values[i])
                                                            : fp32_to_bf16(values[i]);
      ASSERT_EQ(packed[i], one) << to_string(format) << " element " << i;
      ASSERT_EQ(back[i], format == Compression::fp16 ? fp16_to_fp32(one) : bf16_to_fp32(one));
    }
  }
}

TEST(Compression, NamesParseAndBadOnesAreRefused) {
  for (Compression format : {Compression::none, Compression::fp16, Compression::bf16})
    EXPECT_EQ(parse_compression(to_string(format)), format);
  EXPECT_THROW(parse_compression("fp8"), std::invalid_argument);
  EXPECT_EQ(element_bytes(Compression::none), 4u);
  EXPECT_EQ(element_bytes(Compression::fp16), 2u);
  std::vector<float> one(1);
  std::vector<std::uint16_t> two(2);
  EXPECT_THROW(compress(one, two, Compression::fp16), std::invalid_argument);
  EXPECT_THROW(compress(one, {two.data(), 1}, Compression::none), std::invalid_argument);
}

TEST(ReduceKernel, SixteenBitSumRoundsEachAdditionInItsFormat) {
  // fp16: 2048 + 1 = 2049 rounds to 2048 (tie to even); 1000 + 24 = 1024 exact.
  std::vector<std::uint16_t> dst = {fp32_to_fp16(2048), fp32_to_fp16(1000), fp32_to_fp16(-3),
                                    fp32_to_fp16(65504)};
  const std::vector<std::uint16_t> src = {fp32_to_fp16(1), fp32_to_fp16(24), fp32_to_fp16(5),
                                          fp32_to_fp16(16)};
  sum_into(dst.data(), src.data(), dst.size(), Compression::fp16);
  EXPECT_EQ(fp16_to_fp32(dst[0]), 2048.0f);
  EXPECT_EQ(fp16_to_fp32(dst[1]), 1024.0f);
  EXPECT_EQ(fp16_to_fp32(dst[2]), 2.0f);
  EXPECT_EQ(fp16_to_fp32(dst[3]), kInf);  // 65520: past the largest finite value
  // bf16: 256 + 1 = 257 rounds to 256; 3 + 5 = 8.
  std::vector<std::uint16_t> b = {fp32_to_bf16(256), fp32_to_bf16(3)};
  const std::vector<std::uint16_t> c = {fp32_to_bf16(1), fp32_to_bf16(5)};
  sum_into(b.data(), c.data(), b.size(), Compression::bf16);
  EXPECT_EQ(bf16_to_fp32(b[0]), 256.0f);
  EXPECT_EQ(bf16_to_fp32(b[1]), 8.0f);
  EXPECT_THROW(sum_into(b.data(), c.data(), 2, Compression::none), std::invalid_argument);
}

TEST(ReduceKernel, WidenedAdditionSumsInFp32) {
  // 2048 + 1 + 1 in fp32 is 2050, where two fp16 additions would stay at 2048.
  std::vector<float> sum = {2048.0f};
  const std::uint16_t one = fp32_to_fp16(1);
  add_widened(sum.data(), &one, 1, Compression::fp16);
  add_widened(sum.data(), &one, 1, Compression::fp16);
  EXPECT_EQ(sum[0], 2050.0f);
  const std::uint16_t b = fp32_to_bf16(0.5f);
  add_widened(sum.data(), &b, 1, Compression::bf16);
  EXPECT_EQ(sum[0], 2050.5f);
}

// Long enough that the vectorized loop body runs, with a tail.
TEST(ReduceKernel, SixteenBitSumOverALongBufferMatchesTheScalarSum) {
  std::vector<std::uint16_t> dst(1037), src(1037);
  for (std::size_t i = 0; i < dst.size(); ++i) {
    dst[i] = fp32_to_fp16(static_cast<float>(i) * 0.25f);
    src[i] = fp32_to_fp16(static_cast<float>(i % 97) - 40.0f);
  }
  std::vector<std::uint16_t> want(dst.size());
  for (std::size_t i = 0; i < dst.size(); ++i)
    want[i] = fp32_to_fp16(fp16_to_fp32(dst[i]) + fp16_to_fp32(src[i]));
  sum_into(dst.data(), src.data(), dst.size(), Compression::fp16);
  EXPECT_EQ(dst, want);
}

}  // namespace
}  // namespace gradsync

namespace gradsync {
namespace {

// The casts run on host memory; the NCCL strategies say so before any run.
TEST(Compression, NcclStrategiesRefuseItWithOneLine) {
  StrategyOptions options;
  options.compression = Compression::bf16;
  for (const char* name : {"nccl-ring", "nccl-tree"}) {
    try {
      check_strategy_options(find_strategy(name), options, 2);
      ADD_FAILURE() << name << " accepted --compression bf16";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find(std::string(name) + ": --compression bf16 is not supported"), 0u)
          << e.what();
    }
  }
  EXPECT_NO_THROW(check_strategy_options(find_strategy("ring-mpi"), options, 2));
}

}  // namespace
}  // namespace gradsync
