#pragma once
// The allreduce benchmark, with nccl-tests' conventions: message sizes from
// -b to -e by a factor (-f) or a step (-i); per size a correctness pass on
// inputs whose sums are exact, kept apart from a timed pass on zeros; time is
// the slowest worker's per-iteration average; algbw = bytes / time and
// busbw = algbw x 2(n-1)/n. This file is the core, free of printing and
// files, so that tests can run it on a Strategy of their own.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strategies/strategy.h"
#include "strategies/strategy_options.h"

namespace gradsync {

// What `gradsync collectives` reads from its command line.
struct CollectivesOptions {
  std::uint64_t min_bytes = 32ull << 20;  // nccl-tests' defaults
  std::uint64_t max_bytes = 32ull << 20;
  std::uint64_t step_bytes = 1ull << 20;
  int step_factor = 1;  // > 1: multiply by it; 1: add step_bytes
  int iters = 20;
  int warmup_iters = 5;
  int check = 1;  // correctness passes per size; 0: none
  std::string datatype = "float";
  std::string op = "sum";
  std::string strategies = "ring-mpi,tree-mpi,ps-zmq,mpi-allreduce";
  std::string json_path;  // append one record per strategy; empty: none
  // Where the buffers live: "host", "device" (the rank's GPU; strategies that
  // reduce host memory are staged through pinned host memory), or "auto":
  // device for strategies that take device memory only (nccl-*), else host.
  std::string memory = "auto";
};

// The validated run: what every rank will do, decided before any strategy is built.
struct CollectivesPlan {
  std::vector<std::uint64_t> sizes;  // bytes, whole elements
  std::vector<std::string> strategies;
  std::vector<MemoryKind> memory;  // per strategy: where its buffers live
  bool any_device() const;
};

// Throws std::invalid_argument, with a message naming the flag, on arguments
// that cannot run (the same on every rank).
CollectivesPlan plan_collectives(const CollectivesOptions& options,
                                 const StrategyOptions& strategy_options, int world_size);

// The sizes -b..-e: multiplied by step_factor when it is above 1, else
// increased by step_bytes; each cut down to whole floats. A 0 is followed by
// one element (4 bytes), so that a factor can grow it.
std::vector<std::uint64_t> message_sizes(const CollectivesOptions& options);

// The correctness inputs: worker `rank`'s element `index` in pass `pass`, a
// small integer (-8..8), so that any sum over workers is exact in float.
float test_input(int rank, std::uint64_t index, int pass);
// The exact sum of test_input over ranks 0..workers-1.
float expected_sum(int workers, std::uint64_t index, int pass);

// busbw / algbw for an allreduce among `workers`: 2(n-1)/n.
double bus_factor(int workers);

struct SizeResult {
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<std::uint64_t> wrong;  // elements, summed over workers; none when unchecked
  // Device buffers only: per allreduce, the slowest worker's time copying
  // between device and host around the transport (0 when nothing is staged).
  std::optional<double> staging_us;
};

struct BenchSettings {
  int iters = 20;
  int warmup_iters = 5;
  int check = 1;
  MemoryKind memory = MemoryKind::host;  // device: the buffers are on the rank's current GPU
};

// Runs every size on `strategy`. Collective over strategy.peers(): every
// worker calls it with the same arguments and gets the same results.
std::vector<SizeResult> benchmark_allreduce(Strategy& strategy,
                                            std::span<const std::uint64_t> sizes,
                                            const BenchSettings& settings);

// Mean busbw over the rows (nccl-tests' "Avg bus bandwidth").
double average_busbw(std::span<const SizeResult> rows);

}  // namespace gradsync
