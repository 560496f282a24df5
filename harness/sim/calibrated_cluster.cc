// calibrated_cluster (calibration.h): the cluster file `gradsync calibrate`
// writes, from the fits and what the machine that ran it measured.
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "harness/sim/calibration.h"

namespace gradsync::sim {
namespace {

// A link class's bandwidth and latency from the fit that measures it best
// (best_link_fit among the fits on that link); without a fit on it, from
// the best fit on the other link, as an assumption that says so.
void set_link_constants(const std::vector<StrategyFit>& fits, const std::string& link,
                        LinkClass& c) {
  const StrategyFit* chosen =
      best_link_fit(fits, [&](const StrategyFit& f) { return f.link == link; });
  if (chosen == nullptr) {
    const StrategyFit* other = best_link_fit(fits, [](const StrategyFit&) { return true; });
    const std::string note =
        fmt::format("no {} points: taken from {} on {}", link, other->strategy, other->link);
    c.bandwidth_bits_per_s = {8.0 / other->params.beta_s_per_byte, "assumed", note};
    c.latency_s = {other->params.alpha_s, "assumed", note};
    return;
  }
  const std::string shaped =
      chosen->link_bits_per_s > 0
          ? fmt::format("; the link was shaped to {}", bits_text(chosen->link_bits_per_s))
          : "";
  c.bandwidth_bits_per_s = {8.0 / chosen->params.beta_s_per_byte, "calibrated",
                            fmt::format("1 / beta of the {} fit{}", chosen->strategy, shaped)};
  c.latency_s = {
      chosen->params.alpha_s, "calibrated",
      fmt::format("alpha of the {} fit (its per-message overhead included)", chosen->strategy)};
}

// How fast a worker adds bytes: 1 / gamma of the first fp32 fit that could
// tell gamma from beta and found it above 0, else as this machine measured.
Sourced reduce_rate(const std::vector<StrategyFit>& fits, const LocalRates& local) {
  const auto with_gamma = std::find_if(fits.begin(), fits.end(), [](const StrategyFit& f) {
    return f.compression == kUncompressed && !f.gamma_folded && f.params.gamma_s_per_byte > 0;
  });
  if (with_gamma != fits.end())
    return {1.0 / with_gamma->params.gamma_s_per_byte, "calibrated",
            fmt::format("1 / gamma of the {} fit on {}", with_gamma->strategy, with_gamma->link)};
  return {local.reduce_bytes_per_s, "measured",
          "no fit could tell gamma from beta: the reduction kernel "
          "(strategies/core/reduce_kernel.h) timed on the machine that ran calibrate, 64 MiB"};
}

// What --compression costs per 16-bit format, as this machine measured.
std::map<std::string, CompressionCosts> compression_costs(const LocalRates& local) {
  std::map<std::string, CompressionCosts> out;
  for (const auto& [format, rates] : local.compression_costs)
    out[format] = {
        {rates.casts_bytes_per_s, "measured",
         fmt::format("the casts of --compression {} (fp32 to 16 bits and back, "
                     "strategies/core/compression.h) timed on the machine that ran calibrate, "
                     "64 MiB, in fp32 bytes per second",
                     format)},
        {rates.sum_cost_ratio, "measured",
         fmt::format("the time per byte of reduce_kernel.h's {} sum over that of its fp32 sum, "
                     "both timed on the machine that ran calibrate, 64 MiB",
                     format)}};
  return out;
}

}  // namespace

ClusterModel calibrated_cluster(const Calibration& calibration,
                                std::span<const CalibrationPoint> points, const LocalRates& local,
                                std::string name) {
  ClusterModel m;
  m.name = std::move(name);
  m.fits = calibration.fits;
  for (const auto& p : points) {
    m.nodes = std::max(m.nodes, p.placement.nodes());
    m.workers_per_node = std::max(m.workers_per_node, p.placement.workers_per_node);
  }
  m.description = fmt::format("calibrated by gradsync calibrate from {} points", points.size());
  set_link_constants(calibration.fits, "inter", m.inter);
  set_link_constants(calibration.fits, "intra", m.intra);
  m.per_message_s = {0, "calibrated", "included in each link's latency (the fits' alpha)"};
  m.reduce_bytes_per_s = reduce_rate(calibration.fits, local);
  m.server_hosts = {0, "assumed", "none described; edit to add dedicated server hosts"};
  m.host_cores = {
      static_cast<double>(std::max(1u, std::thread::hardware_concurrency())), "measured",
      "the cores the machine that ran calibrate reports (the input stage's loaders share "
      "them)"};
  m.compression_costs = compression_costs(local);
  return m;
}

}  // namespace gradsync::sim
