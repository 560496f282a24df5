#include "harness/sim/strategy_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace gradsync::sim {
namespace {

std::string params_text(const CostParams& p, bool gamma_folded) {
  return fmt::format("o {:.1f} us, alpha {:.2f} us, {:.3g} Gbit/s, kappa {:.3f}, {}",
                     p.overhead_s * 1e6, p.alpha_s * 1e6,
                     p.beta_s_per_byte > 0 ? 8e-9 / p.beta_s_per_byte : 0.0,
                     p.beta_s_per_byte > 0 ? p.delta_s_per_byte / p.beta_s_per_byte : 0.0,
                     gamma_folded ? std::string("gamma in beta")
                                  : fmt::format("gamma {:.3g} ns/B", p.gamma_s_per_byte * 1e9));
}

// The flags of the test-only faults set in `options` (not their defaults).
std::string faults_set(const StrategyOptions& options) {
  std::string set;
  for (const OwnedOptionFlag& owned : changed_option_flags(options))
    if (owned.flag->test_only) set += (set.empty() ? "" : ", ") + std::string(owned.flag->flag);
  return set;
}

}  // namespace

std::string job_link(const StrategyInfo& strategy, const StrategyOptions& options,
                     const WorkerPlacement& placement) {
  if (placement.nodes() > 1) return "inter";
  if (strategy.dedicated_servers && strategy.dedicated_servers(options) > 0) return "inter";
  return "intra";
}

std::string uncosted_reason(const StrategyInfo& strategy, const StrategyOptions& options) {
  if (const std::string faults = faults_set(options); !faults.empty())
    return fmt::format("{}: test-only faults, not for measurements: the cost model does not "
                       "cost them",
                       faults);
  if (strategy.cost.uncosted)
    if (std::string why = strategy.cost.uncosted(options); !why.empty())
      return fmt::format("{}: {}", strategy.name, why);
  if (!strategy.cost.counts && !strategy.cost.library_model_seconds)
    return fmt::format("{}: its table entry declares no cost", strategy.name);
  return "";
}

AllreduceCounts strategy_counts(const StrategyInfo& strategy, const StrategyOptions& options,
                                double bytes, const WorkerPlacement& placement) {
  if (!strategy.cost.counts)
    throw std::invalid_argument(fmt::format(
        "{}: no counts to fit (the cost model uses its own model: {})", strategy.name,
        strategy.cost.form));
  AllreduceCounts c = strategy.cost.counts(bytes, options, placement);
  if (options.compression == Compression::none) return c;
  const double factor = double(element_bytes(options.compression)) / kFloatBytes;
  return {c.spanning.with_bytes_scaled(factor), c.intra.with_bytes_scaled(factor)};
}

CostTerms fitted_terms(const AllreduceCounts& counts, const std::string& link) {
  return link == "inter" ? counts.spanning : counts.total();
}

AllreduceCounts gather_counts(const AllreduceCounts& counts) {
  auto half = [](const CostTerms& t) {
    return CostTerms{.calls = t.calls / 2,
                     .messages = t.messages / 2,
                     .bytes = t.bytes / 2,
                     .reduced = 0,
                     .contended = t.contended / 2};
  };
  return {half(counts.spanning), half(counts.intra)};
}

