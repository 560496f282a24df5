#pragma once
// How the cost model costs a strategy's buckets on a described cluster, from
// the strategy's own table entry (StrategyInfo::cost, strategies/core/cost.h):
// the model has no list of strategies of its own. A strategy that counts its
// allreduce is priced by its calibrated fit on the link class its job spans
// (intra: one node; inter: several, or dedicated servers on hosts of their
// own), fitted from runs of the same --compression, else by the cluster
// file's link constants (its `spanning` part on the job's links, its `intra`
// part on the node's); a black box (per_workers) by its measured times; a
// strategy with its own model (NCCL's) by that model on the described links.
// --compression moves 16-bit elements: the same messages, half the bytes and
// additions, the additions at the cluster's measured cost of a 16-bit byte,
// plus the casts at its measured rate, unless a fit of compressed runs has
// them in its constants already.

#include <optional>
#include <string>

#include "harness/sim/cluster_model.h"
#include "strategies/registry.h"

namespace gradsync::sim {

// "inter" when the job's traffic crosses the links between nodes (its
// workers span nodes, or it has dedicated servers, which sit on hosts of
// their own), else "intra".
std::string job_link(const StrategyInfo& strategy, const StrategyOptions& options,
                     const WorkerPlacement& placement);

// Why the cost model cannot cost `strategy` with `options`, in one line: a
// test-only fault set (--test-delay-ms, ...), or an option its entry says
// the model does not cost (--ps-mode async); empty when it can.
std::string uncosted_reason(const StrategyInfo& strategy, const StrategyOptions& options);

// The counts of one allreduce of a `bytes`-byte fp32 buffer as the strategy
// runs it with `options` (16-bit elements under --compression). Throws
// std::invalid_argument for a strategy that brings its own model instead.
AllreduceCounts strategy_counts(const StrategyInfo& strategy, const StrategyOptions& options,
                                double bytes, const WorkerPlacement& placement);

// What a fit on `link` is fitted through and prices: between nodes the part
// that crosses them (the part within each node, over shared memory or
// loopback, is priced by the intra constants); on one node everything.
CostTerms fitted_terms(const AllreduceCounts& counts, const std::string& link);

// The all-gather half of a sharded strategy's counts: a reduce-scatter and
// an all-gather send the same messages and bytes (Thakur, Rabenseifner and
// Gropp 2005: the ring's and halving-doubling's allreduce is exactly the
// two), and only the reduce-scatter adds. Half the calls, messages, bytes
// and contention; no additions.
AllreduceCounts gather_counts(const AllreduceCounts& counts);

// Costs every bucket of one strategy on one cluster and placement. Throws
// std::invalid_argument, in one line, for what it cannot cost: options
// (uncosted_reason), options the strategy itself refuses for the job
// (check_strategy_options: --compression on NCCL, more colocated shards than
// workers, ...), a GPU strategy on a CPU cluster, --compression on a cluster
// without its costs and without a compressed fit.
class BucketCoster {
 public:
  BucketCoster(const ClusterModel& cluster, const StrategyInfo& strategy, StrategyOptions options,
               WorkerPlacement placement);
  // One allreduce of `bytes`: its seconds, and the bytes it puts through the
  // busiest direction of the links its job spans (16-bit elements under
  // --compression; none for a strategy with its own model, which does not
  // count them), from one count.
  // A sharded strategy's call is a reduce-scatter and an all-gather that
  // run apart (the update between them): `gather_seconds` is the
  // all-gather's part of `seconds`, priced as the counts' second half
  // (gather_counts), or half a library model's ring (NCCL's); 0 for any
  // other strategy.
  struct Cost {
    double seconds = 0;
    std::optional<double> link_bytes;
    double gather_seconds = 0;
  };
  Cost cost(double bytes) const;
  double seconds(double bytes) const { return cost(bytes).seconds; }
  // e.g. "ring-mpi on inter: calibrated (o 41 us, alpha 12 us, 1.9 ns/B, gamma in beta)"
  const std::string& costed_as() const { return costed_as_; }

 private:
  double cast_seconds(double bytes) const;
  // What the link constants (a fit's, else the cluster file's) make of counts.
  double counted_seconds(const AllreduceCounts& counts) const;
  // The all-gather's share of a sharded strategy's `seconds` for `counts`,
  // which the link constants make `counted` seconds.
  double gather_share(const AllreduceCounts& counts, double counted) const;

  const ClusterModel& cluster_;
  const StrategyInfo& strategy_;
  StrategyOptions options_;
  WorkerPlacement placement_;
  CostParams params_, intra_params_;
  const StrategyFit* fit_ = nullptr;  // the calibrated fit it is priced by, if any
  int max_flows_ = 0;  // a fit's contention is not carried beyond the flows it saw (0: no cap)
  // No fit of compressed runs: the casts are paid on top (> 0), and 16-bit
  // additions cost this many fp32 ones per byte.
  double cast_bytes_per_s_ = 0;
  double sum_cost_ratio_ = 1;
  std::string costed_as_;
};

}  // namespace gradsync::sim
