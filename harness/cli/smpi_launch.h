#pragma once
// `gradsync collectives --engine smpi`: the same benchmark run by the SMPI
// build of gradsync (GRADSYNC_MPI=smpi, in build-smpi/) under SimGrid's
// smpirun, on a platform written from a cluster file (harness/sim/
// smpi_platform.h), at any worker count one host's memory holds: every rank
// a simulated process, time SimGrid's. This binary (the native one) writes
// the platform and hostfile into a folder, starts smpirun on them with the
// benchmark's own flags, passes its output and exit status on, and removes
// the folder (unless --platform-dir keeps it). What it sets:
//
// - SMPI's network factors from the cluster file (smpi_network_flags);
// - reductions charged at the file's reduce_bytes_per_s (--reduce-rate);
// - the collective selector of mpi-allreduce: SimGrid's implementation of
//   Open MPI's decision rules (ompi, the default, as the suite is built
//   against Open MPI) or MPICH's (mpich);
// - every send is matched to its receive before it completes
//   (smpi/send-is-detached-thresh:0), as Open MPI's TCP transport does
//   above its 64 KiB eager limit: the strategies post their receives
//   ahead, and SimGrid's detached small sends cost host time that grows
//   with the ranks (ring-mpi, 64 MiB, 256 ranks: 30.5 s against 11.6 s) and
//   came out 15% slower on the simulated clock (docs/results/smpi-scaling.md);
// - computation between MPI calls is not benchmarked
//   (smpi/simulate-computation:no): the only compute is the costed sums;
// - no privatization of globals (smpi/privatization:no): the suite keeps no
//   mutable global state that differs between ranks, and copying the binary
//   per rank (SimGrid's default) costs memory at 1,024 ranks.
//
// The record each strategy appends says `simulated: true` and names the
// engine, its version, the selector and the platform (engine.platform).

#include <span>
#include <string>

#include "harness/cli/collectives_plan.h"

namespace gradsync {

// Runs the benchmark under smpirun and returns its exit status. Throws
// std::invalid_argument (one line) on a cluster file or topology that cannot
// be simulated, and std::runtime_error when smpirun or the SMPI build is
// missing (saying how to get them).
int run_collectives_under_smpi(const CollectivesOptions& options,
                               const StrategyOptions& strategy_options,
                               std::span<const std::string> command_line, const std::string& self);

// The flags that only the launcher reads, which it does not pass on.
bool is_launcher_flag(const std::string& flag);

}  // namespace gradsync
