#pragma once
// A bounded wait's way through a stall, in four marks of its timeout, the
// same for every wait that can stall (MPI requests, a blocking collective's
// watchdog, the parameter server's pulls); the time is waited time
// (wait_clock.h):
// - at a quarter, the rank tells the others whom it waits for (stall_board.h);
// - at half, it judges from what the others told which rank stopped
//   answering first (blame.h), and warns once if it is the rank that speaks
//   (the lowest that waits for the stopped rank directly) and was not
//   itself resumed within the timeout (wait_clock.h's resumed_within); a
//   rank that waits behind notes the stall silently (its run is disturbed
//   all the same);
// - at all of it, the speaker gives up; the others hold;
// - a holding rank gives up too after hold_s more: the speaker should have
//   ended the job by then, and if it did not, one line is better than none
//   (ranks that judged differently give up in rank order, a quarter of
//   hold_s apart, at most 0.5 s, so that the first line ends the job).

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "strategies/core/blame.h"
#include "strategies/core/stall_board.h"

namespace gradsync {

// How long a rank that waits behind another's stall holds on past its own
// timeout: half the timeout, at least 1.5 s, at most 5 s. The speaker's
// line ends the job a second or more after it (Open MPI's mpirun sends the
// other ranks SIGCONT, then SIGTERM a second later): a holder 1 s behind,
// with --timeout 2, printed a second line once in the sanitized build. And
// the holders of a job of 4 give up before the harness's own waits do
// (--timeout + 3 s): 1.5 s and 3 places of 0.375 s make 2.6 s.
double hold_s(double timeout_s);

// How much later than the first the rank at `place` (0 is the first) of
// those giving up on one stall gives up: a quarter of hold_s apart, at most
// 0.5 s, for at most 8 places; the first line normally ends the job.
double give_up_delay_s(double timeout_s, int place);

// Whether a wait speaks for its rank. A rank with two waits on one stall
// (ps-zmq's worker and the shard it hosts) lets one speak: the other tells,
// notes the stall without a warning and gives up only at the last mark,
// when the job has normally ended.
enum class Voice { speaks, silent };

class StallMarks {
 public:
  using Clock = std::chrono::steady_clock;
  // `rank`: this process's rank in MPI_COMM_WORLD (read once, by the caller,
  // since a watchdog thread may not call MPI).
  StallMarks(double timeout_s, int rank, Voice voice = Voice::speaks);

  // The waited time at which the next mark falls.
  Clock::duration next() const { return marks_[passed_]; }
  // Whether the first mark has passed: the wait is a stall, and may poll
  // at leisure (a millisecond late is nothing against a quarter timeout,
  // and a spinning waiter takes the CPU that the rank it waits for, or a
  // rank waiting behind, may need on a shared machine).
  bool stalled() const { return passed_ > 0; }

  // Passes the next mark, the wait waiting for `whom` (ranks of
  // MPI_COMM_WORLD, not empty); `warning(blame)` makes the stall line
  // (activity.h's stall_line) when one is due. Returns the blame to give
  // up with once it is time to.
  std::optional<Blame> pass(std::span<const int> whom,
                            const std::function<std::string(const Blame&)>& warning);

  // The wait made progress or ended: the marks start again (and what this
  // wait told is taken back).
  void reset();

 private:
  double timeout_s_;
  int rank_;
  bool speaks_;
  Clock::duration marks_[4];
  int passed_ = 0;
  std::optional<StallReport> report_;
};

}  // namespace gradsync
