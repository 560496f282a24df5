// The fusion threshold search (fusion_search.h): its grid, deduplicated by
// the buckets each threshold forms; the minimum of known step-time curves,
// flat and noisy ones included; ties to the smaller threshold; and the same
// answer for the same measurements.
#include "harness/engine/fusion_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gradsync {
namespace {

constexpr std::size_t kMiB = 1 << 20;

// 40 gradients of 3/4 MiB: 30 MiB, so the grid runs to 32 MiB.
std::vector<std::size_t> even() { return std::vector<std::size_t>(40, 3 * kMiB / 4); }

std::vector<double> measured_mbs(const FusionSearchResult& r) {
  std::vector<double> mbs;
  for (const auto& c : r.candidates) mbs.push_back(c.mb);
  return mbs;
}

TEST(FusionGrid, NoFusionThenPowersOfTwoUpToTheTotal) {
  // 0.25 and 0.5 MiB form the buckets of 0 (every gradient reaches them alone).
  EXPECT_EQ(fusion_grid(even()), (std::vector<double>{0, 1, 2, 4, 8, 16, 32}));
}

TEST(FusionGrid, ThresholdsThatFormTheSameBucketsAreOneCandidate) {
  // One 100 MiB gradient and four small ones behind it: from 1 to 64 MiB the
  // small ones form one bucket and the big one goes alone; 128 MiB fuses all.
  const std::vector<std::size_t> bytes = {100 * kMiB, 100, 100, 100, 100};
  EXPECT_EQ(fusion_grid(bytes), (std::vector<double>{0, 0.25, 128}));
}

TEST(FusionGrid, NoGradientsIsNoFusionAlone) {
  EXPECT_EQ(fusion_grid({}), (std::vector<double>{0}));
}

TEST(FusionSearch, FindsTheMinimumOfAValley) {
  // Step time with its minimum at 8 MiB on a log scale.
  const auto valley = [](double mb) {
    return mb == 0 ? 2.0 : 1 + 0.01 * std::pow(std::log2(mb) - 3, 2);
  };
  const FusionSearchResult r = search_fusion(even(), valley);
  EXPECT_EQ(r.chosen_mb, 8);
  // The grid, then the midpoints with its neighbours 4 and 16, then the
  // three best again, smallest first.
  EXPECT_EQ(measured_mbs(r),
            (std::vector<double>{0, 1, 2, 4, 8, 16, 32, std::sqrt(32.0), std::sqrt(128.0),
                                 std::sqrt(32.0), 8, std::sqrt(128.0)}));
}

TEST(FusionSearch, RefinementFindsAMinimumBetweenGridPoints) {
  // Minimum at 11 MiB: between 8 and 16; the midpoint 11.3 is the closest.
  const auto valley = [](double mb) { return mb == 0 ? 9.0 : std::abs(std::log2(mb / 11)); };
  EXPECT_DOUBLE_EQ(search_fusion(even(), valley).chosen_mb, std::sqrt(128.0));
}

TEST(FusionSearch, NoFusionCanWin) {
  const auto rising = [](double mb) { return 1 + mb; };
  const FusionSearchResult r = search_fusion(even(), rising);
  EXPECT_EQ(r.chosen_mb, 0);
  // No refinement below the smallest positive threshold; 0, 1 and 2 again.
  EXPECT_EQ(r.candidates.size(), 10u);
}

TEST(FusionSearch, TheLargestCanWin) {
  const auto falling = [](double mb) { return 100 - mb; };
  EXPECT_EQ(search_fusion(even(), falling).chosen_mb, 32);
}

TEST(FusionSearch, AFlatCurveChoosesTheSmallestThreshold) {
  const FusionSearchResult r = search_fusion(even(), [](double) { return 0.5; });
  EXPECT_EQ(r.chosen_mb, 0);
}

TEST(FusionSearch, NoiseSmallerThanTheValleyDoesNotMoveTheChoiceFar) {
  // A valley at 16 MiB, 3% deep per octave, with +-1% deterministic noise.
  std::size_t calls = 0;
  const auto noisy = [&](double mb) {
    const double noise = 0.01 * std::sin(12.9898 * double(++calls));
    return (mb == 0 ? 2.0 : 1 + 0.03 * std::abs(std::log2(mb) - 4)) + noise;
  };
  const double chosen = search_fusion(even(), noisy).chosen_mb;
  EXPECT_GE(chosen, 8);
  EXPECT_LE(chosen, 32);
}

TEST(FusionSearch, MeasuresEachBucketLayoutOnce) {
  const std::vector<std::size_t> bytes = {100 * kMiB, 100, 100, 100, 100};
  int calls = 0;
  const FusionSearchResult r = search_fusion(bytes, [&](double mb) {
    ++calls;
    return mb == 0.25 ? 1.0 : 2.0;
  });
  EXPECT_EQ(r.chosen_mb, 0.25);
  // 0, 0.25, 128; the midpoint of 0.25 and 128 (5.66 MiB) forms 0.25's
  // buckets; then the three, all leaders, again.
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(r.candidates.size(), 6u);
}

TEST(FusionSearch, ASecondLookOverturnsALuckyFirstMeasurement) {
  // A valley at 16 MiB; 4 MiB's first measurement is lucky (best of all),
  // its second shows its real time: the mean of the two loses to 16 MiB.
  int fours = 0;
  const auto lucky = [&](double mb) {
    if (mb == 4 && fours++ == 0) return 0.95;
    return mb == 0 ? 2.0 : 1 + 0.03 * std::abs(std::log2(mb) - 4);
  };
  EXPECT_EQ(search_fusion(even(), lucky).chosen_mb, 16);
  EXPECT_EQ(fours, 2);
}

TEST(FusionSearch, TheSameMeasurementsGiveTheSameAnswer) {
  const auto curve = [](double mb) { return std::fmod(mb * 7.3 + 1, 5.0); };
  const FusionSearchResult a = search_fusion(even(), curve), b = search_fusion(even(), curve);
  EXPECT_EQ(a.chosen_mb, b.chosen_mb);
  EXPECT_EQ(measured_mbs(a), measured_mbs(b));
}

}  // namespace
}  // namespace gradsync
