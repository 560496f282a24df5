// The schedule of halving-doubling-mpi (strategies/mpi/halving_doubling_mpi.cc):
// every exchange is agreed by both of its ranks, every step halves what the
// rank holds, and the blocks the ranks end with cover the buffer once.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

#include "strategies/mpi/halving_doubling_mpi.h"

namespace gradsync {
namespace {

std::size_t end_of(Range r) { return r.offset + r.count; }

// `a` and `b` are adjacent halves (either order) of `whole`.
void expect_halves(Range a, Range b, Range whole) {
  const Range lower = a.offset <= b.offset ? a : b, upper = a.offset <= b.offset ? b : a;
  EXPECT_EQ(lower.offset, whole.offset);
  EXPECT_EQ(end_of(lower), upper.offset);
  EXPECT_EQ(end_of(upper), end_of(whole));
}

TEST(HalvingDoublingPlan, ExchangesAgreeAndFinalBlocksCoverTheBufferOnce) {
  for (int size : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 33}) {
    for (std::size_t count : {0u, 1u, 2u, 3u, 5u, 7u, 13u, 64u, 1000u, 4099u}) {
      SCOPED_TRACE(::testing::Message() << size << " ranks, " << count << " elements");
      const int pof2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(size)));
      const int r = size - pof2;
      std::vector<HalvingDoublingPlan> plans;
      for (int rank = 0; rank < size; ++rank) plans.push_back(halving_doubling_plan(rank, size, count));
      std::vector<Range> owned;
      for (int rank = 0; rank < size; ++rank) {
        const HalvingDoublingPlan& plan = plans[rank];
        ASSERT_EQ(plan.pair >= 0, rank < 2 * r) << "rank " << rank;
        EXPECT_EQ(plan.folded, rank < 2 * r && rank % 2 == 0);
        if (plan.pair >= 0) {
          EXPECT_EQ(plan.pair, rank ^ 1);
          EXPECT_EQ(plans[plan.pair].pair_keep, plan.pair_send);
          EXPECT_EQ(plans[plan.pair].pair_send, plan.pair_keep);
          expect_halves(plan.pair_send, plan.pair_keep, {0, count});
        }
        if (plan.folded) {
          EXPECT_TRUE(plan.steps.empty());
          continue;
        }
        ASSERT_EQ(plan.steps.size(), static_cast<std::size_t>(std::countr_zero(unsigned(pof2))));
        Range held{0, count};
        for (std::size_t k = 0; k < plan.steps.size(); ++k) {
          const HalvingStep& step = plan.steps[k];
          ASSERT_GE(step.partner, 0);
          ASSERT_LT(step.partner, size);
          const HalvingDoublingPlan& other = plans[step.partner];
          ASSERT_FALSE(other.folded) << "step " << k << " partner " << step.partner;
          EXPECT_EQ(other.steps[k].partner, rank);
          EXPECT_EQ(other.steps[k].send, step.keep);
          EXPECT_EQ(other.steps[k].keep, step.send);
          expect_halves(step.send, step.keep, held);
          held = step.keep;
        }
        owned.push_back(held);
      }
      ASSERT_EQ(owned.size(), static_cast<std::size_t>(pof2));
      std::sort(owned.begin(), owned.end(),
                [](Range a, Range b) { return a.offset != b.offset ? a.offset < b.offset : a.count < b.count; });
      std::size_t next = 0;
      for (Range block : owned) {
        EXPECT_EQ(block.offset, next);
        next = end_of(block);
      }
      EXPECT_EQ(next, count);
    }
  }
}

TEST(HalvingDoublingPlan, SixRanksFoldTwoPairsAndHalveWithTheNearestPartnerFirst) {
  // p' = 4, r = 2: ranks 0 and 2 fold into 1 and 3; 1, 3, 4, 5 are ranks 0..3 of the halving.
  const HalvingDoublingPlan folded = halving_doubling_plan(0, 6, 8);
  EXPECT_EQ(folded.pair, 1);
  EXPECT_TRUE(folded.folded);
  EXPECT_EQ(folded.pair_keep, (Range{0, 4}));
  EXPECT_EQ(folded.pair_send, (Range{4, 4}));

  const HalvingDoublingPlan first = halving_doubling_plan(1, 6, 8);
  EXPECT_EQ(first.pair, 0);
  EXPECT_FALSE(first.folded);
  EXPECT_EQ(first.steps, (std::vector<HalvingStep>{{3, {4, 4}, {0, 4}}, {4, {2, 2}, {0, 2}}}));

  const HalvingDoublingPlan last = halving_doubling_plan(5, 6, 8);
  EXPECT_EQ(last.pair, -1);
  EXPECT_EQ(last.steps, (std::vector<HalvingStep>{{4, {0, 4}, {4, 4}}, {3, {4, 2}, {6, 2}}}));
}

TEST(HalvingDoublingPlan, UnevenBlocksFollowEvenPart) {
  // 4 ranks, 7 elements: blocks of 2, 2, 2, 1.
  const HalvingDoublingPlan plan = halving_doubling_plan(3, 4, 7);
  EXPECT_EQ(plan.steps, (std::vector<HalvingStep>{{2, {0, 4}, {4, 3}}, {1, {4, 2}, {6, 1}}}));
}

TEST(HalvingDoublingPlan, OneRankHasNothingToDoAndBadRanksAreRejected) {
  const HalvingDoublingPlan plan = halving_doubling_plan(0, 1, 10);
  EXPECT_EQ(plan.pair, -1);
  EXPECT_TRUE(plan.steps.empty());
  EXPECT_THROW(halving_doubling_plan(2, 2, 10), std::invalid_argument);
  EXPECT_THROW(halving_doubling_plan(0, 0, 10), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
