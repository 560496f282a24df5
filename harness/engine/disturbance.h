#pragma once
// Disturbed runs are not clean. A run whose ranks stalled (the stall
// inspector warned: a wait lasted half of --timeout, strategies/core/activity.h)
// or whose step (train) or timed iteration (collectives) took longer than
// --timeout on some rank finished, but its figures measure the disturbance,
// not the strategy. The engine watches for both and reports the first such
// event, one line, agreed over the ranks; the records then say
// "correct": false and why ("disturbed").

#include <cstdint>
#include <string>
#include <string_view>

#include "strategies/core/world.h"

namespace gradsync {

class DisturbanceWatch {
 public:
  // Watches from now on (stall warnings printed before are forgotten);
  // `timeout_s` <= 0: no step is too long.
  explicit DisturbanceWatch(double timeout_s);

  // Notes the stall warnings printed since the last call (or the start).
  void collect_stalls();
  // A step or iteration ("step", 7; "size 4096 B timed iteration", 3) of
  // `seconds`: an event when longer than the timeout.
  void timed(std::string_view kind, long index, double seconds);

  // Collective over `peers`: the first event of the lowest rank that saw one,
  // with the count of events over every rank when there were more ("rank 0:
  // stalled 2.6 s in step 7 bucket 3 (ring-mpi allgather), waiting for rank 1
  // (3 events in all)"); empty on every rank when none saw any.
  std::string agree(const World& peers) const;

 private:
  double timeout_s_;
  std::uint64_t events_ = 0;
  std::string first_;
};

}  // namespace gradsync
