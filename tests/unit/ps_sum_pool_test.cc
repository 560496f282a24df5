// The threads a parameter-server shard sums with on the shared-memory path
// (strategies/ps/ps_sum_pool.h): how a range is cut, that every element is
// summed once, that a sum cut among threads equals the one-thread sum bit
// for bit (floats whose sum depends on the order of addition, and 16-bit
// formats), and that a slice's exception reaches the caller and leaves the
// pool usable.
#include "strategies/ps/ps_sum_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gradsync {
namespace {

// Whether n bytes at a and b are equal; an empty vector's data() may be null,
// which memcmp must not be given even for n == 0.
bool same_bytes(const void* a, const void* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

// Every element of [0, count) in exactly one slice, in order, no slice empty.
void expect_cover(const std::vector<Range>& slices, std::size_t count) {
  std::size_t next = 0;
  for (const Range& slice : slices) {
    EXPECT_EQ(slice.offset, next);
    EXPECT_GT(slice.count, 0u);
    next = slice.offset + slice.count;
  }
  EXPECT_EQ(next, count);
}

TEST(SumSlices, WholeChunksAsEvenAsTheyGoAndNoneTooSmall) {
  EXPECT_TRUE(sum_slices(0, 4, 16, 64).empty());
  EXPECT_EQ(sum_slices(1, 4, 16, 64), (std::vector<Range>{{0, 1}}));
  // Under two minimum slices: one, on the caller's thread.
  EXPECT_EQ(sum_slices(127, 4, 16, 64), (std::vector<Range>{{0, 127}}));
  EXPECT_EQ(sum_slices(128, 4, 16, 64), (std::vector<Range>{{0, 64}, {64, 64}}));
  // 10 chunks of 16 (the last of 5) over 3 threads: 4, 3 and 3 chunks.
  EXPECT_EQ(sum_slices(149, 3, 16, 1), (std::vector<Range>{{0, 64}, {64, 48}, {112, 37}}));
  // More threads than chunks: one chunk each.
  EXPECT_EQ(sum_slices(40, 8, 16, 1), (std::vector<Range>{{0, 16}, {16, 16}, {32, 8}}));
  EXPECT_EQ(sum_slices(1000, 1, 16, 1), (std::vector<Range>{{0, 1000}}));
  EXPECT_THROW(sum_slices(10, 2, 0, 1), std::invalid_argument);
  for (const std::size_t count : {1ul, 15ul, 16ul, 17ul, 1023ul, 4096ul, 100003ul})
    for (const int threads : {1, 2, 3, 4, 7}) {
      const std::vector<Range> slices = sum_slices(count, threads, 16, 32);
      SCOPED_TRACE(testing::Message() << count << " elements, " << threads << " threads");
      expect_cover(slices, count);
      EXPECT_LE(slices.size(), static_cast<std::size_t>(threads));
      for (std::size_t i = 0; i + 1 < slices.size(); ++i) {
        EXPECT_EQ(slices[i].count % 16, 0u);
        EXPECT_GE(slices[i].count, 32u);
      }
    }
}

TEST(SumPool, EveryElementOnceOverManySumsOfEverySize) {
  for (const int threads : {1, 2, 3, 4}) {
    SumPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (const std::size_t count : {0ul, 1ul, 2ul, 5ul, 64ul, 1000ul, 3ul, 999ul}) {
      std::vector<std::atomic<int>> seen(count);
      std::atomic<int> callers = 0;
      pool.run(count, 4, 1, [&](std::size_t first, std::size_t n) {
        ++callers;
        for (std::size_t i = first; i < first + n; ++i) ++seen[i];
      });
      EXPECT_EQ(callers.load(), static_cast<int>(sum_slices(count, threads, 4, 1).size()));
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
    }
  }
  EXPECT_THROW(SumPool(0), std::invalid_argument);
}

TEST(SumPool, ASlicesExceptionReachesTheCallerAfterEverySliceEnded) {
  SumPool pool(3);
  for (const std::size_t failing : {0ul, 1ul, 2ul}) {  // the caller's slice, then helpers'
    std::atomic<int> ended = 0;
    EXPECT_THROW(pool.run(30, 10, 1,
                          [&](std::size_t first, std::size_t) {
                            if (first / 10 == failing) {
                              ++ended;
                              throw std::runtime_error("slice failed");
                            }
                            std::this_thread::yield();
                            ++ended;
                          }),
                 std::runtime_error);
    EXPECT_EQ(ended.load(), 3);
  }
  std::atomic<int> slices = 0;
  pool.run(30, 10, 1, [&](std::size_t, std::size_t) { ++slices; });
  EXPECT_EQ(slices.load(), 3) << "the pool works after a failed sum";
}

// Each worker's values: random magnitudes over many exponents, so that
// their sum depends on the order of addition.
std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<float> values(count);
  for (float& v : values) v = std::ldexp(mantissa(random), exponent(random));
  return values;
}

struct Inputs {
  std::vector<std::vector<std::byte>> workers;
  std::vector<const std::byte*> pointers;
};

Inputs make_inputs(int workers, std::size_t count, std::size_t element, Compression format) {
  Inputs in;
  for (int w = 0; w < workers; ++w) {
    const std::vector<float> values = random_floats(count, 17u * w + count);
    std::vector<std::byte> bytes(count * element);
    if (element == sizeof(float))
      std::copy(values.begin(), values.end(), reinterpret_cast<float*>(bytes.data()));
    else
      compress(values, {reinterpret_cast<std::uint16_t*>(bytes.data()), count}, format);
    in.workers.push_back(std::move(bytes));
  }
  for (const auto& bytes : in.workers) in.pointers.push_back(bytes.data());
  return in;
}

TEST(SumValues, CutAmongThreadsEqualsOneThreadBitForBit) {
  const std::size_t counts[] = {0,
                                1,
                                kSumChunk - 1,
                                kSumChunk + 1,
                                2 * kSumMinSlice,
                                2 * kSumMinSlice + 1,
                                3 * kSumMinSlice + 7,
                                1000003};
  SumPool one(1), two(2), three(3), four(4);
  for (const Compression format : {Compression::none, Compression::fp16, Compression::bf16}) {
    const std::size_t element = format == Compression::none ? sizeof(float) : 2;
    for (const int workers : {1, 2, 3, 4})
      for (const std::size_t count : counts) {
        SCOPED_TRACE(testing::Message() << to_string(format) << ", " << workers << " workers, "
                                        << count << " elements");
        const Inputs in = make_inputs(workers, count, element, format);
        std::vector<std::byte> expected(count * element);
        sum_values(one, expected.data(), in.pointers, element, format, count);
        if (format == Compression::none) {  // worker order, element by element
          std::vector<float> sum(count);
          for (std::size_t i = 0; i < count; ++i) {
            sum[i] = reinterpret_cast<const float*>(in.pointers[0])[i];
            for (int w = 1; w < workers; ++w)
              sum[i] += reinterpret_cast<const float*>(in.pointers[w])[i];
          }
          ASSERT_TRUE(same_bytes(expected.data(), sum.data(), expected.size()));
        }
        for (SumPool* pool : {&two, &three, &four}) {
          std::vector<std::byte> got(count * element, std::byte{0x5a});
          sum_values(*pool, got.data(), in.pointers, element, format, count);
          ASSERT_TRUE(same_bytes(got.data(), expected.data(), got.size()))
              << pool->threads() << " threads";
        }
      }
  }
}

}  // namespace
}  // namespace gradsync
