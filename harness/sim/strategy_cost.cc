#include "harness/sim/strategy_cost.h"

#include <fmt/format.h>

#include <stdexcept>

#include "strategies/mpi/tree_mpi.h"

namespace gradsync::sim {
namespace {

constexpr SimAlgorithm kAlgorithms[] = {
    {"ring-mpi", "ring: 2(p-1) steps of one chunk in segments (Thakur et al.)", false},
    {"tree-mpi", "heap-ordered binary tree, reduce and broadcast pipelined at once", false},
    {"ps-zmq", "parameter server: per-host push/pull traffic with incast at the shards", false},
    {"mpi-allreduce", "whatever the MPI library picks, counted as recursive halving-doubling "
                      "(Rabenseifner) and calibrated per worker count", false, true},
    {"nccl-ring", "NCCL's own model (tuning.cc), ring", false},
    {"nccl-tree", "NCCL's own model (tuning.cc), tree", false},
    {"none", "nothing: compute only", false},
    {"double-tree", "two complementary binary trees, half the buffer each (model only)", true},
    {"halving-doubling", "recursive halving-doubling (model only)", true},
    {"hierarchical", "reduce within the node, ring among node leaders, broadcast within (model "
                     "only)", true},
};

bool is_nccl(std::string_view s) { return s == "nccl-ring" || s == "nccl-tree"; }

std::string params_text(const CostParams& p, bool gamma_folded) {
  return fmt::format("o {:.1f} us, alpha {:.2f} us, {:.3g} Gbit/s, kappa {:.3f}, {}",
                     p.overhead_s * 1e6, p.alpha_s * 1e6,
                     p.beta_s_per_byte > 0 ? 8e-9 / p.beta_s_per_byte : 0.0,
                     p.beta_s_per_byte > 0 ? p.delta_s_per_byte / p.beta_s_per_byte : 0.0,
                     gamma_folded ? std::string("gamma in beta")
                                  : fmt::format("gamma {:.3g} ns/B", p.gamma_s_per_byte * 1e9));
}

}  // namespace

std::span<const SimAlgorithm> sim_algorithms() { return kAlgorithms; }

const SimAlgorithm& find_sim_algorithm(std::string_view name) {
  std::string known;
  for (const auto& a : kAlgorithms) {
    if (a.name == name) return a;
    known += (known.empty() ? "" : ", ") + std::string(a.name);
  }
  throw std::invalid_argument(
      fmt::format("unknown strategy '{}' for the cost model (known: {})", name, known));
}

std::string Placement::link(const StrategyOptions& options, std::string_view strategy) const {
  if (nodes() > 1) return "inter";
  if (strategy == "ps-zmq" && options.ps.placement == PsPlacement::dedicated) return "inter";
  return "intra";
}

CostTerms strategy_terms(std::string_view strategy, const StrategyOptions& options, double bytes,
                         const Placement& placement) {
  const int p = placement.workers;
  if (strategy == "ring-mpi") return ring_terms(bytes, p, double(options.ring.segment_bytes));
  if (strategy == "tree-mpi") return binary_tree_terms(bytes, p, double(tree_segment_bytes(options.tree, placement.nodes() > 1)));
  if (strategy == "mpi-allreduce") return halving_doubling_terms(bytes, p);
  if (strategy == "ps-zmq") {
    PsLayout layout;
    layout.workers = p;
    layout.workers_per_host = placement.workers_per_node;
    layout.shards = options.ps.servers;
    layout.dedicated = options.ps.placement == PsPlacement::dedicated;
    layout.server_hosts = placement.server_hosts;
    layout.partition_bytes = double(options.ps.partition_bytes);
    return ps_terms(bytes, layout);
  }
  throw std::invalid_argument(fmt::format(
      "{}: no measured constants can be fitted for it (the cost model {})", strategy,
      is_nccl(strategy) ? "uses NCCL's own model" : "costs it from the link constants"));
}

BucketCoster::BucketCoster(const ClusterModel& cluster, std::string strategy,
                           StrategyOptions options, Placement placement)
    : cluster_(cluster),
      strategy_(std::move(strategy)),
      options_(std::move(options)),
      placement_(placement) {
  const SimAlgorithm& algorithm = find_sim_algorithm(strategy_);
  const std::string link = placement_.link(options_, strategy_);
  if (is_nccl(strategy_)) {
    if (cluster_.accelerator != "gpu")
      throw std::invalid_argument(fmt::format(
          "{} needs a GPU cluster (the cluster file's accelerator is \"{}\")", strategy_,
          cluster_.accelerator));
    costed_as_ = fmt::format("{} on {}: NCCL's own model ({} within the node, {} between nodes)",
                             strategy_, link, bits_text(cluster_.intra.bandwidth_bits_per_s.value),
                             bits_text(cluster_.inter.bandwidth_bits_per_s.value));
    return;
  }
  if (strategy_ == "none") {
    costed_as_ = "none: no communication";
    return;
  }
  intra_params_ = cluster_.link_params("intra");
  if (const StrategyFit* fit =
          algorithm.model_only ? nullptr : cluster_.find_fit(strategy_, link, placement_.workers)) {
    params_ = fit->params;
    max_flows_ = fit->max_flows;
    if (!fit->table.empty()) {
      table_fit_ = fit;
      costed_as_ = fmt::format(
          "{} on {}: measured times at {} workers, interpolated by size{} (its best alpha-beta "
          "line missed them by {:.0f}% median: the library switches algorithm with the size)",
          strategy_, link, fit->workers_only,
          fit->workers_only == placement_.workers
              ? std::string()
              : fmt::format(", scaled to {} workers by halving-doubling's bytes",
                            placement_.workers),
          100 * fit->median_abs_error);
      return;
    }
    costed_as_ = fmt::format(
        "{} on {}: calibrated{} ({}; contention as measured, up to {} flows)", strategy_, link,
        fit->workers_only > 0 ? fmt::format(" at {} workers", fit->workers_only) : "",
        params_text(params_, fit->gamma_folded), fit->max_flows);
  } else {
    params_ = cluster_.link_params(link);
    costed_as_ = fmt::format("{} on {}: link constants ({}; {})", strategy_, link,
                             params_text(params_, false), algorithm.costed_as);
  }
}

double BucketCoster::seconds(double bytes) const {
  const int p = placement_.workers;
  if (strategy_ == "none" || p <= 1 || bytes <= 0) return 0;
  if (is_nccl(strategy_)) {
    NcclSystem system;
    system.ranks = p;
    system.nodes = placement_.nodes();
    system.intra = cluster_.intra.kind == "nvlink" ? IntraLink::nvlink : IntraLink::pci;
    system.intra_bus_gbps = cluster_.intra.bandwidth_bits_per_s.value / 8e9;
    system.inter_bus_gbps = cluster_.inter.bandwidth_bits_per_s.value / 8e9;
    return nccl_allreduce_time(bytes, strategy_ == "nccl-ring" ? NcclAlgo::ring : NcclAlgo::tree,
                               system)
        .seconds;
  }
  if (strategy_ == "double-tree")
    return params_.seconds(double_tree_terms(
        bytes, p, double(tree_segment_bytes(options_.tree, placement_.nodes() > 1))));
  if (strategy_ == "halving-doubling") return params_.seconds(halving_doubling_terms(bytes, p));
  if (strategy_ == "hierarchical") {
    const auto terms = hierarchical_terms(bytes, placement_.nodes(), placement_.workers_per_node,
                                          double(options_.ring.segment_bytes));
    return intra_params_.seconds(terms.intra) + params_.seconds(terms.inter);
  }
  if (table_fit_) {
    // Measured at p0 workers; another count scales by the counted bytes.
    const int p0 = table_fit_->workers_only;
    const double here = halving_doubling_terms(bytes, p).bytes;
    const double there = halving_doubling_terms(bytes, p0).bytes;
    return table_seconds(table_fit_->table, bytes) * (there > 0 ? here / there : 1.0);
  }
  CostTerms terms = strategy_terms(strategy_, options_, bytes, placement_);
  if (max_flows_ > 0) terms.contended = std::min(terms.contended, terms.bytes * (max_flows_ - 1));
  return params_.seconds(terms);
}

}  // namespace gradsync::sim
