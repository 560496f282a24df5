#pragma once
// Waits on MPI requests that give up (--timeout) and say whom they waited
// for. A plain MPI_Wait on a peer that was stopped (SIGSTOP) or hangs never
// returns; these poll the requests with MPI_Test/MPI_Testall instead, as
// fast as MPI_Wait's own progress loop (the clock is read once every few
// dozen tests, and not at all when the first test finds the request done),
// against the marks of `timeout_s` that every bounded wait passes
// (stall_marks.h), from the start of the wait:
//
// - at a quarter of the timeout the rank tells the others whom it waits for
//   (the stall board, stall_board.h), so that the ranks can agree which
//   rank stopped answering first: in a ring, rank 1 waits for rank 0, which
//   waits for rank 2, the one stopped (blame.h);
// - at half the timeout the stall inspector (as Horovod's) prints one
//   warning, from the one rank that waits for the stopped rank directly
//   (the lowest such), naming this rank, what it is doing (activity.h),
//   the operation and the stopped rank:
//   "gradsync: warning: rank 0: stalled 2.5 s in step 7 bucket 3 (ring-mpi
//   allgather), waiting for rank 2"; the ranks that wait behind it note
//   the stall silently;
// - at the timeout the same rank throws std::runtime_error with one line
//   naming the operation, the step and the stopped rank: "ring-mpi
//   reduce-scatter in step 7 bucket 3: no data from rank 2 for 5 s
//   (--timeout); is rank 2 alive? (rank 1 waited as well)". The others
//   hold a little longer, by when the job has normally been ended (main
//   aborts it), and throw the same way if it has not. The requests stay
//   pending: the caller aborts the job or completes them.
//
// A blocking collective whose non-blocking form is slower is watched from
// outside instead (BlockingCallWatch, below).
//
// Ranks in the messages are ranks of MPI_COMM_WORLD, the ones mpirun and the
// error lines of every rank use. A timeout of 0 or less waits unbounded
// (plain MPI_Wait, no inspector).

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "strategies/core/watchdog_thread.h"

namespace gradsync {

// What a wait is, in words, and how long it may last.
struct Wait {
  const char* operation;  // "ring-mpi allgather", "MPI_Allreduce(max)"
  MPI_Comm comm;          // the peers named below are ranks of this communicator
  double timeout_s;       // <= 0: unbounded
};

// Which way a point-to-point wait's data goes: from the peer (a receive) or
// to it (a send that the peer must take).
enum class Direction { from_peer, to_peer };

// Waits for `request`, owed by rank `peer` of wait.comm.
void wait_peer(MPI_Request& request, int peer, Direction direction, const Wait& wait);

// Waits for every request, requests[i] being owed by peers[i]; the error
// names the ranks whose requests were still pending.
void wait_peers(std::span<MPI_Request> requests, std::span<const int> peers, Direction direction,
                const Wait& wait);

// Waits until at least one of `requests` completes and returns the indices
// of those that did (completed ones become MPI_REQUEST_NULL), for an event
// loop over messages of several kinds and directions; requests[i] is owed
// by rank peers[i] of wait.comm. The error names the ranks whose requests
// were all still pending: "ps-zmq step: nothing from or to ranks 2, 3 for
// 5 s (--timeout); ...". Every request null: returns none at once.
std::vector<int> wait_some(std::span<MPI_Request> requests, std::span<const int> peers,
                           const Wait& wait);

// Waits for a non-blocking collective over wait.comm moving `bytes` per rank;
// it waits for every other rank, and names the ones that did not tell they
// wait: "MPI_Allreduce of 8 bytes over 3 ranks did not complete within 5 s:
// rank 2 stopped answering (--timeout); is rank 2 alive? (rank 1 waited
// as well)". Without a stall board, with more than one other rank, it
// cannot tell which: "...within 5 s; a rank stopped or died".
void wait_collective(MPI_Request& request, std::size_t bytes, const Wait& wait);

// A blocking collective bounded from outside, for one whose non-blocking form
// is slower: Open MPI's MPI_Iallreduce (libnbc) takes up to twice as long as
// its tuned MPI_Allreduce, which is what mpi-allreduce measures. A watchdog
// thread samples the call in flight a few times per timeout (every
// timeout/20, at most 1 s) and passes the same marks as the waits above,
// telling and judging over the stall board; when it gives up, since a
// blocked call cannot throw, it prints the line main would ("gradsync:
// error: rank R: MPI_Allreduce of N bytes over K ranks did not complete
// within 5 s: rank 2 stopped answering ...") and ends the job with MPI_Abort. A call costs the caller five plain atomic
// stores and no clock reading; with a timeout of 0 or less there is no thread.
// One caller thread at a time.
class BlockingCallWatch {
 public:
  BlockingCallWatch(MPI_Comm comm, double timeout_s);
  ~BlockingCallWatch();
  BlockingCallWatch(const BlockingCallWatch&) = delete;
  BlockingCallWatch& operator=(const BlockingCallWatch&) = delete;

  // Runs `call()` (the blocking MPI call: `operation` moving `bytes` per rank) under watch.
  template <typename Call>
  void run(const char* operation, std::size_t bytes, Call call) {
    operation_.store(operation, std::memory_order_relaxed);
    bytes_.store(bytes, std::memory_order_relaxed);
    calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    in_flight_.store(true, std::memory_order_release);
    struct Done {
      std::atomic<bool>& flag;
      ~Done() { flag.store(false, std::memory_order_release); }
    } done{in_flight_};
    call();
  }

 private:
  void watch(WatchdogThread::Ticks& ticks);

  const double timeout_s_;
  const int rank_;  // in MPI_COMM_WORLD
  const std::vector<int> others_;  // the call's other ranks, in MPI_COMM_WORLD
  const int size_;
  std::atomic<const char*> operation_{""};
  std::atomic<std::size_t> bytes_{0};
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<bool> in_flight_{false};
  WatchdogThread thread_;  // last: its body reads the members above
};

}  // namespace gradsync
