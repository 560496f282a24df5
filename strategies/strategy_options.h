#pragma once
// Options of every strategy, in one struct that the harness fills from its
// command line. Each strategy reads the fields that concern it.

#include <cstddef>
#include <string>

namespace gradsync {

enum class PsPlacement {
  colocated,  // server shards are threads inside the first S workers
  dedicated,  // the first S ranks only serve; the others are the workers
};

struct StrategyOptions {
  // ring-mpi: elements move in segments of this size, so that the transfer of
  // one segment overlaps the reduction of the previous one.
  std::size_t ring_segment_bytes = 512 * 1024;
  // tree-mpi: the same for the tree's pipeline.
  std::size_t tree_segment_bytes = 256 * 1024;

  // ps-zmq
  int ps_servers = 1;
  PsPlacement ps_placement = PsPlacement::colocated;
  std::string ps_transport = "tcp";      // tcp or ipc
  std::string ps_bind_host = "127.0.0.1";  // the address servers bind to (tcp)
  std::size_t ps_partition_bytes = 4 * 1024 * 1024;
  // Test-only fault: a server shard stops answering (closes its socket) after
  // this many requests, as a crashed or hung server would; negative = never.
  long ps_fault_stop_after = -1;

  // Every blocking receive that waits on another process gives up after this
  // long, with an error naming the peer (seconds).
  double timeout_s = 60.0;

  // For tests only: every allreduce of this strategy sleeps this long first
  // (milliseconds; 0 = no delay), so that a test can slow any strategy by a
  // known amount and check that `gradsync compare` fails on it.
  double test_delay_ms = 0;
};

PsPlacement parse_ps_placement(const std::string& text);
const char* to_string(PsPlacement placement);

}  // namespace gradsync
