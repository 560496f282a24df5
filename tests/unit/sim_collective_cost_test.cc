// The cost model's closed forms for the flat algorithms and the hierarchical
// allreduce, against counts worked out by hand from the strategies' code
// (strategies/mpi/ring_mpi.cc, tree_mpi.cc) and NCCL's trees. Sizes are in bytes;
// a float is 4 bytes. Expected values are written as the arithmetic that
// gives them: {calls, messages, bytes, reduced}.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "harness/sim/collective_cost.h"
#include "harness/sim/collective_cost_units.h"
#include "harness/sim/strategy_cost.h"
#include "strategies/mpi/tree_mpi.h"
#include "strategies/core/partition.h"
#include "tests/unit/sim_cost_test_support.h"

namespace gradsync::sim {
namespace {

TEST(SimCollectiveCost, SecondsAreTheFourTermsTimesTheirConstants) {
  const CostParams params{
      .overhead_s = 2e-6, .alpha_s = 3e-6, .beta_s_per_byte = 1e-9, .gamma_s_per_byte = 2e-10};
  const CostTerms terms{.calls = 1, .messages = 10, .bytes = 1e6, .reduced = 5e5};
  // 1 x 2 us + 10 x 3 us + 1e6 x 1 ns + 5e5 x 0.2 ns = 2 + 30 + 1000 + 100 us
  EXPECT_NEAR(params.seconds(terms), 1132e-6, 1e-15);
  EXPECT_EQ(params.seconds(CostTerms{}), 0.0);
}

TEST(SimCollectiveCost, TermsAddCountByCount) {
  CostTerms a{.calls = 1, .messages = 2, .bytes = 3, .reduced = 4};
  const CostTerms b{.calls = 10, .messages = 20, .bytes = 30, .reduced = 40};
  EXPECT_TRUE(same_terms(a + b, {11, 22, 33, 44}));
  a += b;
  EXPECT_TRUE(same_terms(a, {11, 22, 33, 44}));
}

TEST(SimCollectiveCost, NothingMovesOnOneRankOrForAnEmptyBuffer) {
  EXPECT_TRUE(same_terms(ring_terms(1 * MiB, 1, 512 * KiB), {}));
  EXPECT_TRUE(same_terms(binary_tree_terms(1 * MiB, 1, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(double_tree_terms(1 * MiB, 1, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(1 * MiB, 1), {}));
  const HierarchicalTerms one = hierarchical_terms(1 * MiB, 1, 1, 512 * KiB);
  EXPECT_TRUE(same_terms(one.intra, {}));
  EXPECT_TRUE(same_terms(one.inter, {}));
  EXPECT_TRUE(same_terms(ring_terms(0, 4, 512 * KiB), {}));
  EXPECT_TRUE(same_terms(binary_tree_terms(0, 5, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(double_tree_terms(0, 5, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(0, 6), {}));
}

// Ring: 2(p-1) sends of the largest chunk, each in ceil(chunk / segment)
// messages; p-1 additions of it.
TEST(SimCollectiveCost, RingCountsTheLargestChunkTwoTimesPMinusOne) {
  // p = 2, 1 MiB: chunks of 512 KiB, one 512 KiB segment each.
  EXPECT_TRUE(
      same_terms(ring_terms(1 * MiB, 2, 512 * KiB), {1, 2 * 1 * 1, 2 * 512 * KiB, 512 * KiB}));
  // p = 4, 16 MiB: chunks of 4 MiB, 8 segments of 512 KiB.
  EXPECT_TRUE(same_terms(ring_terms(16 * MiB, 4, 512 * KiB), {1, 6 * 8, 6 * 4 * MiB, 3 * 4 * MiB}));
  // p = 8, 1 MiB, segment 1 MiB larger than the 128 KiB chunk: one message a step.
  EXPECT_TRUE(
      same_terms(ring_terms(1 * MiB, 8, 1 * MiB), {1, 14 * 1, 14 * 128 * KiB, 7 * 128 * KiB}));
}

TEST(SimCollectiveCost, RingCutsUnevenBuffersAsRingMpiDoes) {
  // p = 3, 1001 floats: chunks 334, 334, 333; segments of 16 floats (64 B):
  // ceil(334 / 16) = 21 (20 x 16 = 320, then 14).
  EXPECT_TRUE(same_terms(ring_terms(4 * 1001, 3, 64), {1, 4 * 21, 4 * 334 * 4, 2 * 334 * 4}));
  // p = 6, 100 floats: chunks 17 x 4 then 16 x 2; segments of 7 floats: ceil(17 / 7) = 3.
  EXPECT_TRUE(same_terms(ring_terms(4 * 100, 6, 28), {1, 10 * 3, 10 * 17 * 4, 5 * 17 * 4}));
  // p = 5, 10 bytes: rounded up to 3 floats, chunks 1, 1, 1, 0, 0.
  EXPECT_TRUE(same_terms(ring_terms(10, 5, 512 * KiB), {1, 8 * 1, 8 * 1 * 4, 4 * 1 * 4}));
  // A segment of 6 bytes is one float, as ring-mpi's --ring-segment 6 would be.
  EXPECT_TRUE(same_terms(ring_terms(4 * 8, 2, 6), {1, 2 * 4, 2 * 4 * 4, 1 * 4 * 4}));
}

TEST(SimCollectiveCost, SegmentCountIsSplitByMaxs) {
  for (std::uint64_t count : {0u, 1u, 15u, 16u, 17u, 334u, 1000u})
    for (std::uint64_t max : {1u, 7u, 16u, 2000u})
      EXPECT_EQ(piece_count(count, max), split_by_max(count, max).size()) << count << " by " << max;
}

// tree-mpi: (children + parent) x n through the busiest link direction, in
// segments, plus 2 x depth segments of fill; the busiest rank adds its children.
TEST(SimCollectiveCost, BinaryTreeLoadsGrowWithTheBusiestRanksLinks) {
  // 1 MiB in 4 segments of 256 KiB.
  const double n = 1 * MiB, seg = 256 * KiB;
  // p = 2: rank 1's one link, depth 1.
  EXPECT_TRUE(
      same_terms(binary_tree_terms(n, 2, seg), {1, 1 * 4 + 2 * 1, 1 * n + 2 * 1 * seg, 1 * n}));
  // p = 3: the root's two children, depth 1.
  EXPECT_TRUE(
      same_terms(binary_tree_terms(n, 3, seg), {1, 2 * 4 + 2 * 1, 2 * n + 2 * 1 * seg, 2 * n}));
  // p = 4: rank 1 has child 3 and a parent (2 links), depth 2.
  EXPECT_TRUE(
      same_terms(binary_tree_terms(n, 4, seg), {1, 2 * 4 + 2 * 2, 2 * n + 2 * 2 * seg, 2 * n}));
  // p = 5: rank 1 has children 3, 4 and a parent (3 links), depth 2.
  EXPECT_TRUE(
      same_terms(binary_tree_terms(n, 5, seg), {1, 3 * 4 + 2 * 2, 3 * n + 2 * 2 * seg, 2 * n}));
  // p = 6: as p = 5 (depth still 2).
  EXPECT_TRUE(
      same_terms(binary_tree_terms(n, 6, seg), {1, 3 * 4 + 2 * 2, 3 * n + 2 * 2 * seg, 2 * n}));
  // p = 8: depth 3.
  EXPECT_TRUE(
      same_terms(binary_tree_terms(n, 8, seg), {1, 3 * 4 + 2 * 3, 3 * n + 2 * 3 * seg, 2 * n}));
}

TEST(SimCollectiveCost, BinaryTreeSegmentsUnevenAndOversizedBuffers) {
  // p = 3, 1001 floats in segments of 16: ceil(1001 / 16) = 63 (62 x 16 = 992, then 9).
  EXPECT_TRUE(same_terms(binary_tree_terms(4 * 1001, 3, 64),
                         {1, 2 * 63 + 2, (2 * 1001 + 2 * 16) * 4, 2 * 1001 * 4}));
  // p = 4, 250 floats, segment 1 MiB: one segment of the whole 250 floats.
  EXPECT_TRUE(same_terms(binary_tree_terms(1000, 4, 1 * MiB),
                         {1, 2 * 1 + 2 * 2, (2 * 250 + 2 * 2 * 250) * 4, 2 * 250 * 4}));
}

// Double tree: each tree carries half (512 KiB = 2 segments of 256 KiB); a
// rank's links carry (children + parent) x half summed over both trees.
TEST(SimCollectiveCost, DoubleTreeCarriesAboutTwoNPerDirection) {
  const double n = 1 * MiB, half = n / 2, seg = 256 * KiB;
  // p = 2: one link in each tree, depth 1.
  EXPECT_TRUE(same_terms(double_tree_terms(n, 2, seg),
                         {1, (1 + 1) * 2 + 2 * 1, (1 + 1) * half + 2 * 1 * seg, 1 * half}));
  // p = 3: tree 0 is 1 -> {0, 2}, tree 1 its shift 2 -> {1, 0}; rank 1 has
  // 2 + 1 links, depth 1; it adds two children's halves.
  EXPECT_TRUE(same_terms(double_tree_terms(n, 3, seg),
                         {1, (2 + 1) * 2 + 2 * 1, (2 + 1) * half + 2 * 1 * seg, 2 * half}));
  // p = 4: tree 0 is 2 -> {1 -> 0, 3}, tree 1 is 3 -> {0 -> 1, 2}; every
  // rank has 3 links, depth 2; rank 2 adds two children's halves.
  EXPECT_TRUE(same_terms(double_tree_terms(n, 4, seg),
                         {1, 3 * 2 + 2 * 2, 3 * half + 2 * 2 * seg, 2 * half}));
  // p = 5: tree 0 is 3 -> {1 -> {0, 2}, 4}, tree 1 its shift
  // 4 -> {2 -> {1, 3}, 0}; ranks 1 and 2 have 3 + 1 links, depth 2.
  EXPECT_TRUE(same_terms(double_tree_terms(n, 5, seg),
                         {1, (3 + 1) * 2 + 2 * 2, (3 + 1) * half + 2 * 2 * seg, 2 * half}));
  // p = 6: tree 0 is 3 -> {1 -> {0, 2}, 5 -> 4}, tree 1 its mirror; ranks 1
  // and 4 have 3 + 1 links, depth 2.
  EXPECT_TRUE(same_terms(double_tree_terms(n, 6, seg),
                         {1, (3 + 1) * 2 + 2 * 2, (3 + 1) * half + 2 * 2 * seg, 2 * half}));
  // p = 8: interior in one tree (3 links), leaf in the other (1): 2n; depth 3.
  EXPECT_TRUE(same_terms(double_tree_terms(n, 8, seg),
                         {1, (3 + 1) * 2 + 2 * 3, (3 + 1) * half + 2 * 3 * seg, 2 * half}));
}

TEST(SimCollectiveCost, DoubleTreeSplitsAnOddBufferIntoUnevenHalves) {
  // p = 4, 1001 floats: halves 501 (tree 0) and 500 (tree 1), 32 segments of
  // 16 floats each. Rank 2: 2 links in tree 0, 1 in tree 1: 2 x 501 + 500 =
  // 1502 floats, (2 + 1) x 32 messages; it adds 2 x 501. Depth 2.
  EXPECT_TRUE(same_terms(double_tree_terms(4 * 1001, 4, 64),
                         {1, 3 * 32 + 2 * 2, (1502 + 2 * 2 * 16) * 4, 2 * 501 * 4}));
}

// Halving-doubling over p' = 2^floor(log2 p): 2 log2 p' messages, 2(p'-1)
// blocks of n/p'; a fold of the extra ranks adds 2 messages, 2n bytes and n
// additions.
// --tree-segment left at 0 is costed as the strategies run it
// (tree_segment_bytes): 256 KiB segments on one node, 64 KiB across nodes;
// a size the user gave is kept.
TEST(SimCollectiveCost, TreeSegmentFollowsWhereTheRanksAre) {
  const double n = 4 * MiB;
  StrategyOptions options;
  const Placement one_node{.workers = 4, .workers_per_node = 4};
  const Placement four_nodes{.workers = 4, .workers_per_node = 1};
  EXPECT_TRUE(same_terms(strategy_terms("tree-mpi", options, n, one_node),
                         binary_tree_terms(n, 4, 256 * KiB)));
  EXPECT_TRUE(same_terms(strategy_terms("tree-mpi", options, n, four_nodes),
                         binary_tree_terms(n, 4, 64 * KiB)));
  options.tree.segment_bytes = 1 << 20;
  EXPECT_TRUE(same_terms(strategy_terms("tree-mpi", options, n, four_nodes),
                         binary_tree_terms(n, 4, 1 * MiB)));
  EXPECT_EQ(tree_segment_bytes(TreeMpiOptions{}, false), 256u * 1024);
  EXPECT_EQ(tree_segment_bytes(TreeMpiOptions{}, true), 64u * 1024);
  EXPECT_EQ(tree_segment_bytes(TreeMpiOptions{.segment_bytes = 4096}, true), 4096u);
}

TEST(SimCollectiveCost, HalvingDoublingFoldsTheRanksBeyondAPowerOfTwo) {
  const double n = 1 * MiB;
  EXPECT_TRUE(same_terms(halving_doubling_terms(n, 2), {1, 2 * 1, 2 * 1 * (n / 2), 1 * (n / 2)}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(n, 3),
                         {1, 2 * 1 + 2, 2 * 1 * (n / 2) + 2 * n, 1 * (n / 2) + n}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(n, 4), {1, 2 * 2, 2 * 3 * (n / 4), 3 * (n / 4)}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(n, 5),
                         {1, 2 * 2 + 2, 2 * 3 * (n / 4) + 2 * n, 3 * (n / 4) + n}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(n, 6),
                         {1, 2 * 2 + 2, 2 * 3 * (n / 4) + 2 * n, 3 * (n / 4) + n}));
  EXPECT_TRUE(same_terms(halving_doubling_terms(n, 8), {1, 2 * 3, 2 * 7 * (n / 8), 7 * (n / 8)}));
  // 1001 floats over 4: blocks 251, 250, 250, 250, counted by the largest.
  EXPECT_TRUE(
      same_terms(halving_doubling_terms(4 * 1001, 4), {1, 4, 2 * 3 * 251 * 4, 3 * 251 * 4}));
}

// Hierarchical, 4 nodes x 4 ranks, 16 MiB: a ring over 4 moves 4 MiB chunks
// in 8 segments of 512 KiB: {1, 6 x 8, 6 x 4 MiB, 3 x 4 MiB}. Inside a node
// that twice (reduce-scatter + gather, scatter + allgather) with one
// reduce-scatter's additions, in 2 calls; between the nodes the ring itself.
TEST(SimCollectiveCost, HierarchicalIsTwiceARingInsideANodeAndARingAcross) {
  const HierarchicalTerms t = hierarchical_terms(16 * MiB, 4, 4, 512 * KiB);
  EXPECT_TRUE(same_terms(t.intra, {2, 2 * 6 * 8, 2 * 6 * 4 * MiB, 3 * 4 * MiB}));
  EXPECT_TRUE(same_terms(t.inter, {1, 6 * 8, 6 * 4 * MiB, 3 * 4 * MiB}));
  // One node: no inter part; one rank a node: no intra part.
  EXPECT_TRUE(same_terms(hierarchical_terms(16 * MiB, 1, 4, 512 * KiB).inter, {}));
  EXPECT_TRUE(same_terms(hierarchical_terms(16 * MiB, 4, 1, 512 * KiB).intra, {}));
  // 2 nodes x 3, 1001 floats, segments of 16: inside, chunks of 334 in 21
  // segments; across, chunks of 501 in 32.
  const HierarchicalTerms odd = hierarchical_terms(4 * 1001, 2, 3, 64);
  EXPECT_TRUE(same_terms(odd.intra, {2, 2 * 4 * 21, 2 * 4 * 334 * 4, 2 * 334 * 4}));
  EXPECT_TRUE(same_terms(odd.inter, {1, 2 * 32, 2 * 501 * 4, 1 * 501 * 4}));
}

TEST(SimCollectiveCost, ImpossibleArgumentsThrowNamingTheFunction) {
  auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  EXPECT_EQ(message([] { ring_terms(1024, 0, 512); }), "ring_terms: p must be at least 1 (got 0)");
  EXPECT_THAT(message([] { ring_terms(-1, 2, 512); }),
              ::testing::HasSubstr("ring_terms: the buffer size"));
  EXPECT_THAT(message([] { binary_tree_terms(std::nan(""), 2, 512); }),
              ::testing::HasSubstr("binary_tree_terms: the buffer size"));
  EXPECT_THAT(message([] { double_tree_terms(1024, 2, 2); }),
              ::testing::HasSubstr("double_tree_terms: segment size must be at least 4 bytes"));
  EXPECT_THAT(message([] { halving_doubling_terms(std::numeric_limits<double>::infinity(), 2); }),
              ::testing::HasSubstr("halving_doubling_terms"));
  EXPECT_THAT(message([] { hierarchical_terms(1024, 2, 0, 512); }),
              ::testing::HasSubstr("hierarchical_terms: per_node must be at least 1"));
}

}  // namespace
}  // namespace gradsync::sim
