// Bounded waits (strategies/core/bounded_wait.h) between ranks 0 and 1, for real:
// rank 1 holds back a message longer than rank 0's timeout, and rank 0 must
// give up with the one line that names the operation and rank 1, and print
// the stall warning on the way; a wait whose data comes in time returns.
// No sleeps decide anything: rank 1 sends only after rank 0 has given up and
// told it so, so the outcome does not depend on how busy the machine is.
// Other ranks (np 3..5) take no part; one rank skips.
#include "strategies/core/bounded_wait.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "strategies/core/activity.h"
#include "strategies/core/stall_board.h"
#include "strategies/core/stall_marks.h"
#include "strategies/core/world.h"

namespace gradsync {
namespace {

constexpr int kData = 1, kGaveUp = 2;

// The message of the std::runtime_error `wait()` throws, or "" when it returns.
template <typename Call>
std::string error_of(Call wait) {
  try {
    wait();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

// Rank 0 of `comm` tells rank 1 that it gave up waiting; rank 1 holds back
// until it hears so, which no timing can decide.
void tell_gave_up(MPI_Comm comm) {
  int gave_up = 1;
  ASSERT_EQ(MPI_Send(&gave_up, 1, MPI_INT, 1, kGaveUp, comm), MPI_SUCCESS);
}
void await_gave_up(MPI_Comm comm) {
  int gave_up = 0;
  ASSERT_EQ(MPI_Recv(&gave_up, 1, MPI_INT, 0, kGaveUp, comm, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

// Ranks 0 and 1 of `world` run `pair`; the rest wait at the barrier.
template <typename Pair>
void on_first_two(const World& world, Pair pair) {
  if (world.rank() < 2) pair();
  world.barrier();
}

TEST(BoundedWait, ReceiveFromASilentPeerGivesUpNamingItAndTheOperation) {
  const World world;
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  on_first_two(world, [&] {
    int value = 0;
    if (world.rank() == 0) {
      take_stalls();
      set_activity("step 7");
      set_activity_item("bucket", 3);
      MPI_Request request = MPI_REQUEST_NULL;
      ASSERT_EQ(MPI_Irecv(&value, 1, MPI_INT, 1, kData, world.comm(), &request), MPI_SUCCESS);
      const std::string error = error_of([&] {
        wait_peer(request, 1, Direction::from_peer, {"ring-mpi reduce-scatter", world.comm(), 1.0});
      });
      EXPECT_EQ(error,
                "ring-mpi reduce-scatter in step 7 bucket 3: no data from rank 1 for 1 s "
                "(--timeout); is rank 1 alive?");
      EXPECT_NE(request, MPI_REQUEST_NULL) << "the receive is still pending after giving up";
      const Stalls stalls = take_stalls();
      EXPECT_EQ(stalls.count, 1u) << "one warning per wait";
      EXPECT_TRUE(stalls.first.starts_with("rank 0: stalled ")) << stalls.first;
      EXPECT_TRUE(stalls.first.ends_with(
          " in step 7 bucket 3 (ring-mpi reduce-scatter), waiting for rank 1"))
          << stalls.first;
      set_activity("");
      // Now let rank 1 send, and complete the receive so nothing is left pending.
      tell_gave_up(world.comm());
      ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
      EXPECT_EQ(value, 42);
    } else {
      await_gave_up(world.comm());
      value = 42;
      ASSERT_EQ(MPI_Send(&value, 1, MPI_INT, 0, kData, world.comm()), MPI_SUCCESS);
    }
  });
}

// wait_some, an event loop's wait: the requests that completed, at once;
// then, with none completing, one line naming the rank still owed.
TEST(BoundedWait, WaitSomeReturnsWhatCompletedAndGivesUpOnASilentPeer) {
  const World world;
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  on_first_two(world, [&] {
    int mine = 7, value = 0;
    if (world.rank() == 0) {
      std::vector<MPI_Request> requests(2, MPI_REQUEST_NULL);
      ASSERT_EQ(MPI_Isend(&mine, 1, MPI_INT, 0, kData, world.comm(), &requests[0]), MPI_SUCCESS);
      ASSERT_EQ(MPI_Irecv(&value, 1, MPI_INT, 1, kData, world.comm(), &requests[1]), MPI_SUCCESS);
      int self = 0;
      ASSERT_EQ(MPI_Recv(&self, 1, MPI_INT, 0, kData, world.comm(), MPI_STATUS_IGNORE),
                MPI_SUCCESS);
      const std::vector<int> peers = {0, 1};
      const Wait wait{"ps-zmq (mpi) step", world.comm(), 1.0};
      EXPECT_EQ(wait_some(requests, peers, wait), std::vector<int>{0});  // the send to itself
      const std::string error = error_of([&] { wait_some(requests, peers, wait); });
      EXPECT_EQ(
          error,
          "ps-zmq (mpi) step: nothing from or to rank 1 for 1 s (--timeout); is rank 1 alive?");
      take_stalls();
      tell_gave_up(world.comm());
      EXPECT_EQ(wait_some(requests, peers, wait), std::vector<int>{1});
      EXPECT_EQ(value, 42);
      EXPECT_TRUE(wait_some(requests, peers, wait).empty()) << "every request done: none";
    } else {
      await_gave_up(world.comm());
      value = 42;
      ASSERT_EQ(MPI_Send(&value, 1, MPI_INT, 0, kData, world.comm()), MPI_SUCCESS);
    }
  });
}

TEST(BoundedWait, SendsThatNoPeerTakesNameEveryRankStillOwed) {
  const World world;
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  // Synchronous sends complete only once the receive is matched: rank 1
  // takes neither before rank 0 has given up.
  on_first_two(world, [&] {
    int values[2] = {5, 6};
    if (world.rank() == 0) {
      MPI_Request requests[2];
      const int peers[2] = {1, 1};
      for (int i = 0; i < 2; ++i)
        ASSERT_EQ(MPI_Issend(&values[i], 1, MPI_INT, 1, kData, world.comm(), &requests[i]),
                  MPI_SUCCESS);
      const std::string error = error_of([&] {
        wait_peers(requests, peers, Direction::to_peer, {"tree-mpi reduce", world.comm(), 0.5});
      });
      EXPECT_EQ(error,
                "tree-mpi reduce: no data taken by rank 1 for 0.5 s (--timeout); is rank 1 alive?");
      take_stalls();
      tell_gave_up(world.comm());
      ASSERT_EQ(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    } else {
      int got[2] = {0, 0};
      await_gave_up(world.comm());
      for (int& g : got)
        ASSERT_EQ(MPI_Recv(&g, 1, MPI_INT, 0, kData, world.comm(), MPI_STATUS_IGNORE), MPI_SUCCESS);
      EXPECT_EQ(got[0], 5);
      EXPECT_EQ(got[1], 6);
    }
  });
}

TEST(BoundedWait, CollectiveThatARankHasNotJoinedSaysARankStopped) {
  const World world;
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  // Ranks 0 and 1 in a communicator of their own: rank 1 joins the
  // allreduce only after rank 0 has given up on it.
  World pair = world.split(world.rank() < 2 ? 0 : 1);
  if (world.rank() >= 2) {
    world.barrier();
    return;
  }
  double in = 1, out = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  if (pair.rank() == 0) {
    ASSERT_EQ(MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, pair.comm(), &request),
              MPI_SUCCESS);
    const std::string error = error_of([&] {
      wait_collective(request, sizeof in, {"MPI_Allreduce", pair.comm(), 0.5});
    });
    EXPECT_EQ(error,
              "MPI_Allreduce of 8 bytes over 2 ranks did not complete within 0.5 s: rank 1 stopped "
              "answering (--timeout); is rank 1 alive?");
    take_stalls();
    tell_gave_up(pair.comm());
  } else {
    await_gave_up(pair.comm());
    ASSERT_EQ(MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, pair.comm(), &request),
              MPI_SUCCESS);
  }
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(out, 2.0);
  world.barrier();
}

// A chain over the stall board (stall_board.h), for real over ZeroMQ: rank 1
// waits for rank 0, which waits for rank 2, which does not wait on anyone
// (as a stopped rank would not). Rank 0 waits for the rank that stopped
// directly: it warns and gives up at its timeout, naming rank 2. Rank 1
// stays silent and gives up only after holding (hold_s), naming rank 0 and
// the rank it waits behind. Ranks above 2 take no part.
TEST(BoundedWait, RanksAlongAChainAgreeOnTheOneThatStopped) {
  const World world;
  if (world.size() < 3) GTEST_SKIP() << "needs 3 ranks";
  StallBoard board(world);
  constexpr double kTimeout = 2.0;
  World trio = world.split(world.rank() < 3 ? 0 : 1);
  if (world.rank() < 3) {
    trio.barrier();
    int value = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    if (world.rank() < 2) {
      const int peer = world.rank() == 0 ? 2 : 0;
      ASSERT_EQ(MPI_Irecv(&value, 1, MPI_INT, peer, kData, trio.comm(), &request), MPI_SUCCESS);
      take_stalls();
      const auto start = std::chrono::steady_clock::now();
      const std::string error = error_of([&] {
        wait_peer(request, peer, Direction::from_peer,
                  {"ring-mpi allgather", trio.comm(), kTimeout});
      });
      const double took =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const Stalls stalls = take_stalls();
      EXPECT_EQ(stalls.count, 1u);
      if (world.rank() == 0) {
        EXPECT_EQ(error,
                  "ring-mpi allgather: no data from rank 2 for 2 s (--timeout); is rank 2 "
                  "alive? (rank 1 waited as well)");
        EXPECT_LT(took, kTimeout + hold_s(kTimeout)) << "the speaker gives up at its timeout";
        EXPECT_TRUE(stalls.first.ends_with("(ring-mpi allgather), waiting for rank 2"))
            << stalls.first;
      } else {
        EXPECT_EQ(error,
                  "ring-mpi allgather: no data from rank 0, behind rank 2 for 2 s "
                  "(--timeout); is rank 2 alive? (rank 0 waited as well)");
        EXPECT_GE(took, kTimeout + hold_s(kTimeout)) << "a rank behind holds";
        EXPECT_TRUE(stalls.first.ends_with("waiting for rank 0, behind rank 2")) << stalls.first;
      }
    }
    // Rank 2 lets the chain go: its data to rank 0, then rank 0's to rank 1.
    trio.barrier();
    if (world.rank() == 2) {
      value = 7;
      ASSERT_EQ(MPI_Send(&value, 1, MPI_INT, 0, kData, trio.comm()), MPI_SUCCESS);
    } else {
      ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
      if (world.rank() == 0) {
        ASSERT_EQ(MPI_Send(&value, 1, MPI_INT, 1, kData, trio.comm()), MPI_SUCCESS);
      }
      EXPECT_EQ(value, 7);
    }
  }
  world.barrier();
}

TEST(BoundedWait, WaitsThatCompleteInTimeReturnWithTheData) {
  World world;
  world.set_timeout(30);
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  take_stalls();
  on_first_two(world, [&] {
    const int peer = 1 - world.rank();
    int mine = 10 + world.rank(), theirs = 0;
    MPI_Request requests[2];
    ASSERT_EQ(MPI_Irecv(&theirs, 1, MPI_INT, peer, kData, world.comm(), &requests[0]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Isend(&mine, 1, MPI_INT, peer, kData, world.comm(), &requests[1]), MPI_SUCCESS);
    wait_peer(requests[1], peer, Direction::to_peer, {"exchange", world.comm(), 30});
    wait_peer(requests[0], peer, Direction::from_peer, {"exchange", world.comm(), 30});
    EXPECT_EQ(theirs, 10 + peer);
    EXPECT_EQ(requests[0], MPI_REQUEST_NULL);
  });
  // The World's control collectives wait the same way.
  EXPECT_EQ(world.sum(1), static_cast<std::uint64_t>(world.size()));
  EXPECT_EQ(world.max(world.rank()), world.size() - 1);
  EXPECT_EQ(world.allgather(std::to_string(world.rank())).back(), std::to_string(world.size() - 1));
  EXPECT_EQ(take_stalls().count, 0u);
}

}  // namespace
}  // namespace gradsync
