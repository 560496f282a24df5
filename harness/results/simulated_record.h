#pragma once
// The record of a simulated run: a train record (results/README.md) with
// `"simulated": true`, the fields a measured run of the same case would
// carry (so report, compare's readers and the plots take it as they take a
// measurement, in columns of its own), and a `simulation` object saying what
// produced it: the cluster file and its name, how the strategy was costed,
// where the compute came from, the step's buckets, and for a twin the record
// it stands beside.

#include <nlohmann/json.hpp>
#include <string>

#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "harness/sim/simulation.h"

namespace gradsync {

struct SimulatedRun {
  const sim::SimulationCase& run;
  const sim::SimulationResult& result;
  const sim::ClusterModel& cluster;
  std::string cluster_file;
  // What the run stands for in tables (a workload's setup): the described
  // cluster, e.g. "horovod-p100 (simulated)". Ignored for a twin, which
  // takes its measured record's setup.
  std::string setup;
  // The measured record a `simulate validate` twin stands beside.
  const StoredRecord* twin = nullptr;
};

nlohmann::json simulated_record(const SimulatedRun& simulated, const RunContext& context);

}  // namespace gradsync
