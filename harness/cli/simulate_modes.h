#pragma once
// The modes of `gradsync simulate` (simulate_command.h), each on the cluster
// as its flags describe it: each prints its tables and writes what its flags
// ask for.

#include <ostream>

#include "harness/cli/simulate_command.h"
#include "harness/results/run_context.h"
#include "harness/sim/cluster_model.h"

namespace gradsync {

// project: every model x strategy x worker count, and the baseline at one
// worker for each model; with --explain, what each mechanism costs
// (simulate_project.cc).
void project(const SimulateOptions& options, const sim::ClusterModel& cluster,
             const RunContext& context, std::ostream& out);

// validate RESULTS...: every measured train record beside its simulated twin
// (simulate_validate.cc).
void validate(const SimulateOptions& options, const sim::ClusterModel& cluster,
              const RunContext& context, std::ostream& out);

// published TABLE: every row simulated, both efficiencies side by side.
void published(const SimulateOptions& options, const sim::ClusterModel& cluster,
               const RunContext& context, std::ostream& out);

// crossover --map FILE: per worker count and inter-node bandwidth, the
// fastest strategy and its margin over the runner-up.
void crossover(const SimulateOptions& options, const sim::ClusterModel& cluster, std::ostream& out);

// server-hosts --hosts LIST: ps-zmq with its shards on k dedicated server
// hosts (one shard per host) against the best of the other strategies.
void server_hosts(const SimulateOptions& options, const sim::ClusterModel& cluster,
                  const RunContext& context, std::ostream& out);

}  // namespace gradsync
