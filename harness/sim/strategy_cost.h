#pragma once
// Which closed form (harness/sim/collective_cost.h) costs each strategy, on
// which link class, with which constants. The cost model knows every
// strategy of the table and three more that exist only as models
// (double-tree, halving-doubling, hierarchical: what production libraries
// choose between). A strategy's constants are its calibrated fit on the link
// class its job spans (intra: one node, inter: several), else the cluster
// file's link-level constants; nccl-ring / nccl-tree follow NCCL's own model
// (tuning.cc) on the described GPUs instead, uncalibrated.

#include <span>
#include <string>
#include <string_view>

#include "harness/sim/cluster_model.h"
#include "harness/sim/collective_cost.h"
#include "strategies/core/strategy_options.h"

namespace gradsync::sim {

struct SimAlgorithm {
  std::string_view name;
  std::string_view costed_as;  // the closed form, in words
  bool model_only;             // no implementation to measure: costed from link constants only
  // A black box whose algorithm changes with the worker count (MPI_Allreduce:
  // the library picks by size and worker count): calibrated per worker count.
  bool per_workers = false;
};
// In the strategy table's order, then the model-only algorithms.
std::span<const SimAlgorithm> sim_algorithms();
// Throws std::invalid_argument naming the known ones.
const SimAlgorithm& find_sim_algorithm(std::string_view name);

// Where the workers are: `workers` ranks filling nodes of `workers_per_node`
// in rank order; dedicated parameter-server shards on `server_hosts` hosts of
// their own (0: one host per shard).
struct Placement {
  int workers = 1;
  int workers_per_node = 1;
  int server_hosts = 0;
  int nodes() const { return (workers + workers_per_node - 1) / workers_per_node; }
  // "inter" when the workers (or their dedicated servers) span nodes, else "intra".
  std::string link(const StrategyOptions& options, std::string_view strategy) const;
};

// The counts of one allreduce of `bytes` under a measurable strategy (what
// the calibration fits through). Throws std::invalid_argument for nccl-*,
// none and the model-only algorithms.
CostTerms strategy_terms(std::string_view strategy, const StrategyOptions& options, double bytes,
                         const Placement& placement);

// Costs every bucket of one strategy on one cluster and placement.
class BucketCoster {
 public:
  BucketCoster(const ClusterModel& cluster, std::string strategy, StrategyOptions options,
               Placement placement);
  double seconds(double bytes) const;
  // e.g. "ring-mpi on inter: calibrated (o 41 us, alpha 12 us, 1.9 ns/B, gamma in beta)"
  const std::string& costed_as() const { return costed_as_; }

 private:
  const ClusterModel& cluster_;
  std::string strategy_;
  StrategyOptions options_;
  Placement placement_;
  CostParams params_, intra_params_;
  int max_flows_ = 0;  // a fit's contention is not carried beyond the flows it saw (0: no cap)
  const StrategyFit* table_fit_ = nullptr;  // a black box's measured times, when it has them
  std::string costed_as_;
};

}  // namespace gradsync::sim
