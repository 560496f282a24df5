#include "harness/sim/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "harness/engine/median.h"
#include "harness/sim/fit.h"

namespace gradsync::sim {
namespace {

constexpr const char* kColumns[] = {"per-call overhead o", "per-message latency alpha",
                                    "per-byte transfer beta", "per-byte reduction gamma",
                                    "contention delta"};
enum Column { kCalls = 0, kMessages = 1, kBytes = 2, kReduced = 3, kContended = 4 };

std::vector<double> columns(const CostTerms& t) {
  return {t.calls, t.messages, t.bytes, t.reduced, t.contended};
}

std::string size_text(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:g} MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return fmt::format("{:g} KiB", bytes / (1 << 10));
  return fmt::format("{:g} B", bytes);
}

// The link's own per-byte time between nodes, below which no strategy moves
// a byte through it: the beta of the fit that measures the link (see
// link_floors).
struct LinkFloor {
  double beta_s_per_byte = 0;
  std::string from;
};

// One (strategy, compression, link) group's fit; with a floor, beta is the
// floor plus what the strategy adds per byte of its own, fitted.
StrategyFit fit_group(const StrategyInfo& strategy, const std::string& compression,
                      const std::string& link, int workers_only,
                      const std::vector<const CalibrationPoint*>& group,
                      std::vector<PointFit>& out_points, const LinkFloor* floor = nullptr) {
  const std::string who =
      fmt::format("{}{} on {}{}", strategy.name,
                  compression == kUncompressed ? "" : " --compression " + compression,
                  link == "intra" ? "one host (intra)" : "several hosts (inter)",
                  workers_only > 0 ? fmt::format(" at {} workers", workers_only) : "");
  std::set<double> sizes, rates;
  std::set<int> workers;
  for (const auto* p : group) {
    sizes.insert(p->bytes);
    workers.insert(p->placement.workers);
    rates.insert(p->link_bits_per_s);
  }
  if (rates.size() > 1)
    throw CalibrationError(fmt::format(
        "{}: the points were measured at {} different link rates; calibrate one cluster at a time",
        who, rates.size()));
  if (sizes.size() < 2)
    throw CalibrationError(fmt::format(
        "{}: every point has the size {}, so latency cannot be told from bandwidth; measure at "
        "least two sizes (e.g. collectives -b 256K -e 64M)",
        who, size_text(*sizes.begin())));
  if (workers_only == 0 && workers.size() < 2)
    throw CalibrationError(fmt::format(
        "{}: every point has {} workers, so the per-call overhead cannot be told from the "
        "per-message latency, nor how either grows with the workers; measure at least two worker "
        "counts",
        who, *workers.begin()));

  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (const auto* p : group) {
    rows.push_back(
        columns(fitted_terms(strategy_counts(strategy, p->options, p->bytes, p->placement), link)));
    y.push_back(p->time_s);
  }
  // The most flows any point had arriving at once at a link: the model does
  // not carry the contention it fits beyond what it saw.
  int max_flows = 1;
  for (const auto& r : rows)
    if (r[kBytes] > 0) max_flows = std::max(max_flows, int(std::lround(1 + r[kContended] / r[kBytes])));
  // gamma, then alpha, may move in step with beta: a ring's reduced bytes
  // are always half its transferred bytes, and when every message is a
  // whole segment (no size below the segment) the messages are the bytes
  // over the segment. Such a constant is folded into beta (set to 0), which
  // predicts the strategy as well over the sizes measured; anything else
  // the data cannot identify is refused.
  std::vector<bool> use(5, true);
  bool gamma_folded = false, alpha_folded = false;
  // At one worker count a black box's time is a constant plus a rate: its
  // message count is fixed, so alpha is the per-call overhead's.
  if (workers_only > 0) {
    use[kMessages] = false;
    for (auto& r : rows) r[kMessages] = 0;
  }
  // Nearly is enough to fold: a constant the others explain to within 1% of
  // its squared norm (10% of its size) would only be split from them by the
  // noise (e.g. a tree's reduced bytes against its transferred bytes).
  auto fold_if_collinear = [&](int column) {
    if (unidentifiable_columns(rows, y, 1e-2)[column] == -1) return false;
    use[column] = false;
    for (auto& r : rows) r[column] = 0;
    return true;
  };
  // Contention the data never vary (one flow per link, or always the same
  // number) is part of beta: nothing to fit.
  const bool contention_folded = fold_if_collinear(kContended);
  gamma_folded = fold_if_collinear(kReduced);
  if (unidentifiable_columns(rows, y)[kMessages] == kBytes) alpha_folded = fold_if_collinear(kMessages);
  const auto again = unidentifiable_columns(rows, y);
  for (int c : {kCalls, kMessages, kBytes})
    if (use[c] && again[c] != -1)
      throw CalibrationError(fmt::format(
          "{}: the data cannot identify the {} ({}); measure more sizes and worker counts", who,
          kColumns[c],
          again[c] >= 0 ? fmt::format("it moves in step with the {}", kColumns[again[c]])
                        : std::string("the other constants explain it")));

  std::vector<double> known;
  if (floor != nullptr)
    for (const auto& r : rows) known.push_back(r[kBytes] * floor->beta_s_per_byte);
  const FitResult fit = fit_nonnegative(rows, y, use, known);
  StrategyFit f;
  f.strategy = strategy.name;
  f.compression = compression;
  f.link = link;
  const double link_beta = floor != nullptr ? floor->beta_s_per_byte : 0;
  f.params = {fit.coefficients[kCalls], fit.coefficients[kMessages],
              link_beta + fit.coefficients[kBytes], fit.coefficients[kReduced],
              fit.coefficients[kContended]};
  if (floor != nullptr) {
    f.link_beta_s_per_byte = link_beta;
    f.link_beta_from = floor->from;
  }
  (void)contention_folded;
  f.gamma_folded = gamma_folded;
  f.alpha_folded = alpha_folded;
  f.link_bits_per_s = *rates.begin();
  f.max_flows = max_flows;
  f.workers_only = workers_only;
  f.points = int(group.size());
  f.workers.assign(workers.begin(), workers.end());
  f.sizes.assign(sizes.begin(), sizes.end());
  std::vector<double> errors;
  std::set<std::string> files;
  for (std::size_t i = 0; i < group.size(); ++i) {
    PointFit pf{group[i], link, fit.predicted[i]};
    errors.push_back(std::abs(pf.error()));
    if (errors.back() >= f.worst_abs_error) {
      f.worst_abs_error = errors.back();
      f.worst_point = fmt::format("{} at {} workers: {:.4g} s measured, {:.4g} s fitted",
                                  size_text(group[i]->bytes), group[i]->placement.workers,
                                  group[i]->time_s, pf.fitted_s);
    }
    out_points.push_back(pf);
    files.insert(group[i]->origin.substr(0, group[i]->origin.rfind(':')));
  }
  f.median_abs_error = median(errors);
  // A black box is tabulated: its time by size as measured (the mean of
  // repeated sizes), its alpha-beta line kept only to show how far it missed.
  if (workers_only > 0) {
    std::map<double, std::pair<double, int>> by_size;
    for (const auto* p : group) {
      auto& [sum, count] = by_size[p->bytes];
      sum += p->time_s;
      ++count;
    }
    for (const auto& [size, sum_count] : by_size)
      f.table.emplace_back(size, sum_count.first / sum_count.second);
    for (std::size_t i = out_points.size() - group.size(); i < out_points.size(); ++i)
      out_points[i].fitted_s = table_seconds(f.table, out_points[i].point->bytes);
  }
  for (const auto& file : files) f.from += (f.from.empty() ? "" : ", ") + file;
  return f;
}

}  // namespace

