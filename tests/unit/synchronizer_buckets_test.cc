// The fusion rule the synchronizer forms its buckets with (fusion_plan.h):
// thresholds, a big gradient alone, fusion off, and that every gradient lands
// in exactly one bucket. The synchronizer itself, which needs a strategy and
// so MPI, is tested in tests/mpi/synchronizer_test.cc.
#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "harness/engine/fusion_plan.h"

namespace gradsync {
namespace {

using Buckets = std::vector<std::vector<std::size_t>>;

constexpr double kKiB = 1.0 / 1024;  // in MiB

std::vector<std::size_t> in_order(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

TEST(FusionRule, ThresholdIsInMiB) {
  EXPECT_EQ(FusionRule(64).threshold_bytes(), 64u << 20);
  EXPECT_EQ(FusionRule(0.5).threshold_bytes(), 512u << 10);
  EXPECT_EQ(FusionRule(0).threshold_bytes(), 0u);
}

TEST(FusionRule, RejectsNegativeAndNonFiniteSizes) {
  EXPECT_THROW(FusionRule(-1), std::invalid_argument);
  // Braces: with parentheses, clang reads `FusionRule(std::numeric_limits<...>::x());` as a declaration.
  EXPECT_THROW(FusionRule{std::numeric_limits<double>::quiet_NaN()}, std::invalid_argument);
  EXPECT_THROW(FusionRule{std::numeric_limits<double>::infinity()}, std::invalid_argument);
}

TEST(PlanBuckets, BucketClosesWhenItsBytesReachTheThreshold) {
  // 1 KiB threshold, gradients of 400 bytes: 400, 800, 1200 -> closes at the third.
  const std::vector<std::size_t> bytes(7, 400);
  EXPECT_EQ(plan_buckets(in_order(7), bytes, FusionRule(kKiB)),
            (Buckets{{0, 1, 2}, {3, 4, 5}, {6}}));
}

TEST(PlanBuckets, ExactlyReachingTheThresholdCloses) {
  const std::vector<std::size_t> bytes(4, 512);
  EXPECT_EQ(plan_buckets(in_order(4), bytes, FusionRule(kKiB)), (Buckets{{0, 1}, {2, 3}}));
}

TEST(PlanBuckets, GradientReachingTheThresholdGoesAloneAndClosesThePartialBucket) {
  const std::vector<std::size_t> bytes = {100, 200, 1024, 100, 5000, 300};
  EXPECT_EQ(plan_buckets(in_order(6), bytes, FusionRule(kKiB)),
            (Buckets{{0, 1}, {2}, {3}, {4}, {5}}));
}

TEST(PlanBuckets, FusionZeroGivesEveryGradientItsOwnBucket) {
  const std::vector<std::size_t> bytes = {4, 0, 4000, 8};
  EXPECT_EQ(plan_buckets(in_order(4), bytes, FusionRule(0)), (Buckets{{0}, {1}, {2}, {3}}));
}

TEST(PlanBuckets, LargeThresholdGivesOneBucketInHandOverOrder) {
  const std::vector<std::size_t> bytes = {4, 400, 4000, 8};
  const std::vector<std::size_t> order = {3, 1, 0, 2};
  EXPECT_EQ(plan_buckets(order, bytes, FusionRule(64)), (Buckets{{3, 1, 0, 2}}));
}

TEST(PlanBuckets, DependsOnlyOnOrderAndSizes) {
  const std::vector<std::size_t> bytes = {300, 300, 700, 100, 2000, 50};
  const std::vector<std::size_t> order = {5, 4, 3, 2, 1, 0};
  EXPECT_EQ(plan_buckets(order, bytes, FusionRule(kKiB)), (Buckets{{5}, {4}, {3, 2, 1}, {0}}));
  // Same sizes, same order: same buckets, call after call.
  EXPECT_EQ(plan_buckets(order, bytes, FusionRule(kKiB)),
            plan_buckets(order, bytes, FusionRule(kKiB)));
}

TEST(PlanBuckets, EveryGradientLandsInExactlyOneBucket) {
  std::vector<std::size_t> bytes(50);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = (i * 37 % 11) * 97;
  for (double mb : {0.0, 0.25 * kKiB, kKiB, 2 * kKiB, 64.0}) {
    std::vector<int> seen(bytes.size(), 0);
    for (const auto& bucket : plan_buckets(in_order(bytes.size()), bytes, FusionRule(mb))) {
      EXPECT_FALSE(bucket.empty());
      for (std::size_t index : bucket) ++seen[index];
    }
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "gradient " << i;
  }
}

TEST(PlanBuckets, NoInputNoBuckets) { EXPECT_TRUE(plan_buckets({}, {}, FusionRule(1)).empty()); }

}  // namespace
}  // namespace gradsync
