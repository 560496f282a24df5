#pragma once
// The studies `gradsync simulate` runs on a described cluster besides a
// projection and --validate (simulate_command.h): the crossover map, BytePS's
// parameter-server comparison, and a published scaling table beside its
// simulation. Each prints its table and writes what its flags ask for.

#include <ostream>

#include "harness/cli/simulate_command.h"
#include "harness/results/run_context.h"
#include "harness/sim/cluster_model.h"

namespace gradsync {

// --crossover FILE: per worker count and inter-node bandwidth, the fastest
// strategy and its margin over the runner-up.
void crossover(const SimulateOptions& options, const sim::ClusterModel& cluster,
               std::ostream& out);

// --ps-server-hosts LIST: ps-zmq with its shards on k dedicated server hosts
// (one shard per host) against the best of the other strategies.
void server_hosts(const SimulateOptions& options, const sim::ClusterModel& cluster,
                  const RunContext& context, std::ostream& out);

// --published CSV: every row simulated, both efficiencies side by side.
void published(const SimulateOptions& options, const sim::ClusterModel& cluster,
               const RunContext& context, std::ostream& out);

}  // namespace gradsync