BucketCoster::BucketCoster(const ClusterModel& cluster, const StrategyInfo& strategy,
                           StrategyOptions options, WorkerPlacement placement)
    : cluster_(cluster),
      strategy_(strategy),
      options_(std::move(options)),
      placement_(placement) {
  const std::string name(strategy_.name);
  if (const std::string why = uncosted_reason(strategy_, options_); !why.empty())
    throw std::invalid_argument(why);
  // What the strategy would refuse to run with, it is not costed with either.
  check_strategy_options(strategy_, options_,
                         job_ranks(strategy_, options_, placement_.workers));
  const std::string link = job_link(strategy_, options_, placement_);
  if (strategy_.memory == MemoryKind::device && cluster_.accelerator != "gpu")
    throw std::invalid_argument(fmt::format(
        "{} needs a GPU cluster (the cluster file's accelerator is \"{}\")", name,
        cluster_.accelerator));
  if (strategy_.cost.library_model_seconds) {
    costed_as_ = fmt::format("{} on {}: {} ({} within the node, {} between nodes)", name, link,
                             strategy_.cost.form, bits_text(cluster_.intra.bandwidth_bits_per_s.value),
                             bits_text(cluster_.inter.bandwidth_bits_per_s.value));
    return;
  }
  WorkerPlacement two = placement_;
  two.workers = std::max(2, placement_.workers);
  if (strategy_counts(strategy_, options_, 1 << 20, two).total().calls == 0) {
    costed_as_ = fmt::format("{}: {} (nothing moves)", name, strategy_.cost.form);
    return;
  }
  intra_params_ = cluster_.link_params("intra");
  const std::string compression(to_string(options_.compression));
  fit_ = cluster_.find_fit(name, link, placement_.workers, compression);
  std::string derived;
  if (!fit_ && options_.compression != Compression::none) {
    const auto costs = cluster_.compression_costs.find(compression);
    if (costs == cluster_.compression_costs.end())
      throw std::invalid_argument(fmt::format(
          "{} --compression {}: the cluster file has neither a fit of {} runs nor what {} costs "
          "(\"compression\": {{\"{}\": ...}}; `gradsync calibrate` measures it)",
          name, compression, compression, compression, compression));
    cast_bytes_per_s_ = costs->second.casts_bytes_per_s.value;
    sum_cost_ratio_ = costs->second.sum_cost_ratio.value;
    fit_ = cluster_.find_fit(name, link, placement_.workers);
    derived = fmt::format(
        "; {} elements: half the bytes, additions at {:.3g}x fp32's per byte, casts at {:.3g} "
        "GB/s ({})",
        compression, sum_cost_ratio_, cast_bytes_per_s_ / 1e9,
        costs->second.casts_bytes_per_s.source);
  }
  if (fit_) {
    params_ = fit_->params;
    max_flows_ = fit_->max_flows;
    const std::string of = fit_->compression == kUncompressed ? "" : " " + fit_->compression;
    if (!fit_->times_by_size.empty()) {
      costed_as_ = fmt::format(
          "{} on {}: measured{} times at {} workers, interpolated by size{} (its best alpha-beta "
          "line missed them by {:.0f}% median: the library switches algorithm with the size){}",
          name, link, of, fit_->black_box_workers,
          fit_->black_box_workers == placement_.workers
              ? std::string()
              : fmt::format(", scaled to {} workers by its counted bytes", placement_.workers),
          100 * fit_->median_abs_error, derived);
      return;
    }
    costed_as_ = fmt::format(
        "{} on {}: calibrated{}{} ({}; contention as measured, up to {} flows){}", name, link, of,
        fit_->black_box_workers > 0 ? fmt::format(" at {} workers", fit_->black_box_workers) : "",
        params_text(params_, fit_->gamma_folded), fit_->max_flows, derived);
  } else {
    params_ = cluster_.link_params(link);
    costed_as_ = fmt::format("{} on {}: link constants ({}; {}){}", name, link,
                             params_text(params_, false), strategy_.cost.form, derived);
  }
}

double BucketCoster::cast_seconds(double bytes) const {
  return cast_bytes_per_s_ > 0 ? bytes / cast_bytes_per_s_ : 0;
}

BucketCoster::Cost BucketCoster::cost(double bytes) const {
  const int p = placement_.workers;
  if (strategy_.cost.library_model_seconds) {
    if (p <= 1 || bytes <= 0) return {};
    const double seconds = strategy_.cost.library_model_seconds(
        bytes, placement_,
        {.nvlink = cluster_.intra.kind == "nvlink",
         .intra_bits_per_s = cluster_.intra.bandwidth_bits_per_s.value,
         .inter_bits_per_s = cluster_.inter.bandwidth_bits_per_s.value});
    // A library's sharded ring: its all-gather is half its allreduce's steps.
    return {.seconds = seconds,
            .gather_seconds = strategy_.sharding == Sharding::none ? 0.0 : seconds / 2};
  }
  if (p <= 1 || bytes <= 0) return {0, 0.0};
  AllreduceCounts counts = strategy_counts(strategy_, options_, bytes, placement_);
  if (counts.total().calls == 0) return {0, 0.0};  // nothing moves (`none`)
  counts.spanning.reduced *= sum_cost_ratio_;
  counts.intra.reduced *= sum_cost_ratio_;
  const double counted = counted_seconds(counts);
  Cost out{.seconds = counted + cast_seconds(bytes), .link_bytes = counts.spanning.bytes};
  if (fit_ && !fit_->times_by_size.empty()) {
    // Measured at p0 workers; another count scales by the counted bytes. A
    // table of fp32 runs stands for 16-bit elements at their wire size.
    WorkerPlacement there = placement_;
    there.workers = fit_->black_box_workers;
    const double here_bytes = counts.total().bytes;
    const double there_bytes = strategy_counts(strategy_, options_, bytes, there).total().bytes;
    const double measured_size =
        cast_bytes_per_s_ > 0
            ? bytes * double(element_bytes(options_.compression)) / kFloatBytes
            : bytes;
    out.seconds = table_seconds(fit_->times_by_size, measured_size) *
                      (there_bytes > 0 ? here_bytes / there_bytes : 1.0) +
                  cast_seconds(bytes);
  }
  out.gather_seconds = out.seconds * gather_share(counts, counted);
  return out;
}

double BucketCoster::counted_seconds(const AllreduceCounts& counts) const {
  if (!fit_) return params_.seconds(counts.spanning) + intra_params_.seconds(counts.intra);
  CostTerms terms = fitted_terms(counts, fit_->link);
  if (max_flows_ > 0) terms.contended = std::min(terms.contended, terms.bytes * (max_flows_ - 1));
  const double within = fit_->link == "inter" ? intra_params_.seconds(counts.intra) : 0;
  return params_.seconds(terms) + within;
}

double BucketCoster::gather_share(const AllreduceCounts& counts, double counted) const {
  if (strategy_.sharding == Sharding::none) return 0;
  return counted > 0 ? counted_seconds(gather_counts(counts)) / counted : 0.5;
}

}  // namespace gradsync::sim
