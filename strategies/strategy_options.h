#pragma once
// The options of one run, as the harness fills them from its command line:
// the ones every strategy shares, one group per strategy that has options
// (each declared with its strategy), and the test-only faults, kept apart so
// that no measurement path reads them except where a fault is injected.
// Adding a strategy with options adds its group here: one line.

#include <cstddef>
#include <span>

#include "strategies/compression.h"
#include "strategies/hierarchical_mpi.h"
#include "strategies/option_flag.h"
#include "strategies/ps_options.h"
#include "strategies/ring_mpi.h"
#include "strategies/tree_mpi.h"

namespace gradsync {

// Faults that tests inject to check that failures end cleanly and that the
// CI gate notices a slow strategy. Not for measurements.
struct TestFaults {
  // A ps-zmq server shard stops answering (closes its socket) after this many
  // requests, as a crashed or hung server would; negative = never.
  long ps_stop_after = -1;
  // Every allreduce of the strategy sleeps this long first (milliseconds;
  // 0 = no delay), so that a test can slow any strategy by a known amount.
  double delay_ms = 0;
};

struct StrategyOptions {
  // Every wait on another process (point-to-point, collective, parameter
  // server) gives up after this long, with an error naming the peer and the
  // operation; a stall warning comes at half of it (seconds).
  double timeout_s = 60.0;

  // Gradients go on the wire as 16-bit floats (compressed.h); none: fp32.
  Compression compression = Compression::none;

  RingMpiOptions ring;
  TreeMpiOptions tree;
  PsZmqOptions ps;
  HierarchicalMpiOptions hierarchical;

  TestFaults faults;
};

// The options every strategy shares (the timeout, the compression), and the test-only fault
// that any strategy takes (the delay). A strategy's own options come with
// its table entry.
std::span<const OptionFlag> common_option_flags();
std::span<const OptionFlag> test_fault_flags();

}  // namespace gradsync
