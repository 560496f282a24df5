#pragma once
// Whom a stalled job waits on, and which rank says so. When a wait stalls,
// its rank tells the others whom it waits for (stall_board.h). A rank that
// is waited for and tells nothing is not waiting on anyone: it stopped,
// died, or is busy elsewhere, and it is where the job's waits begin. From
// one rank's view: follow its own waits through the ranks that told theirs
// (a chain, as in a ring: rank 1 waits for rank 0, which waits for rank 2);
// the ranks reached that told nothing stopped answering first. Of the
// ranks that wait for one of those directly, the lowest speaks; every other
// waiting rank waits behind it and stays silent. Ranks that saw the same
// reports judge the same.
//
// When every rank reached told that it waits, no rank stopped: the ranks
// wait for one another in a circle (a link that moves nothing, so that the
// sender and the receiver both wait; a deadlock; or a report left by a rank
// that stopped inside a stall). Then `stopped` is empty, `circle` true, and
// the lowest waiting rank speaks.

#include <map>
#include <span>
#include <string>
#include <vector>

namespace gradsync {

struct Blame {
  std::vector<int> stopped;  // the ranks that stopped answering first, sorted
  bool circle = false;       // none: every rank reached waits
  std::vector<int> behind;   // every rank that told it waits, and this one, sorted
  int speaker = -1;          // the one rank that prints the error
};

// Judges from rank `me`, which waits for `my_waits`, given what the other
// ranks told (`told`: rank -> the ranks it waits for; ranks that told nothing
// are absent). Ranks are ranks of MPI_COMM_WORLD.
Blame judge_stall(int me, std::span<const int> my_waits,
                  const std::map<int, std::vector<int>>& told);

// "rank 1", "ranks 1, 3": how every stall line names ranks.
std::string ranks_text(std::span<const int> ranks);

}  // namespace gradsync
