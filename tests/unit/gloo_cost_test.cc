// The gloo-* strategies' counts of one allreduce (strategies/gloo/gloo_cost.cc)
// against counts worked out by hand from Gloo's own code: gloo/allreduce.cc
// (RING's segments, BCUBE's groups) and the headers allreduce_ring_chunked.h
// and allreduce_halving_doubling.h (its binary blocks). Compiled with or
// without Gloo: the counts need only the arithmetic. Expected values are the
// arithmetic that gives them: {calls, messages, bytes, reduced}; a float is
// 4 bytes.
#include <gtest/gtest.h>

#include "strategies/core/cost_forms.h"
#include "strategies/gloo/gloo.h"
#include "tests/unit/cost_test_support.h"

namespace gradsync {
namespace {

CostTerms counts(AllreduceCounts (*form)(double, const StrategyOptions&, const WorkerPlacement&),
                 double bytes, int p) {
  const AllreduceCounts c = form(bytes, StrategyOptions{}, WorkerPlacement{.workers = p});
  EXPECT_TRUE(same_terms(c.intra, {}));  // one ring, one level: nothing beside it
  return c.spanning;
}

TEST(GlooCost, NothingMovesOnOneRankOrForAnEmptyBuffer) {
  for (auto form : {gloo_ring_counts, gloo_bcube_counts, gloo_ring_chunked_counts,
                    gloo_halving_doubling_counts}) {
    EXPECT_TRUE(same_terms(counts(form, 1 * MiB, 1), {}));
    EXPECT_TRUE(same_terms(counts(form, 0, 4), {}));
  }
}

TEST(GlooCost, RingCutsEachChunkIntoAtLeastTwoSegmentsOfAtMostOneMiB) {
  // 4 MiB at 4 ranks: 4 segments of 1 MiB would do, but at least 2p = 8:
  // two of 512 KiB per 1 MiB chunk, 2(p-1) = 6 steps.
  EXPECT_TRUE(same_terms(counts(gloo_ring_counts, 4 * MiB, 4), {1, 6 * 2, 6 * MiB, 3 * MiB}));
  // 64 MiB at 4 ranks: 64 segments of 1 MiB, 16 per 16 MiB chunk.
  EXPECT_TRUE(
      same_terms(counts(gloo_ring_counts, 64 * MiB, 4), {1, 6 * 16, 6 * 16 * MiB, 3 * 16 * MiB}));
  // 4 MiB at 3 ranks: 6 segments (a multiple of p, at least 2p) of
  // ceil(1048576 / 6) = 174763 floats; the largest chunk, 349526 floats, is two.
  EXPECT_TRUE(same_terms(counts(gloo_ring_counts, 4 * MiB, 3),
                         {1, 4 * 2, 4 * 349526 * 4.0, 2 * 349526 * 4.0}));
}

TEST(GlooCost, ChunkedRingSendsHalfChunksOfAtLeast256Elements) {
  // 4 MiB at 2 ranks: 2p = 4 chunks of 262144 floats, two per rank's share.
  EXPECT_TRUE(
      same_terms(counts(gloo_ring_chunked_counts, 4 * MiB, 2), {1, 2 * 2, 2 * 2 * MiB, 2 * MiB}));
  // 1 KiB at 2 ranks: chunks of 256 floats (the least), so a rank's share of
  // 128 floats is one message.
  EXPECT_TRUE(same_terms(counts(gloo_ring_chunked_counts, 1 * KiB, 2), {1, 2, 2 * 512.0, 512.0}));
}

TEST(GlooCost, HalvingDoublingIsRabenseifnersAtAPowerOfTwo) {
  for (int p : {2, 4, 8, 16})
    EXPECT_TRUE(same_terms(counts(gloo_halving_doubling_counts, 8 * MiB, p),
                           rabenseifner_terms(8 * MiB, p)))
        << p << " ranks";
}

TEST(GlooCost, HalvingDoublingHandsSumsBetweenBinaryBlocks) {
  const double c2 = 131072 * 4.0;  // 1 MiB in the 2 chunks of the largest block of 3 ranks
  // 3 = 2 + 1: a rank of the pair sends half to its partner, takes the lone
  // rank's half, sends the sums back, and half in the allgather: 3 chunks;
  // it sums its partner's half and the lone rank's. The lone rank sends
  // the whole buffer (2 chunks). Messages: 1 + 1 within, 1 + 1 across.
  EXPECT_TRUE(same_terms(counts(gloo_halving_doubling_counts, 1 * MiB, 3), {1, 4, 3 * c2, 2 * c2}));
  const double c4 = 65536 * 4.0;  // 1 MiB in the 4 chunks of the largest block of 7 ranks
  // 7 = 4 + 2 + 1: the pair is busiest: half (2 chunks) to its partner each
  // way, its 2 chunks to the 4-block and from the lone rank: 8 chunks;
  // the 4-block sums 3 chunks within and 1 from the pair, as the pair sums 2
  // and 2. Messages: 2 + 2 within the largest block, 2 hand-overs each way.
  EXPECT_TRUE(same_terms(counts(gloo_halving_doubling_counts, 1 * MiB, 7), {1, 8, 8 * c4, 4 * c4}));
}

TEST(GlooCost, BcubeGroupsByTwoThenWhatIsLeft) {
  // A power of two: groups of 2, Rabenseifner's pattern exactly.
  EXPECT_TRUE(same_terms(counts(gloo_bcube_counts, 1 * MiB, 4), rabenseifner_terms(1 * MiB, 4)));
  // 3: one group of 3; each rank sends the 2 others a third (87382 floats,
  // rounded up) each way.
  EXPECT_TRUE(same_terms(counts(gloo_bcube_counts, 1 * MiB, 3),
                         {1, 2 * 2, 2 * 2 * 87382 * 4.0, 2 * 87382 * 4.0}));
  // 6 = 2 x 3: half to the partner, then a third of the half (43691 floats)
  // to each of 2 others.
  const double sent = 131072 + 2 * 43691;
  EXPECT_TRUE(
      same_terms(counts(gloo_bcube_counts, 1 * MiB, 6), {1, 2 * (1 + 2), 2 * sent * 4, sent * 4}));
}

}  // namespace
}  // namespace gradsync
