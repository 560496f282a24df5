// The MPI strategies' counts of one allreduce (strategies/core/cost.h), as
// their table entries give them to the cost model, against counts worked out
// by hand from the strategies' code (strategies/mpi/ring_mpi.cc, tree_mpi.cc,
// double_tree_mpi.cc, halving_doubling_mpi.cc, hierarchical_mpi.cc) and the
// textbook form the model uses for MPI_Allreduce. Sizes are in bytes; a float
// is 4 bytes. Expected values are written as the arithmetic that gives them:
// {calls, messages, bytes, reduced}.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "harness/sim/cost_params.h"
#include "strategies/core/partition.h"
#include "strategies/mpi/double_tree_mpi.h"
#include "strategies/mpi/eager_segment.h"
#include "strategies/mpi/halving_doubling_mpi.h"
#include "strategies/mpi/hierarchical_mpi.h"
#include "strategies/mpi/mpi_allreduce.h"
#include "strategies/mpi/ring_mpi.h"
#include "strategies/mpi/short_allreduce.h"
#include "strategies/mpi/tree_mpi.h"
#include "strategies/mpi/tree_pipeline.h"
#include "tests/unit/cost_test_support.h"

namespace gradsync {
namespace {

using sim::CostParams;

TEST(MpiCost, SecondsAreTheFourTermsTimesTheirConstants) {
  const CostParams params{
      .overhead_s = 2e-6, .alpha_s = 3e-6, .beta_s_per_byte = 1e-9, .gamma_s_per_byte = 2e-10};
  const CostTerms terms{.calls = 1, .messages = 10, .bytes = 1e6, .reduced = 5e5};
  // 1 x 2 us + 10 x 3 us + 1e6 x 1 ns + 5e5 x 0.2 ns = 2 + 30 + 1000 + 100 us
  EXPECT_NEAR(params.seconds(terms), 1132e-6, 1e-15);
  EXPECT_EQ(params.seconds(CostTerms{}), 0.0);
}

TEST(MpiCost, TermsAddCountByCount) {
  CostTerms a{.calls = 1, .messages = 2, .bytes = 3, .reduced = 4};
  const CostTerms b{.calls = 10, .messages = 20, .bytes = 30, .reduced = 40};
  EXPECT_TRUE(same_terms(a + b, {11, 22, 33, 44}));
  a += b;
  EXPECT_TRUE(same_terms(a, {11, 22, 33, 44}));
}

TEST(MpiCost, NothingMovesOnOneRankOrForAnEmptyBuffer) {
  EXPECT_TRUE(same_terms(ring_terms(1 * MiB, 1, 512 * KiB), {}));
  EXPECT_TRUE(same_terms(binary_tree_terms(1 * MiB, 1, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(double_tree_terms(1 * MiB, 1, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(1 * MiB, 1), {}));
  EXPECT_TRUE(same_terms(halving_doubling_mpi_terms(1 * MiB, 1, false), {}));
  const AllreduceCounts one = hierarchical_terms(1 * MiB, 1, 1, 1, 512 * KiB, 256 * KiB, 0);
  EXPECT_TRUE(same_terms(one.intra, {}));
  EXPECT_TRUE(same_terms(one.spanning, {}));
  EXPECT_TRUE(same_terms(ring_terms(0, 4, 512 * KiB), {}));
  EXPECT_TRUE(same_terms(binary_tree_terms(0, 5, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(double_tree_terms(0, 5, 256 * KiB), {}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(0, 6), {}));
  EXPECT_TRUE(same_terms(halving_doubling_mpi_terms(0, 6, true), {}));
  EXPECT_TRUE(same_terms(hierarchical_terms(0, 2, 2, 2, 512 * KiB, 256 * KiB, 0).total(), {}));
}

// Ring: 2(p-1) sends of the largest chunk, each in ceil(chunk / segment)
// messages; p-1 additions of it.
TEST(MpiCost, RingCountsTheLargestChunkTwoTimesPMinusOne) {
  // p = 2, 1 MiB: chunks of 512 KiB, one 512 KiB segment each.
  EXPECT_TRUE(
      same_terms(ring_terms(1 * MiB, 2, 512 * KiB), {1, 2 * 1 * 1, 2 * 512 * KiB, 512 * KiB}));
  // p = 4, 16 MiB: chunks of 4 MiB, 8 segments of 512 KiB.
  EXPECT_TRUE(same_terms(ring_terms(16 * MiB, 4, 512 * KiB), {1, 6 * 8, 6 * 4 * MiB, 3 * 4 * MiB}));
  // p = 8, 1 MiB, segment 1 MiB larger than the 128 KiB chunk: one message a step.
  EXPECT_TRUE(
      same_terms(ring_terms(1 * MiB, 8, 1 * MiB), {1, 14 * 1, 14 * 128 * KiB, 7 * 128 * KiB}));
}

TEST(MpiCost, RingCutsUnevenBuffersAsRingMpiDoes) {
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

TEST(MpiCost, SegmentCountIsSplitByMaxs) {
  for (std::uint64_t count : {0u, 1u, 15u, 16u, 17u, 334u, 1000u})
    for (std::uint64_t max : {1u, 7u, 16u, 2000u})
      EXPECT_EQ(piece_count(count, max), split_by_max(count, max).size()) << count << " by " << max;
}

// tree-mpi: (children + parent) x n through the busiest link direction, in
// segments, plus 2 x depth segments of fill; the busiest rank adds its children.
TEST(MpiCost, BinaryTreeLoadsGrowWithTheBusiestRanksLinks) {
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

// On nodes of several ranks, the bytes are those of the busiest node's one
// network link: every tree edge leaving the node carries n each way. Heap
// order over 16 ranks in nodes of 4: node 0 has edges 1-4, 2-5, 2-6, 3-7,
// 3-8; node 1 (ranks 4-7) its 4 parents and children 9 to 15; nodes 2 and 3
// their 4 parents. Messages stay the busiest rank's.
TEST(MpiCost, BinaryTreeOnNodesLoadsTheBusiestNodesLink) {
  EXPECT_EQ(edges_leaving_nodes(16, 4,
                                [](int r) {
                                  TreeLinks node;
                                  if (r > 0) node.parent = (r - 1) / 2;
                                  for (int c : {2 * r + 1, 2 * r + 2})
                                    if (c < 16) node.children.push_back(c);
                                  return node;
                                }),
            (std::vector<int>{5, 11, 4, 4}));
  const double n = 1 * MiB, seg = 256 * KiB;
  const CostTerms one_to_a_node = binary_tree_terms(n, 16, seg);
  const CostTerms on_nodes = binary_tree_terms(n, 16, seg, 4);
  EXPECT_DOUBLE_EQ(on_nodes.bytes, 11 * n + 2 * 4 * seg);  // depth 4
  EXPECT_DOUBLE_EQ(on_nodes.contended, on_nodes.bytes * 10);
  EXPECT_DOUBLE_EQ(on_nodes.messages, one_to_a_node.messages);
  EXPECT_DOUBLE_EQ(on_nodes.reduced, one_to_a_node.reduced);
  // One node, or one rank to a node: as before.
  EXPECT_TRUE(same_terms(binary_tree_terms(n, 4, seg, 4), binary_tree_terms(n, 4, seg)));
  EXPECT_TRUE(same_terms(binary_tree_terms(n, 16, seg, 1), one_to_a_node));
}

// The double tree on nodes: each tree's edges leaving the busiest node,
// times its half. Over 16 ranks in nodes of 4 the plan's trees leave node 1
// by 4 and 2 edges, node 2 by 2 and 4: 3n each way.
TEST(MpiCost, DoubleTreeOnNodesLoadsTheBusiestNodesLink) {
  const double n = 1 * MiB, seg = 32 * KiB;
  const CostTerms on_nodes = double_tree_terms(n, 16, seg, 4);
  const double fill = on_nodes.bytes - 3 * n;
  EXPECT_DOUBLE_EQ(fill, double_tree_terms(n, 16, seg).bytes - 2 * n);  // the same fill
  EXPECT_DOUBLE_EQ(on_nodes.contended, on_nodes.bytes * 5);             // 6 flows each way
  EXPECT_TRUE(same_terms(double_tree_terms(n, 4, seg, 4), double_tree_terms(n, 4, seg)));
}

TEST(MpiCost, BinaryTreeSegmentsUnevenAndOversizedBuffers) {
  // p = 3, 1001 floats in segments of 16: ceil(1001 / 16) = 63 (62 x 16 = 992, then 9).
  EXPECT_TRUE(same_terms(binary_tree_terms(4 * 1001, 3, 64),
                         {1, 2 * 63 + 2, (2 * 1001 + 2 * 16) * 4, 2 * 1001 * 4}));
  // p = 4, 250 floats, segment 1 MiB: one segment of the whole 250 floats.
  EXPECT_TRUE(same_terms(binary_tree_terms(1000, 4, 1 * MiB),
                         {1, 2 * 1 + 2 * 2, (2 * 250 + 2 * 2 * 250) * 4, 2 * 250 * 4}));
}

// Double tree: each tree carries half (512 KiB = 2 segments of 256 KiB); a
// rank's links carry (children + parent) x half summed over both trees.
TEST(MpiCost, DoubleTreeCarriesAboutTwoNPerDirection) {
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

TEST(MpiCost, DoubleTreeSplitsAnOddBufferIntoUnevenHalves) {
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
// (tree_segment_bytes): 256 KiB segments on one node, 32 KiB across nodes;
// a size the user gave is kept.
TEST(MpiCost, TreeSegmentFollowsWhereTheRanksAre) {
  const double n = 4 * MiB;
  StrategyOptions options;
  const WorkerPlacement one_node{.workers = 4, .workers_per_node = 4};
  const WorkerPlacement four_nodes{.workers = 4, .workers_per_node = 1};
  EXPECT_TRUE(same_terms(tree_mpi_counts(n, options, one_node).spanning,
                         binary_tree_terms(n, 4, 256 * KiB)));
  EXPECT_TRUE(same_terms(tree_mpi_counts(n, options, four_nodes).spanning,
                         binary_tree_terms(n, 4, 32 * KiB)));
  EXPECT_TRUE(same_terms(double_tree_mpi_counts(n, options, four_nodes).spanning,
                         double_tree_terms(n, 4, 32 * KiB)));
  options.tree.segment_bytes = 1 << 20;
  EXPECT_TRUE(same_terms(tree_mpi_counts(n, options, four_nodes).spanning,
                         binary_tree_terms(n, 4, 1 * MiB)));
  EXPECT_EQ(tree_segment_bytes(TreeMpiOptions{}, false), 256u * 1024);
  EXPECT_EQ(tree_segment_bytes(TreeMpiOptions{}, true), 32u * 1024);
  EXPECT_EQ(tree_segment_bytes(TreeMpiOptions{.segment_bytes = 4096}, true), 4096u);
}

TEST(MpiCost, RabenseifnerFoldsTheRanksBeyondAPowerOfTwo) {
  const double n = 1 * MiB;
  EXPECT_TRUE(same_terms(rabenseifner_terms(n, 2), {1, 2 * 1, 2 * 1 * (n / 2), 1 * (n / 2)}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(n, 3),
                         {1, 2 * 1 + 2, 2 * 1 * (n / 2) + 2 * n, 1 * (n / 2) + n}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(n, 4), {1, 2 * 2, 2 * 3 * (n / 4), 3 * (n / 4)}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(n, 5),
                         {1, 2 * 2 + 2, 2 * 3 * (n / 4) + 2 * n, 3 * (n / 4) + n}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(n, 6),
                         {1, 2 * 2 + 2, 2 * 3 * (n / 4) + 2 * n, 3 * (n / 4) + n}));
  EXPECT_TRUE(same_terms(rabenseifner_terms(n, 8), {1, 2 * 3, 2 * 7 * (n / 8), 7 * (n / 8)}));
  // 1001 floats over 4: blocks 251, 250, 250, 250, counted by the largest.
  EXPECT_TRUE(same_terms(rabenseifner_terms(4 * 1001, 4), {1, 4, 2 * 3 * 251 * 4, 3 * 251 * 4}));
}

// halving-doubling-mpi as it runs: Rabenseifner's halves, in segments of
// 1 MiB on one host and 64 KiB across hosts; its own fold (a swap of halves,
// the even rank's half, the result back: 3 messages, 2n bytes, n/2 added).
TEST(MpiCost, HalvingDoublingMpiCountsItsOwnPhases) {
  const double n = 1 * MiB;
  // p = 4 on one host: steps of 512 KiB and 256 KiB, each one message each way.
  EXPECT_TRUE(same_terms(halving_doubling_mpi_terms(n, 4, false),
                         {1, 2 * (1 + 1), 2 * (n / 2 + n / 4), n / 2 + n / 4}));
  // The same across hosts: 64 KiB segments, 8 and 4 of them per exchange,
  // and each of the 4 exchanges starts with its rendezvous message.
  EXPECT_TRUE(same_terms(halving_doubling_mpi_terms(n, 4, true),
                         {1, 2 * (8 + 4) + 4, 2 * (n / 2 + n / 4), n / 2 + n / 4}));
  // No rendezvous for exchanges of one segment: 256 KiB over 8 hosts, steps
  // of 128, 64 and 32 KiB; only the first is longer than a segment.
  EXPECT_TRUE(same_terms(halving_doubling_mpi_terms(256 * KiB, 8, true),
                         {1, 2 * (2 + 1 + 1) + 2, 2 * (7 * 32 * KiB), 7 * 32 * KiB}));
  // p = 3 across hosts: the fold's three exchanges (512 KiB, 512 KiB, 1 MiB)
  // and the step's two (512 KiB) each add one.
  EXPECT_TRUE(same_terms(
      halving_doubling_mpi_terms(n, 3, true),
      {1, 2 * (8 + 1) + 2 * (8 + 1) + (16 + 1), 2 * (n / 2) + 2 * (n / 2) + n, n / 2 + n / 2}));
  // p = 3: one step of 512 KiB among the two ranks left, and the fold.
  EXPECT_TRUE(same_terms(halving_doubling_mpi_terms(n, 3, false),
                         {1, 2 * 1 + 3, 2 * (n / 2) + 2 * (n / 2) + n, n / 2 + n / 2}));
  // The entry's counts: segments by whether the workers span nodes.
  const StrategyOptions options;
  EXPECT_TRUE(same_terms(
      halving_doubling_mpi_counts(n, options, {.workers = 4, .workers_per_node = 1}).spanning,
      halving_doubling_mpi_terms(n, 4, true)));
  EXPECT_TRUE(same_terms(
      halving_doubling_mpi_counts(n, options, {.workers = 4, .workers_per_node = 4}).spanning,
      halving_doubling_mpi_terms(n, 4, false)));
}

// Rabenseifner's steps on nodes of 4 at 16 ranks: distances 1 and 2 inside
// (half and a quarter of the buffer), 4 and 8 across with the node's 4 ranks
// on its one link; unsplit placements count as rabenseifner_terms.
TEST(MpiCost, RabenseifnerSplitsItsStepsByNode) {
  const double n = 1 * MiB;
  const AllreduceCounts split = rabenseifner_by_node(n, 16, 4);
  EXPECT_TRUE(same_terms(split.intra, {0, 4, 2 * (n / 2 + n / 4), n / 2 + n / 4}));
  EXPECT_TRUE(same_terms(split.spanning, {1, 4, 4 * 2 * (n / 8 + n / 16), n / 8 + n / 16}));
  EXPECT_TRUE(same_terms(
      mpi_allreduce_counts(n, StrategyOptions{}, {.workers = 16, .workers_per_node = 4}).intra,
      split.intra));
  for (const auto& [p, per_node] : {std::pair{16, 1}, {16, 16}, {12, 4}, {16, 3}}) {
    EXPECT_TRUE(same_terms(rabenseifner_by_node(n, p, per_node).spanning, rabenseifner_terms(n, p)))
        << p << " at " << per_node;
    EXPECT_TRUE(same_terms(rabenseifner_by_node(n, p, per_node).intra, {}));
  }
}

// Nodes of several ranks: the steps at distance 1 and 2 stay inside nodes
// of 4; those at 4 and 8 cross, all 4 ranks of a node at once through its
// one link (4x the bytes there). Same messages and sums as unsplit.
TEST(MpiCost, HalvingDoublingSplitsItsStepsByNode) {
  const double n = 1 * MiB;
  const AllreduceCounts split =
      halving_doubling_mpi_counts(n, StrategyOptions{}, {.workers = 16, .workers_per_node = 4});
  // 64 KiB segments across hosts: 8 + 4 of them for the inside steps, 2 + 1
  // for the outside ones; exchanges above a segment add a rendezvous.
  EXPECT_TRUE(
      same_terms(split.intra, {0, 2 * (8 + 1) + 2 * (4 + 1), 2 * (n / 2 + n / 4), n / 2 + n / 4}));
  EXPECT_TRUE(same_terms(split.spanning,
                         {1, 2 * (2 + 1) + 2 * 1, 4 * 2 * (n / 8 + n / 16), n / 8 + n / 16}));
  const CostTerms whole = halving_doubling_mpi_terms(n, 16, true);
  EXPECT_DOUBLE_EQ(split.total().messages, whole.messages);
  EXPECT_DOUBLE_EQ(split.total().reduced, whole.reduced);
  // One rank a node, a node size that is not a power of two, or a fold: as before.
  for (const WorkerPlacement placement : {WorkerPlacement{.workers = 16, .workers_per_node = 1},
                                          WorkerPlacement{.workers = 12, .workers_per_node = 3},
                                          WorkerPlacement{.workers = 12, .workers_per_node = 4}}) {
    const AllreduceCounts c = halving_doubling_mpi_counts(n, StrategyOptions{}, placement);
    EXPECT_TRUE(same_terms(c.spanning, halving_doubling_mpi_terms(n, placement.workers, true)))
        << placement.workers << " at " << placement.workers_per_node;
    EXPECT_TRUE(same_terms(c.intra, {}));
  }
}

// The latency path (short_allreduce.cc): log2 p' swaps of the whole buffer,
// each both ways and added, in pieces of kEagerPieceBytes (4032 bytes under
// Open MPI, 8 KiB under MPICH: eager_segment.h); a p that is not a power of
// two adds the fold in (added) and the result out.
TEST(MpiCost, RecursiveDoublingSwapsWholeBuffersInEagerPieces) {
  // p = 4, 12 KiB: two swaps of 4 pieces (3 x 4032 + 192 bytes), or 2
  // (8192 + 4096), both added.
  const double pieces = kEagerPieceBytes == 4032 ? 4 : 2;
  ASSERT_EQ(pieces, std::ceil(12 * KiB / double(kEagerPieceBytes)));
  EXPECT_TRUE(same_terms(recursive_doubling_terms(12 * KiB, 4),
                         {1, 2 * pieces, 2 * 12 * KiB, 2 * 12 * KiB}));
  // p = 5: the fold and the result around the same two swaps.
  EXPECT_TRUE(same_terms(recursive_doubling_terms(12 * KiB, 5),
                         {1, 4 * pieces, 4 * 12 * KiB, 3 * 12 * KiB}));
  // kEagerPieceBytes is one piece; p = 8, three swaps.
  const double piece = kEagerPieceBytes;
  EXPECT_TRUE(same_terms(recursive_doubling_terms(piece, 8), {1, 3, 3 * piece, 3 * piece}));
  EXPECT_TRUE(same_terms(recursive_doubling_terms(4 * KiB, 1), {}));
  EXPECT_TRUE(same_terms(recursive_doubling_terms(0, 4), {}));
}

// Every MPI point-to-point strategy's entry counts the latency path up to
// --short-allreduce bytes and its own algorithm above, on one host and
// across hosts; 0 turns it off.
TEST(MpiCost, EveryPointToPointStrategyTakesTheLatencyPathUpToItsThreshold) {
  using Counts = AllreduceCounts (*)(double, const StrategyOptions&, const WorkerPlacement&);
  const Counts entries[] = {ring_mpi_counts, tree_mpi_counts, double_tree_mpi_counts,
                            halving_doubling_mpi_counts};
  StrategyOptions options;
  options.short_allreduce_bytes = 16 * KiB;
  for (const WorkerPlacement placement : {WorkerPlacement{.workers = 4, .workers_per_node = 4},
                                          WorkerPlacement{.workers = 6, .workers_per_node = 1}}) {
    for (Counts counts : entries) {
      EXPECT_TRUE(same_terms(counts(16 * KiB, options, placement).spanning,
                             recursive_doubling_terms(16 * KiB, placement.workers)));
      EXPECT_FALSE(same_terms(counts(16 * KiB + 4, options, placement).spanning,
                              recursive_doubling_terms(16 * KiB + 4, placement.workers)));
      StrategyOptions off = options;
      off.short_allreduce_bytes = 0;
      EXPECT_FALSE(same_terms(counts(4, off, placement).spanning,
                              recursive_doubling_terms(4, placement.workers)));
    }
  }
  // ring-mpi above the threshold is the ring.
  EXPECT_TRUE(
      same_terms(ring_mpi_counts(32 * KiB, options, {.workers = 4, .workers_per_node = 4}).spanning,
                 ring_terms(32 * KiB, 4, 512 * KiB)));
}

// hierarchical-mpi, 4 hosts x 4 ranks, 16 MiB: 4 shards of 4 MiB. Within a
// host, a shard holder receives 3 parts and adds them, sends its part to 3
// (6 messages, 24 MiB through its link in sequence, 12 MiB added), and 3
// turns pass between positions; across, 4 rings over 4 hosts one after
// another, each on 4 MiB: 1 MiB chunks in 2 segments of 512 KiB.
TEST(MpiCost, HierarchicalShardsTheBufferOverAHostsRanks) {
  const AllreduceCounts t = hierarchical_terms(16 * MiB, 4, 4, 4, 512 * KiB, 64 * KiB, 0);
  EXPECT_TRUE(same_terms(t.intra, {0, 2 * 3 + 3, 2 * 3 * 4 * MiB, 3 * 4 * MiB}));
  EXPECT_TRUE(same_terms(t.spanning, {1, 4 * 6 * 2, 4 * 6 * 1 * MiB, 4 * 3 * 1 * MiB}));
  // One host: no rings; one rank a host: no host phases, a flat ring.
  EXPECT_TRUE(same_terms(hierarchical_terms(16 * MiB, 1, 4, 4, 512 * KiB, 64 * KiB, 0).spanning,
                         {1, 0, 0, 0}));
  EXPECT_TRUE(same_terms(hierarchical_terms(16 * MiB, 4, 1, 1, 512 * KiB, 64 * KiB, 0).intra, {}));
  EXPECT_TRUE(same_terms(hierarchical_terms(16 * MiB, 4, 1, 1, 512 * KiB, 64 * KiB, 0).spanning,
                         ring_terms(16 * MiB, 4, 512 * KiB)));
  // Below 64 KiB one shard: the leader gathers 3 whole buffers and adds
  // them, the leaders run tree-mpi, the leader sends 3 back; each buffer in
  // 5 pieces of at most 4032 bytes (Open MPI), or 2 of 8 KiB (MPICH).
  const double pieces = kEagerPieceBytes == 4032 ? 5 : 2;
  ASSERT_EQ(pieces, std::ceil(16 * KiB / double(kEagerPieceBytes)));
  const AllreduceCounts small = hierarchical_terms(16 * KiB, 4, 4, 4, 512 * KiB, 64 * KiB, 0);
  EXPECT_TRUE(same_terms(small.intra, {0, 2 * 3 * pieces, 2 * 3 * 16 * KiB, 3 * 16 * KiB}));
  EXPECT_TRUE(same_terms(small.spanning, binary_tree_terms(16 * KiB, 4, 64 * KiB)));
  // With the latency path up to 16 KiB, the leaders take it instead of the
  // tree; and at 64 KiB over hosts of 4 each position's 16 KiB part does.
  EXPECT_TRUE(
      same_terms(hierarchical_terms(16 * KiB, 4, 4, 4, 512 * KiB, 64 * KiB, 16 * KiB).spanning,
                 recursive_doubling_terms(16 * KiB, 4)));
  const CostTerms doubling = recursive_doubling_terms(16 * KiB, 4);
  CostTerms four_parts = doubling + doubling + doubling + doubling;
  four_parts.calls = 1;  // still one call
  const AllreduceCounts sharded =
      hierarchical_terms(64 * KiB, 4, 4, 4, 512 * KiB, 64 * KiB, 16 * KiB);
  EXPECT_TRUE(same_terms(sharded.spanning, four_parts));
  // Its host phases cut each 16 KiB part in pieces, as a short buffer's,
  // and 3 turns pass between the positions.
  EXPECT_TRUE(same_terms(sharded.intra, {0, 2 * 3 * pieces + 3, 2 * 3 * 16 * KiB, 3 * 16 * KiB}));
}

// 5 ranks in emulated hosts of 3 (--hierarchical-ranks-per-host 3): hosts of
// 3 and 2, so 2 shards of 512 KiB; the larger host's shard holders receive
// 2 parts each; 2 rings over 2 hosts, 256 KiB chunks in one segment each.
TEST(MpiCost, HierarchicalEmulatedHostsAndAnUnevenLastHost) {
  StrategyOptions options;
  options.hierarchical.ranks_per_host = 3;
  const AllreduceCounts t =
      hierarchical_mpi_counts(1 * MiB, options, {.workers = 5, .workers_per_node = 5});
  EXPECT_TRUE(same_terms(t.intra, {0, 2 * 2 + 1, 2 * 2 * 512 * KiB, 2 * 512 * KiB}));
  EXPECT_TRUE(same_terms(t.spanning, {1, 2 * 2, 2 * 2 * 256 * KiB, 2 * 256 * KiB}));
  // Without the option the node is the host: one host of 5, nothing crosses.
  options.hierarchical.ranks_per_host = 0;
  EXPECT_TRUE(same_terms(
      hierarchical_mpi_counts(1 * MiB, options, {.workers = 5, .workers_per_node = 5}).spanning,
      {1, 0, 0, 0}));
}

// The double tree's busiest rank takes the flows of its links in both trees
// at once: 4 at p = 8 (3 in its interior tree, 1 as the other's leaf).
TEST(MpiCost, DoubleTreeCountsTheFlowsArrivingAtItsBusiestRank) {
  const CostTerms t = double_tree_terms(1 * MiB, 8, 256 * KiB);
  EXPECT_DOUBLE_EQ(t.contended, t.bytes * 3);
  EXPECT_DOUBLE_EQ(double_tree_terms(1 * MiB, 2, 256 * KiB).contended,
                   double_tree_terms(1 * MiB, 2, 256 * KiB).bytes * 1);
}

TEST(MpiCost, ImpossibleArgumentsThrowNamingTheFunction) {
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
  EXPECT_THAT(message([] { rabenseifner_terms(std::numeric_limits<double>::infinity(), 2); }),
              ::testing::HasSubstr("rabenseifner_terms"));
  EXPECT_THAT(message([] { halving_doubling_mpi_terms(-1, 2, false); }),
              ::testing::HasSubstr("halving_doubling_mpi_terms"));
  EXPECT_THAT(message([] { hierarchical_terms(1024, 2, 0, 1, 512, 512, 0); }),
              ::testing::HasSubstr("hierarchical_terms: per_host must be at least 1"));
}

}  // namespace
}  // namespace gradsync
