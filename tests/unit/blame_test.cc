// Which rank a stalled job waits on, from what the waiting ranks told each
// other (strategies/core/blame.h): the chains of the ring and the trees, a
// collective's every-rank wait, circles, and which rank speaks.
#include "strategies/core/blame.h"
#include "strategies/core/init_watch.h"
#include "strategies/core/stall_marks.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace gradsync {
namespace {

using Told = std::map<int, std::vector<int>>;
using Ranks = std::vector<int>;

TEST(Blame, AlonePeerThatToldNothingIsTheOneThatStopped) {
  const Blame blame = judge_stall(0, Ranks{1}, {});
  EXPECT_EQ(blame.stopped, Ranks{1});
  EXPECT_EQ(blame.behind, Ranks{0});
  EXPECT_EQ(blame.speaker, 0);
}

// Ring of 3, rank 2 stopped: rank 0 waits for 2, rank 1 waits for 0. Both
// live ranks find rank 2 and name rank 0 as the speaker.
TEST(Blame, ChainLeadsPastWaitingRanksToTheStoppedOne) {
  const Blame from_1 = judge_stall(1, Ranks{0}, Told{{0, {2}}});
  const Blame from_0 = judge_stall(0, Ranks{2}, Told{{1, {0}}});
  for (const Blame& blame : {from_1, from_0}) {
    EXPECT_EQ(blame.stopped, Ranks{2});
    EXPECT_EQ(blame.behind, (Ranks{0, 1}));
    EXPECT_EQ(blame.speaker, 0);
  }
}

// Ring of 4, rank 1 stopped: 2 -> 1, 3 -> 2, 0 -> 3; only rank 2 waits
// for it directly, and it speaks although rank 0 is lower.
TEST(Blame, OnlyADirectWaiterSpeaks) {
  const Told told{{2, {1}}, {3, {2}}};
  const Blame blame = judge_stall(0, Ranks{3}, told);
  EXPECT_EQ(blame.stopped, Ranks{1});
  EXPECT_EQ(blame.speaker, 2);
  EXPECT_EQ(blame.behind, (Ranks{0, 2, 3}));
}

// The lowest of several direct waiters speaks (a tree's children of a
// stopped parent; the ring's two neighbours when sends wait too).
TEST(Blame, LowestDirectWaiterSpeaks) {
  EXPECT_EQ(judge_stall(3, Ranks{0}, Told{{1, {0}}, {2, {0}}}).speaker, 1);
  EXPECT_EQ(judge_stall(1, Ranks{0}, Told{{2, {0}}, {3, {0}}}).speaker, 1);
}

// A collective waits for every other rank: the ones that did not tell.
TEST(Blame, CollectiveBlamesTheRanksThatDidNotTell) {
  const Blame blame = judge_stall(0, Ranks{1, 2, 3}, Told{{1, {0, 2, 3}}, {3, {0, 1, 2}}});
  EXPECT_EQ(blame.stopped, Ranks{2});
  EXPECT_EQ(blame.speaker, 0);
  const Blame two = judge_stall(0, Ranks{1, 2, 3}, Told{{1, {0, 2, 3}}});
  EXPECT_EQ(two.stopped, (Ranks{2, 3}));
}

// A rank's wait on itself (a worker on its own shard) is not a stop.
TEST(Blame, SelfWaitIsFollowedNotBlamed) {
  const Blame blame = judge_stall(0, Ranks{0, 1}, Told{{1, {2}}});
  EXPECT_EQ(blame.stopped, Ranks{2});
  EXPECT_EQ(blame.speaker, 1);
}

// Waiting ranks in a circle, no one silent (both ends of a link that moves
// nothing wait): no rank stopped, and the lowest waiting rank speaks.
TEST(Blame, CircleOfWaitingRanksBlamesNoRankAndTheLowestSpeaks) {
  for (int me : {0, 1, 2}) {
    Told told{{0, {1}}, {1, {2}}, {2, {0}}};
    const std::vector<int> mine = told[me];
    told.erase(me);
    const Blame blame = judge_stall(me, mine, told);
    EXPECT_TRUE(blame.circle);
    EXPECT_TRUE(blame.stopped.empty());
    EXPECT_EQ(blame.behind, (Ranks{0, 1, 2}));
    EXPECT_EQ(blame.speaker, 0);
  }
  EXPECT_FALSE(judge_stall(0, Ranks{1}, {}).circle);
}

// Ranks that give up on one stall without a speaker (holding ranks that
// judged differently, ranks waiting in MPI_Init) do so in turn: a quarter
// of hold_s apart (half the timeout, at least 1.5 s, at most 5 s), at most
// 0.5 s, for 8 places; the 9th and later give up with the 8th.
TEST(Blame, RanksGiveUpInTurn) {
  EXPECT_DOUBLE_EQ(hold_s(2), 1.5);
  EXPECT_DOUBLE_EQ(hold_s(8), 4.0);
  EXPECT_DOUBLE_EQ(hold_s(60), 5.0);
  EXPECT_DOUBLE_EQ(give_up_delay_s(2, 0), 0);
  EXPECT_DOUBLE_EQ(give_up_delay_s(2, 1), 0.375);  // hold_s(2) = 1.5
  EXPECT_DOUBLE_EQ(give_up_delay_s(60, 3), 1.5);  // 0.5 s apart
  EXPECT_DOUBLE_EQ(give_up_delay_s(60, 8), 4.0);
  EXPECT_DOUBLE_EQ(give_up_delay_s(60, 300), 4.0);
}

TEST(Blame, RanksGiveUpOnMpiInitInTurn) {
  EXPECT_DOUBLE_EQ(init_give_up_s(5, 0), 5);
  EXPECT_DOUBLE_EQ(init_give_up_s(5, 2), 10);  // 2.5 s apart
  EXPECT_DOUBLE_EQ(init_give_up_s(5, 8), 25);
  EXPECT_DOUBLE_EQ(init_give_up_s(5, 500), 25);
}

TEST(Blame, RanksText) {
  EXPECT_EQ(ranks_text(Ranks{2}), "rank 2");
  EXPECT_EQ(ranks_text(Ranks{1, 3}), "ranks 1, 3");
}

}  // namespace
}  // namespace gradsync
