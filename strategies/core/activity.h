#pragma once
// What this process is doing, in words, for the stall inspector (as
// Horovod's): the harness says where the process is ("step 7", "size 4096 B
// timed pass") and which item within it ("bucket 3", "iteration 4"); a wait
// that stalls reads it for its warning, and notes the warning here, so that
// the harness can tell a disturbed run from a clean one. Process-wide and
// thread-safe; strategies/ knows nothing of steps or buckets beyond the words.

#include <cstdint>
#include <string>

namespace gradsync {

// Where the process is; clears the item. A lock: call it per step or per
// size, not per iteration.
void set_activity(std::string where);
// The item within it, cheap enough for every iteration (two atomic stores).
// `kind` must be a string literal ("bucket"); nullptr clears the item.
void set_activity_item(const char* kind, long index);
// "step 7 bucket 3", "size 4096 B timed pass iteration 4"; empty when unset.
std::string activity();
// The same as an error line says it: " in step 7 bucket 3", or "" when unset.
std::string in_activity();

// The stall warnings printed since the last take_stalls(), by any thread.
struct Stalls {
  std::uint64_t count = 0;
  std::string first;  // the first one, as printed after "gradsync: warning: "
};
// The stall inspector's line: "rank 0: stalled 2.5 s in step 7 bucket 3
// (ring-mpi allgather), waiting for rank 1", the place from activity().
std::string stall_line(int rank, double waited_s, const char* operation, const std::string& whom);
// The line of a wait that finds its own process was not running
// (wait_clock.h): "rank 1: not running for 4.2 s in step 58 (ps-zmq pull):
// stopped, or starved of CPU; not counted against --timeout".
std::string pause_line(int rank, double paused_s, const char* operation);
// Prints "gradsync: warning: <line>" to stderr and notes it.
void warn_stall(const std::string& line);
// Notes it without printing: a rank that waits behind another's stall
// (blame.h) leaves the warning to the rank that speaks.
void note_stall(const std::string& line);
// What was noted since the last call, and forgets it.
Stalls take_stalls();

}  // namespace gradsync