Calibration calibrate(std::span<const CalibrationPoint> points) {
  Calibration out;
  // (strategy, compression, link, worker count for a black box else 0)
  using Key = std::tuple<const StrategyInfo*, std::string, std::string, int>;
  std::map<Key, std::vector<const CalibrationPoint*>> groups;
  std::vector<Key> order;
  std::map<std::string, int> skipped_single, skipped_own, skipped_nothing;
  std::map<std::string, std::pair<int, std::string>> skipped_uncosted;
  for (const auto& p : points) {
    const StrategyInfo& strategy = *p.strategy;
    const std::string name(strategy.name);
    if (const std::string why = uncosted_reason(strategy, p.options); !why.empty()) {
      auto& [n, reason] = skipped_uncosted[name];
      ++n;
      reason = why;
      continue;
    }
    if (strategy.cost.own_seconds) {
      ++skipped_own[name];
      continue;
    }
    if (p.placement.workers < 2 || p.bytes <= 0 || !(p.time_s > 0)) {
      ++skipped_single[name];
      continue;
    }
    if (strategy_counts(strategy, p.options, p.bytes, p.placement).total().calls == 0) {
      ++skipped_nothing[name];
      continue;
    }
    const auto key = Key{&strategy, std::string(to_string(p.options.compression)),
                         job_link(strategy, p.options, p.placement),
                         strategy.cost.per_workers ? p.placement.workers : 0};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&p);
  }
  for (const auto& [s, n] : skipped_own)
    out.notes.push_back(fmt::format("{}: {} points left out: its cost is {}, which is not fitted",
                                    s, n, find_strategy(s).cost.form));
  for (const auto& [s, n] : skipped_nothing)
    out.notes.push_back(fmt::format(
        "{}: {} points left out: it moves nothing between workers, so there is nothing to fit", s,
        n));
  for (const auto& [s, n_why] : skipped_uncosted)
    out.notes.push_back(fmt::format("{}: {} points left out: {}", s, n_why.first, n_why.second));
  for (const auto& [s, n] : skipped_single)
    out.notes.push_back(fmt::format(
        "{}: {} points at one worker or of size 0 left out (nothing crosses a link)", s, n));
  if (groups.empty()) {
    std::string why;
    for (const auto& note : out.notes) why += "; " + note;
    throw CalibrationError(
        "no allreduce times of 2 or more workers under a strategy that moves data to calibrate "
        "from (the files need collectives records of a strategy of `gradsync strategies`)" + why);
  }
  // The link floor, per link rate between nodes: the fp32 fit of a strategy
  // whose entry says its constants are the link's (a ring: one flow per
  // link, nothing but the link between its bytes), the most points, the
  // smallest error. Every other fit between nodes at that rate is fitted
  // above it. Without it, data whose transferred and reduced bytes grow
  // together (a binary tree at 2 and 4 workers) can put the link's time in
  // gamma, which is right where it was measured and wrong at 8 workers,
  // where the tree's busiest link carries 3 buffers but adds only 2.
  // Within one host there is no floor: there the "link" is the cores'
  // memory copies, which strategies use in ways of their own.
  struct Floor {
    Key key;
    StrategyFit fit;              // fitted free; it takes its place among the fits below
    std::vector<PointFit> points;
  };
  std::map<double, Floor> floors;  // by link rate
  for (const auto& key : order) {
    const StrategyInfo& strategy = *std::get<0>(key);
    if (std::get<2>(key) != "inter" || std::get<1>(key) != kUncompressed || std::get<3>(key) != 0 ||
        !strategy.cost.measures_links)
      continue;
    Floor candidate{key, {}, {}};
    candidate.fit = fit_group(strategy, std::get<1>(key), "inter", 0, groups[key], candidate.points);
    auto rank = [](const StrategyFit& x) {
      return std::tuple(x.max_flows == 1, x.points, -x.median_abs_error);
    };
    auto it = floors.find(candidate.fit.link_bits_per_s);
    if (it == floors.end() || rank(candidate.fit) > rank(it->second.fit))
      floors.insert_or_assign(candidate.fit.link_bits_per_s, std::move(candidate));
  }
  for (const auto& key : order) {
    const auto it = floors.find(groups[key].front()->link_bits_per_s);
    const bool between_nodes = std::get<2>(key) == "inter" && std::get<3>(key) == 0;
    if (it != floors.end() && it->second.key == key) {  // the floor itself
      out.fits.push_back(it->second.fit);
      out.points.insert(out.points.end(), it->second.points.begin(), it->second.points.end());
      continue;
    }
    std::optional<LinkFloor> floor;
    if (between_nodes && it != floors.end())
      floor = LinkFloor{it->second.fit.params.beta_s_per_byte,
                        fmt::format("1 / beta of the {} fit on inter", it->second.fit.strategy)};
    out.fits.push_back(fit_group(*std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                 std::get<3>(key), groups[key], out.points,
                                 floor ? &*floor : nullptr));
  }
  return out;
}

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
  // The fit that says most about a link itself: fp32, over every worker
  // count, of a strategy whose entry says its constants are the link's
  // (StrategyCost::measures_links: a ring), one flow per link (no incast in
  // its data), the most points, the smallest error.
  auto measures_links = [](const StrategyFit& x) {
    const StrategyInfo* entry = strategy_named(x.strategy);
    return entry && entry->cost.measures_links;
  };
  auto better = [&](const StrategyFit* chosen, const StrategyFit& f) {
    auto rank = [&](const StrategyFit& x) {
      return std::tuple(x.compression == kUncompressed, x.workers_only == 0, measures_links(x),
                        x.max_flows == 1, x.points, -x.median_abs_error);
    };
    return chosen == nullptr || rank(f) > rank(*chosen);
  };
  auto link_from = [&](const std::string& link, LinkClass& c) {
    const StrategyFit* chosen = nullptr;
    for (const auto& f : calibration.fits)
      if (f.link == link && better(chosen, f)) chosen = &f;
    if (chosen == nullptr) {
      const StrategyFit* other = nullptr;
      for (const auto& f : calibration.fits)
        if (better(other, f)) other = &f;
      c.bandwidth_bits_per_s = {8.0 / other->params.beta_s_per_byte, "assumed",
                                fmt::format("no {} points: taken from {} on {}", link,
                                            other->strategy, other->link)};
      c.latency_s = {other->params.alpha_s, "assumed",
                     fmt::format("no {} points: taken from {} on {}", link, other->strategy,
                                 other->link)};
      return;
    }
    const std::string shaped = chosen->link_bits_per_s > 0
                                   ? fmt::format("; the link was shaped to {}",
                                                 bits_text(chosen->link_bits_per_s))
                                   : "";
    c.bandwidth_bits_per_s = {8.0 / chosen->params.beta_s_per_byte, "calibrated",
                              fmt::format("1 / beta of the {} fit{}", chosen->strategy, shaped)};
    c.latency_s = {chosen->params.alpha_s, "calibrated",
                   fmt::format("alpha of the {} fit (its per-message overhead included)",
                               chosen->strategy)};
  };
  link_from("inter", m.inter);
  link_from("intra", m.intra);
  m.per_message_s = {0, "calibrated", "included in each link's latency (the fits' alpha)"};
  const StrategyFit* with_gamma = nullptr;
  for (const auto& f : calibration.fits)
    if (f.compression == kUncompressed && !f.gamma_folded && f.params.gamma_s_per_byte > 0 &&
        with_gamma == nullptr)
      with_gamma = &f;
  if (with_gamma != nullptr)
    m.reduce_bytes_per_s = {1.0 / with_gamma->params.gamma_s_per_byte, "calibrated",
                            fmt::format("1 / gamma of the {} fit on {}", with_gamma->strategy,
                                        with_gamma->link)};
  else
    m.reduce_bytes_per_s = {local.reduce_bytes_per_s, "measured",
                            "no fit could tell gamma from beta: the reduction kernel "
                            "(strategies/core/reduce_kernel.h) timed on the machine that ran "
                            "calibrate, 64 MiB"};
  m.server_hosts = {0, "assumed", "none described; edit to add dedicated server hosts"};
  m.host_cores = {
      static_cast<double>(std::max(1u, std::thread::hardware_concurrency())), "measured",
      "the cores the machine that ran calibrate reports (the input stage's loaders share "
      "them)"};
  for (const auto& [format, rates] : local.compression)
    m.compression[format] = {
        {rates.casts_bytes_per_s, "measured",
         fmt::format("the casts of --compression {} (fp32 to 16 bits and back, "
                     "strategies/core/compression.h) timed on the machine that ran calibrate, "
                     "64 MiB, in fp32 bytes per second",
                     format)},
        {rates.sum_cost_ratio, "measured",
         fmt::format("the time per byte of reduce_kernel.h's {} sum over that of its fp32 sum, "
                     "both timed on the machine that ran calibrate, 64 MiB",
                     format)}};
  return m;
}

}  // namespace gradsync::sim
