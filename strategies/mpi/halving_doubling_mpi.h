#pragma once
// `halving-doubling-mpi`: see halving_doubling_mpi.cc for the algorithm and its cost.

#include <cstddef>
#include <memory>
#include <vector>

#include "strategies/core/cost.h"
#include "strategies/core/partition.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

// One exchange of the recursive halving: this rank sends `send` to `partner`
// (a rank of the job) and adds the partner's copy of `keep` into its own. The
// recursive doubling runs the steps backwards, sending `keep` and receiving
// `send` into place. `send` and `keep` are adjacent halves of the range the
// previous step kept.
struct HalvingStep {
  int partner = -1;
  Range send;
  Range keep;
  bool operator==(const HalvingStep&) const = default;
};

// What rank `rank` of `size` does in a halving-doubling allreduce of `count`
// elements. With p' the largest power of two <= size and r = size - p', ranks
// 2i and 2i+1 (i < r) form a pair: they swap halves and sum (the even rank
// keeps the first half), the even one sends its summed half to the odd one and
// sits out (`folded`); the odd one and the ranks from 2r on run the halving
// steps among p' ranks, then the odd one sends the whole result back.
struct HalvingDoublingPlan {
  int pair = -1;        // the other rank of this rank's pair; -1: not paired
  bool folded = false;  // the even rank of a pair: no steps, gets the result from `pair`
  Range pair_send;      // the half sent to `pair`; the other half, `pair_keep`, is
  Range pair_keep;      // summed here (and, when folded, then sent to `pair`)
  std::vector<HalvingStep> steps;  // log2 p' steps, partners at distance 1, 2, 4, ...
};

HalvingDoublingPlan halving_doubling_plan(int rank, int size, std::size_t count);

std::unique_ptr<Strategy> make_halving_doubling_mpi(const World& world,
                                                    const StrategyOptions& options);

// Rabenseifner's counts as halving-doubling-mpi runs it (see
// halving_doubling_mpi.cc): pairs folded first for a p that is not a power
// of two, every message in the segments of a job on one host or across
// hosts. halving_doubling_mpi_counts takes the latency path's counts
// (short_allreduce.h) up to --short-allreduce.
CostTerms halving_doubling_mpi_terms(double bytes, int p, bool spans_hosts);
// The same by link, ranks filling nodes of `per_node` in order: the steps
// within a node as intra, those across carrying every rank of the node.
AllreduceCounts halving_doubling_mpi_split(double bytes, int p, bool spans_hosts, int per_node);
AllreduceCounts halving_doubling_mpi_counts(double bytes, const StrategyOptions& options,
                                            const WorkerPlacement& placement);

}  // namespace gradsync
