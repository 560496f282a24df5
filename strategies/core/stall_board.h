#pragma once
// The stall board: how the ranks whose waits stall tell each other whom they
// wait for, so that one rank, the right one, names the rank that stopped
// answering (blame.h) and the others stay silent.
//
// Over ZeroMQ, not MPI: a rank stuck in a blocking MPI call (mpi-allreduce's
// MPI_Allreduce, watched by BlockingCallWatch's thread) must still tell and
// listen, and MPI runs MPI_THREAD_SERIALIZED. Each rank binds one PULL
// socket, a Unix socket in the abstract namespace when the job is on one
// host, else TCP on the address the other hosts reach it at
// (host_address.h), and learns the others' when the board opens; it connects to them only when it first stalls, so a healthy run
// opens no connection and sends nothing. A report is one short text
// message, "gradsync-stall TOKEN RANK SEQUENCE WAITS", WAITS the ranks it
// waits for ("1,3") or "-" once it waits no more; the token is drawn by
// rank 0 for the job, and a message without it, malformed or too long is
// dropped unread (a stray or forged sender cannot steer the blame).

#include <memory>
#include <span>
#include <vector>

#include "strategies/core/blame.h"

namespace gradsync {

class World;

// Opens the process's board: a collective over `world`, whose ranks must be
// those of MPI_COMM_WORLD. While it lives, every bounded wait that stalls
// tells the others; without one, each rank judges alone (it blames the
// ranks it waits for, and speaks). One at a time per process.
class StallBoard {
 public:
  explicit StallBoard(const World& world);
  ~StallBoard();
  StallBoard(const StallBoard&) = delete;
  StallBoard& operator=(const StallBoard&) = delete;
};

// What one stalled wait tells the board: told when made, taken back when it
// ends normally (not when it ends by throwing: the job is ending, and the
// other ranks must not think this rank stopped). Several may be told at
// once, by several threads; the board carries their union.
class StallReport {
 public:
  // `rank`: this process's rank in MPI_COMM_WORLD, read by the caller (a
  // watchdog thread may not call MPI); `waits_for`: ranks of MPI_COMM_WORLD.
  StallReport(int rank, std::span<const int> waits_for);
  ~StallReport();
  StallReport(const StallReport&) = delete;
  StallReport& operator=(const StallReport&) = delete;

  // Tells the ranks waited for now (when they changed) and judges from this
  // rank's view with what the other ranks told so far.
  Blame judge(std::span<const int> waits_for);

 private:
  int rank_;
  int ticket_ = -1;  // -1: told to no board
  int unwinding_;  // std::uncaught_exceptions() when made
};

}  // namespace gradsync
