#pragma once
// The allreduce benchmark, with nccl-tests' conventions: message sizes from
// -b to -e by a factor (-f) or a step (-i); per size a correctness pass on
// inputs whose sums are exact, kept apart from a timed pass on zeros; time is
// the slowest worker's per-iteration average; algbw = bytes / time and
// busbw = algbw x 2(n-1)/n. This file is the core, free of printing, files
// and the command line (cli/collectives_plan.h reads -b/-e/-f/-i and checks
// the arguments), so that tests can run it on a Strategy of their own.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/link_counters.h"
#include "strategies/core/strategy.h"

namespace gradsync {

// The benchmark reduces floats by summing them: the one datatype and reduction
// the command line accepts and the records name.
inline constexpr std::string_view kBenchDatatype = "float";
inline constexpr std::string_view kBenchOp = "sum";

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
  std::optional<std::uint64_t> wrong_elements;  // summed over workers; none when unchecked
  // Device buffers only: per allreduce, the slowest worker's time copying
  // between device and host around the transport (0 when nothing is staged).
  std::optional<double> staging_us;
  // With a WireMeter: this worker's own bytes over the timed iterations (its
  // strategy's count, and its host's link when it reads it). Unlike the
  // fields above, not the same on every worker.
  std::optional<WireSample> own_wire;
  // The first stall warning, or timed iteration longer than --timeout, of
  // this size on any worker, one line (harness/engine/disturbance.h); empty
  // when the size ran undisturbed. The same on every worker.
  std::string disturbance;
  // Which of its algorithms the strategy took at this size, when it
  // switches by size (Strategy::path_for: "recursive doubling", its latency
  // path); empty: the one its table entry names.
  std::string path;
};

struct BenchSettings {
  int iters = 20;
  int warmup_iters = 5;
  int check_passes = 1;                  // correctness passes per size; 0: none
  MemoryKind memory = MemoryKind::host;  // device: the buffers are on the rank's current GPU
  // Runs on an emulated cluster: measures each size's timed iterations, from
  // right after the barrier that starts them to after their time is agreed.
  WireMeter* wire = nullptr;
};

// Runs every size on `strategy`. Collective over strategy.peers(): every
// worker calls it with the same arguments and gets the same results. Says
// what it is doing to the stall inspector ("size 65536 B timed pass
// iteration 4", strategies/core/activity.h); a timed iteration is too long past
// strategy.peers().timeout().
std::vector<SizeResult> benchmark_allreduce(Strategy& strategy,
                                            std::span<const std::uint64_t> sizes,
                                            const BenchSettings& settings);

// Mean busbw over the rows (nccl-tests' "Avg bus bandwidth").
double average_busbw(std::span<const SizeResult> rows);

}  // namespace gradsync
