#pragma once
// The options of one run, as the harness fills them from its command line:
// the ones every strategy shares, one group per strategy that has options,
// and the test-only faults, kept apart so that no measurement path reads them
// except where a fault is injected.
//
// The groups are data only, here in the common base so that the table, the
// records and the cost model can hold any strategy's options without
// reaching into its room; what each option means, its flag and its checks
// live with its strategy (strategies/mpi/ring_mpi.h, strategies/ps/ps_options.h,
// ...). Adding a strategy with options adds its group here: one struct and
// one line in StrategyOptions.

#include <cstddef>
#include <span>
#include <string>

#include "strategies/core/compression.h"
#include "strategies/core/option_flag.h"

namespace gradsync {

// ring-mpi (and the rings of hierarchical-mpi).
struct RingMpiOptions {
  // Elements move in segments of this size, so that the transfer of one
  // segment overlaps the reduction of the previous one.
  std::size_t segment_bytes = 512 * 1024;
};

// tree-mpi and double-tree-mpi (and hierarchical-mpi's leaders' tree).
struct TreeMpiOptions {
  // Elements move down and up the tree in segments of this size (a pipeline);
  // 0 (the default) picks it by where the ranks are (tree_mpi.h's
  // tree_segment_bytes).
  std::size_t segment_bytes = 0;
};

// hierarchical-mpi.
struct HierarchicalMpiOptions {
  // 0: a host is the ranks that share memory (MPI_COMM_TYPE_SHARED). N > 0:
  // consecutive world ranks form emulated hosts of N ranks (the last one may
  // have fewer), so that the several-host path runs on one machine.
  int ranks_per_host = 0;
};

// ps-zmq (strategies/ps/ps_options.h: the flags and checks).
enum class PsPlacement {
  colocated,  // server shards are threads inside the first S workers
  dedicated,  // the first S ranks only serve; the others are the workers
};

// Who owns the parameters, and how far workers may drift apart:
enum class PsMode {
  sync,   // the shards sum each step's pushes over every worker; workers apply SGD
  async,  // the shards own the parameters and apply each worker's gradient as it comes
  ssp,    // async, but no worker runs more than --ps-staleness steps ahead of the slowest
};

struct PsZmqOptions {
  int servers = 1;
  PsPlacement placement = PsPlacement::colocated;
  std::string transport = "tcp";  // tcp or ipc
  // The address servers bind to (tcp): an address, an interface name, 0.0.0.0,
  // or "auto" (loopback on one host; this host's address, host_address.h,
  // when the job spans hosts). A wildcard is bound, but peers are given this
  // host's address.
  std::string bind_host = "auto";
  // ZeroMQ CURVE (encryption, and only the job's workers admitted): on, off,
  // or "auto" (on unless the shards bind to loopback or use ipc; ps_curve.h).
  std::string curve = "auto";
  // 0: by where the ranks are (ps_options.h's ps_partition_bytes).
  std::size_t partition_bytes = 0;
  // Shared memory for the data between a shard and the workers on its host
  // (ps_shared_segment.h): auto (then, in --ps-mode sync) or off.
  std::string shm = "auto";
  // The threads a shard's shared-memory sum runs on, its own included; 0:
  // the cores this process may use over the shards on its host
  // (ps_options.h's ps_sum_threads).
  int sum_threads = 0;
  PsMode mode = PsMode::sync;
  int staleness = 2;  // ssp: the most steps a worker may run ahead of the slowest
  // How workers put their partitions on the wire (ps_schedule.h): all at
  // once, or rotated (each worker starts at another shard, with at most
  // `window` pushes unacknowledged and pulls outstanding).
  std::string schedule = "all-at-once";
  int window = 2;
};

// The trainer's SGD, for a strategy whose servers own the parameters and
// apply each gradient themselves (parameter_owner.h): set by `train` from its
// --lr, --momentum and --weight-decay. Each gradient is one worker's batch,
// so the rate is one worker's, not scaled by the workers. Not an option of
// the command line's strategy flags, and not in the records' options.
struct TrainerSgd {
  double lr = 0.01;
  double momentum = 0.9;
  double weight_decay = 0.0;
};

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

  // The MPI point-to-point strategies reduce a buffer of at most this many
  // bytes by recursive doubling, their latency path
  // (strategies/mpi/short_allreduce.h); 0: never.
  std::size_t short_allreduce_bytes = 16 * 1024;

  RingMpiOptions ring;
  TreeMpiOptions tree;
  PsZmqOptions ps;
  HierarchicalMpiOptions hierarchical;

  TrainerSgd sgd;
  TestFaults faults;
};

// The options every strategy shares (the timeout, the compression), and the test-only fault
// that any strategy takes (the delay). A strategy's own options come with
// its table entry.
std::span<const OptionFlag> common_option_flags();
std::span<const OptionFlag> test_fault_flags();

}  // namespace gradsync
