#pragma once
// What `gradsync collectives` reads from its command line, and the plan made
// of it before any strategy is built: every argument checked the same way on
// every rank, the message sizes, and where each strategy's buffers live.

#include <cstdint>
#include <string>
#include <vector>

#include "harness/sim/smpi_platform.h"
#include "strategies/core/memory_kind.h"
#include "strategies/core/strategy_options.h"
#include "strategies/registry.h"

namespace gradsync {

struct CollectivesOptions {
  std::uint64_t min_bytes = 32ull << 20;  // nccl-tests' defaults
  std::uint64_t max_bytes = 32ull << 20;
  std::uint64_t step_bytes = 1ull << 20;
  int step_factor = 1;  // > 1: multiply by it; 1: add step_bytes
  int iters = 20;
  int warmup_iters = 5;
  int check_passes = 1;  // correctness passes per size; 0: none
  std::string datatype = "float";
  std::string op = "sum";
  std::string strategies = default_strategy_list();  // comma-separated, run in order
  std::string json_path;                             // append one record per strategy; empty: none
  // Where the buffers live: "host", "device" (the rank's GPU; strategies that
  // reduce host memory are staged through pinned host memory), or "auto":
  // device for strategies that take device memory only, else host.
  std::string memory = "auto";
  // Under a simulated engine only (a GRADSYNC_MPI=smpi build run by smpirun,
  // strategies/core/engine.h): large buffers shared between the simulated
  // ranks, so that memory does not grow with them (no check: -c 0), and
  // the rate every reduction is charged at, bytes per second (0: free).
  bool shared_buffers = false;
  double reduce_bytes_per_s = 0;
  // --engine smpi (cli/smpi_launch.h): this binary starts the SMPI build
  // under smpirun on a platform written from `cluster_file` for `workers`
  // ranks; native (the default): the benchmark runs here, under mpirun.
  std::string engine = "native";
  std::string cluster_file;
  int workers = 0;
  sim::SmpiTopology topology;
  std::string selector = "ompi";  // mpi-allreduce's decision rules: ompi or mpich
  std::string smpi_binary;        // empty: build-smpi/bin/gradsync of this checkout
  std::string platform_dir;       // empty: a temporary folder, removed after the run
};

// The validated run: what every rank will do, decided before any strategy is built.
struct CollectivesPlan {
  std::vector<std::uint64_t> sizes;  // bytes, whole elements
  std::vector<const StrategyInfo*> strategies;  // their table entries, in the order given
  std::vector<MemoryKind> memory;  // per strategy: where its buffers live
  bool any_device() const;
};

// A simulated engine's job (--engine smpi or model) needs --cluster and
// --workers: throws std::invalid_argument naming the engine when one is missing.
void check_simulated_job(const CollectivesOptions& options);

// Throws std::invalid_argument, with a message naming the flag, on arguments
// that cannot run (the same on every rank), the strategies' options included.
CollectivesPlan plan_collectives(const CollectivesOptions& options,
                                 const StrategyOptions& strategy_options, int world_size);

// The sizes -b..-e: multiplied by step_factor when it is above 1, else
// increased by step_bytes. A 0 (-b 0: the call alone, as nccl-tests measures
// it) is followed by one element (4 bytes), so that a factor can grow it.
// The flags are whole floats (size_flag.h, plan_collectives), so every size is.
std::vector<std::uint64_t> message_sizes(const CollectivesOptions& options);

}  // namespace gradsync
