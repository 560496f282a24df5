// The memory check: exact arithmetic against an injected figure, the line it
// refuses with, no wrap-around for absurd sizes.
#include "harness/engine/memory_budget.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

namespace gradsync {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

// The message check_fits_in_memory throws, or "" when the need fits.
std::string refusal(const MemoryNeed& need, std::optional<std::uint64_t> available) {
  try {
    check_fits_in_memory(need, "collectives -e/--maxbytes 64G", available);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(MemoryBudget, ANeedBeyondTheHostIsRefusedWithTheFigures) {
  const std::uint64_t available = 229 * kGiB / 10;  // 22.9 GiB
  EXPECT_EQ(refusal({64 * kGiB, 3, 1}, available),
            "collectives -e/--maxbytes 64G: needs 192.0 GiB (3 buffers x 64.0 GiB x 1 rank) but "
            "this host has 22.9 GiB available");
  EXPECT_EQ(refusal({8 * kGiB, 1, 4}, available),
            "collectives -e/--maxbytes 64G: needs 32.0 GiB (1 buffer x 8.0 GiB x 4 ranks) but "
            "this host has 22.9 GiB available");
}

TEST(MemoryBudget, ExactlyWhatIsAvailableFitsAndOneByteMoreDoesNot) {
  EXPECT_EQ(refusal({kGiB, 2, 3}, 6 * kGiB), "");
  EXPECT_NE(refusal({kGiB, 2, 3}, 6 * kGiB - 1), "");
  EXPECT_EQ(refusal({0, 1, 1}, 0), "");
}

TEST(MemoryBudget, ASizeWhoseProductPassesTwoToTheSixtyFourIsStillRefused) {
  // Multiplied in 64-bit integers, 2^63 x 2 x 1 wraps to 0 and would fit.
  EXPECT_NE(refusal({1ull << 63, 2, 1}, 16 * kGiB), "");
  EXPECT_NE(refusal({UINT64_MAX, 3, 8}, UINT64_MAX), "");
}

TEST(MemoryBudget, NothingIsRefusedWhenTheHostDoesNotSay) {
  EXPECT_EQ(refusal({UINT64_MAX, 3, 8}, std::nullopt), "");
}

TEST(MemoryBudget, ThisHostSaysWhatItHas) {
  if (!std::ifstream("/proc/meminfo")) GTEST_SKIP() << "no /proc/meminfo here";
  const auto available = available_memory_bytes();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0u);
}

}  // namespace
}  // namespace gradsync
