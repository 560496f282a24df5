#include "harness/sim/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "harness/engine/median.h"
#include "harness/sim/calibration_columns.h"
#include "harness/sim/fit.h"

namespace gradsync::sim {
namespace {

std::string size_text(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:g} MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return fmt::format("{:g} KiB", bytes / (1 << 10));
  return fmt::format("{:g} B", bytes);
}

// The points one fit explains: one strategy, --compression and link class,
// and for a black box (StrategyCost::per_workers) one worker count.
struct Group {
  const StrategyInfo* strategy = nullptr;
  std::string compression;
  std::string link;
  int black_box_workers = 0;  // the black box's worker count; 0: every worker count
  std::vector<const CalibrationPoint*> points;

  bool between_nodes() const { return link == "inter" && black_box_workers == 0; }
  // Whether its fit may set the link's floor (see choose_floors).
  bool may_set_floor() const {
    return between_nodes() && compression == kUncompressed && strategy->cost.measures_links;
  }
  // "tree-mpi --compression fp16 on several hosts (inter)"
  std::string label() const {
    return fmt::format(
        "{}{} on {}{}", strategy->name,
        compression == kUncompressed ? "" : " --compression " + compression,
        link == "intra" ? "one host (intra)" : "several hosts (inter)",
        black_box_workers > 0 ? fmt::format(" at {} workers", black_box_workers) : "");
  }
};

// The link's own per-byte time between nodes, below which no strategy moves
// a byte through it: the beta of the fit that measures the link (see
// choose_floors).
struct LinkFloor {
  double beta_s_per_byte = 0;
  std::string from;
  // How far the floor's own points ran ahead of its fit at most (a share of
  // the fitted time): the scatter of the link's measurements about its line.
  double ahead = 0;
};

// The share by which the fastest of a fit's points ran ahead of it.
double most_ahead(std::span<const PointFit> points) {
  double ahead = 0;
  for (const auto& p : points) ahead = std::max(ahead, 1 - p.point->time_s / p.fitted_s);
  return ahead;
}

// What a group's points cover.
struct Coverage {
  std::set<double> sizes, rates;
  std::set<int> workers;
};

// The group's coverage, refusing with one line one that cannot tell the
// constants apart whatever the fit: two link rates, one size, or (over
// every worker count) one worker count.
Coverage checked_coverage(const Group& g) {
  Coverage c;
  for (const auto* p : g.points) {
    c.sizes.insert(p->bytes);
    c.workers.insert(p->placement.workers);
    c.rates.insert(p->link_bits_per_s);
  }
  const std::string who = g.label();
  if (c.rates.size() > 1)
    throw CalibrationError(fmt::format(
        "{}: the points were measured at {} different link rates; calibrate one cluster at a time",
        who, c.rates.size()));
  if (c.sizes.size() < 2)
    throw CalibrationError(fmt::format(
        "{}: every point has the size {}, so latency cannot be told from bandwidth; measure at "
        "least two sizes (e.g. collectives -b 256K -e 64M)",
        who, size_text(*c.sizes.begin())));
  if (g.black_box_workers == 0 && c.workers.size() < 2)
    throw CalibrationError(fmt::format(
        "{}: every point has {} workers, so the per-call overhead cannot be told from the "
        "per-message latency, nor how either grows with the workers; measure at least two worker "
        "counts",
        who, *c.workers.begin()));
  return c;
}

// The group's design matrix (calibration_columns.h), a row per point, and
// its measured times.
struct Design {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
};

Design design_of(const Group& g) {
  Design d;
  for (const auto* p : g.points) {
    d.rows.push_back(cost_row(
        fitted_terms(strategy_counts(*g.strategy, p->options, p->bytes, p->placement), g.link)));
    d.y.push_back(p->time_s);
  }
  return d;
}

// The group without its points that ran ahead of the link floor: measured
// faster than the floor alone takes for the bytes their counts put through
// the busiest link, by more than the floor's own points ever ran ahead of
// it. A fit above the floor cannot reach them, so fitted they would only
// pull the strategy's other constants towards 0 (its loss per converging
// flow above all); they went faster than the link's rate because an
// emulated link's token bucket passed their first bytes at once, or because
// the strategy overlapped more than its counts say. Kept whole when too few
// sizes or worker counts would be left to fit. `left_out` gets how many went.
Group above_floor(const Group& g, const LinkFloor& floor, int& left_out) {
  Group kept = g;
  kept.points.clear();
  std::set<double> sizes;
  std::set<int> workers;
  const Design d = design_of(g);
  for (std::size_t i = 0; i < g.points.size(); ++i) {
    const CalibrationPoint* p = g.points[i];
    if (p->time_s < d.rows[i][kBytes] * floor.beta_s_per_byte * (1 - floor.ahead)) continue;
    kept.points.push_back(p);
    sizes.insert(p->bytes);
    workers.insert(p->placement.workers);
  }
  left_out = int(g.points.size() - kept.points.size());
  if (left_out == 0 || sizes.size() < 2 || workers.size() < 2) {
    left_out = 0;
    return g;
  }
  return kept;
}

// The most flows any point had arriving at once at a link: the model does
// not carry the contention it fits beyond what it saw.
int max_flows_of(const Design& d) {
  int max_flows = 1;
  for (const auto& r : d.rows)
    if (r[kBytes] > 0)
      max_flows = std::max(max_flows, int(std::lround(1 + r[kContended] / r[kBytes])));
  return max_flows;
}

// Appends each point's fitted time to `out`, and records in `f` the fit's
// median and worst error (the last of equal worst points named) and the
// files its points came from.
void record_points(const Group& g, const std::vector<double>& predicted, StrategyFit& f,
                   std::vector<PointFit>& out) {
  std::vector<double> errors;
  std::set<std::string> files;
  for (std::size_t i = 0; i < g.points.size(); ++i) {
    const CalibrationPoint& p = *g.points[i];
    const PointFit pf{&p, g.link, predicted[i]};
    errors.push_back(std::abs(pf.error()));
    if (errors.back() >= f.worst_abs_error) {
      f.worst_abs_error = errors.back();
      f.worst_point = fmt::format("{} at {} workers: {:.4g} s measured, {:.4g} s fitted",
                                  size_text(p.bytes), p.placement.workers, p.time_s, pf.fitted_s);
    }
    out.push_back(pf);
    files.insert(p.origin.substr(0, p.origin.rfind(':')));
  }
  f.median_abs_error = median(errors);
  for (const auto& file : files) f.from += (f.from.empty() ? "" : ", ") + file;
}

// A black box is tabulated: its time by size as measured (the mean of
// repeated sizes), its alpha-beta line kept only to show how far it missed;
// its points' fitted times become the table's.
void tabulate(const Group& g, StrategyFit& f, std::span<PointFit> points) {
  std::map<double, std::pair<double, int>> by_size;
  for (const auto* p : g.points) {
    auto& [sum, count] = by_size[p->bytes];
    sum += p->time_s;
    ++count;
  }
  for (const auto& [size, sum_count] : by_size)
    f.times_by_size.emplace_back(size, sum_count.first / sum_count.second);
  for (auto& p : points) p.fitted_s = table_seconds(f.times_by_size, p.point->bytes);
}

// The fit routine: one group's constants by non-negative least squares on
// relative error (fit.h) over its design matrix, fitting the columns
// choose_columns keeps (the collinearity step, calibration_columns.h). With
// a floor, beta is the floor plus what the strategy adds per byte of its
// own, fitted: the floor's part of each time is held fixed. Appends the
// group's points, with their fitted times, to `out_points`.
StrategyFit fit_group(const Group& g, const LinkFloor* floor, std::vector<PointFit>& out_points) {
  const Coverage coverage = checked_coverage(g);
  const Design d = design_of(g);
  const ColumnChoice columns = choose_columns(d.rows, d.y, g.black_box_workers > 0);
  if (columns.unidentified)
    throw CalibrationError(fmt::format("{}: {}; measure more sizes and worker counts", g.label(),
                                       unidentified_text(*columns.unidentified)));
  const double link_beta = floor != nullptr ? floor->beta_s_per_byte : 0;
  std::vector<double> known;
  if (floor != nullptr)
    for (const auto& r : d.rows) known.push_back(r[kBytes] * link_beta);
  const FitResult fit = fit_nonnegative(d.rows, d.y, columns.fitted, known);
  const auto& c = fit.coefficients;

  StrategyFit f;
  f.strategy = g.strategy->name;
  f.compression = g.compression;
  f.link = g.link;
  f.params = {c[kCalls], c[kMessages], link_beta + c[kBytes], c[kReduced], c[kContended]};
  if (floor != nullptr) {
    f.link_beta_s_per_byte = link_beta;
    f.link_beta_from = floor->from;
  }
  f.gamma_folded = columns.folded[kReduced];
  f.alpha_folded = columns.folded[kMessages];
  f.link_bits_per_s = *coverage.rates.begin();
  f.max_flows = max_flows_of(d);
  f.black_box_workers = g.black_box_workers;
  f.points = int(g.points.size());
  f.worker_counts.assign(coverage.workers.begin(), coverage.workers.end());
  f.sizes.assign(coverage.sizes.begin(), coverage.sizes.end());
  record_points(g, fit.predicted, f, out_points);
  if (g.black_box_workers > 0) tabulate(g, f, std::span(out_points).last(g.points.size()));
  return f;
}

// The points calibrate leaves out, by strategy, each kind with its note.
struct LeftOut {
  std::map<std::string, int> single, own_model, moves_nothing;
  std::map<std::string, std::pair<int, std::string>> uncosted;  // count, why

  // Whether `p` is left out, counted here if so.
  bool count(const CalibrationPoint& p) {
    const StrategyInfo& strategy = *p.strategy;
    const std::string name(strategy.name);
    if (const std::string why = uncosted_reason(strategy, p.options); !why.empty()) {
      auto& [n, reason] = uncosted[name];
      ++n;
      reason = why;
    } else if (strategy.cost.library_model_seconds) {
      ++own_model[name];
    } else if (p.placement.workers < 2 || p.bytes <= 0 || !(p.time_s > 0)) {
      ++single[name];
    } else if (strategy_counts(strategy, p.options, p.bytes, p.placement).total().calls == 0) {
      ++moves_nothing[name];
    } else {
      return false;
    }
    return true;
  }

  std::vector<std::string> notes() const {
    std::vector<std::string> out;
    for (const auto& [s, n] : own_model)
      out.push_back(fmt::format("{}: {} points left out: its cost is {}, which is not fitted", s, n,
                                find_strategy(s).cost.form));
    for (const auto& [s, n] : moves_nothing)
      out.push_back(fmt::format(
          "{}: {} points left out: it moves nothing between workers, so there is nothing to fit", s,
          n));
    for (const auto& [s, n_why] : uncosted)
      out.push_back(fmt::format("{}: {} points left out: {}", s, n_why.first, n_why.second));
    for (const auto& [s, n] : single)
      out.push_back(fmt::format(
          "{}: {} points at one worker or of size 0 left out (nothing crosses a link)", s, n));
    return out;
  }
};

// The points in groups, in the order each group's first point came; the
// notes say what was left out. Throws when no group is left.
std::vector<Group> group_points(std::span<const CalibrationPoint> points,
                                std::vector<std::string>& notes) {
  using Key = std::tuple<const StrategyInfo*, std::string, std::string, int>;
  std::map<Key, std::size_t> index;
  std::vector<Group> groups;
  LeftOut left_out;
  for (const auto& p : points) {
    if (left_out.count(p)) continue;
    Group g{p.strategy,
            std::string(to_string(p.options.compression)),
            job_link(*p.strategy, p.options, p.placement),
            p.strategy->cost.per_workers ? p.placement.workers : 0,
            {}};
    const auto [it, added] = index.try_emplace(
        Key{g.strategy, g.compression, g.link, g.black_box_workers}, groups.size());
    if (added) groups.push_back(std::move(g));
    groups[it->second].points.push_back(&p);
  }
  notes = left_out.notes();
  if (groups.empty()) {
    std::string why;
    for (const auto& note : notes) why += "; " + note;
    throw CalibrationError(
        "no allreduce times of 2 or more workers under a strategy that moves data to calibrate "
        "from (the files need collectives records of a strategy of `gradsync strategies`)" +
        why);
  }
  return groups;
}

// The candidates for the link floors (choose_floors), each fitted free, and
// the floor chosen among them per link rate.
struct Floors {
  std::vector<std::size_t> groups;            // the candidates' groups
  std::vector<StrategyFit> fits;              // their free fits
  std::vector<std::vector<PointFit>> points;  // and those fits' points
  std::map<double, std::size_t> by_rate;      // the floor's candidate, by link rate

  // The candidate whose fit is the floor at `g`'s link rate, if any.
  std::optional<std::size_t> floor_of(const Group& g) const {
    const auto it = by_rate.find(g.points.front()->link_bits_per_s);
    if (it == by_rate.end()) return std::nullopt;
    return it->second;
  }
};

// The link floors, per link rate between nodes. The candidates are the
// groups that may set one (Group::may_set_floor: fp32, over every worker
// count, of a strategy whose constants are the link's, a ring), each fitted
// free; the floor is the best by the one ranking of fits (best_link_fit).
// Every other fit between nodes at that rate is fitted above it. Without
// it, data whose transferred and reduced bytes grow together (a binary tree
// at 2 and 4 workers) can put the link's time in gamma, which is right
// where it was measured and wrong at 8 workers, where the tree's busiest
// link carries 3 buffers but adds only 2. Within one host there is no
// floor: there the "link" is the cores' memory copies, which strategies use
// in ways of their own.
Floors choose_floors(const std::vector<Group>& groups) {
  Floors floors;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i].may_set_floor()) continue;
    floors.groups.push_back(i);
    floors.points.emplace_back();
    floors.fits.push_back(fit_group(groups[i], nullptr, floors.points.back()));
  }
  for (const auto& candidate : floors.fits) {
    const double rate = candidate.link_bits_per_s;
    const StrategyFit* best = best_link_fit(
        floors.fits, [rate](const StrategyFit& f) { return f.link_bits_per_s == rate; });
    floors.by_rate.try_emplace(rate, std::size_t(best - floors.fits.data()));
  }
  return floors;
}

}  // namespace

bool measures_link_better(const StrategyFit& a, const StrategyFit& b) {
  auto rank = [](const StrategyFit& x) {
    const StrategyInfo* entry = strategy_named(x.strategy);
    return std::tuple(x.compression == kUncompressed, x.black_box_workers == 0,
                      entry != nullptr && entry->cost.measures_links, x.max_flows == 1, x.points,
                      -x.median_abs_error);
  };
  return rank(a) > rank(b);
}

const StrategyFit* best_link_fit(std::span<const StrategyFit> fits,
                                 const std::function<bool(const StrategyFit&)>& among) {
  const StrategyFit* best = nullptr;
  for (const auto& f : fits)
    if (among(f) && (best == nullptr || measures_link_better(f, *best))) best = &f;
  return best;
}

// Groups the points, chooses the link floors (each a free fit), then fits
// every group in order: a floor's group keeps its free fit, every other
// group between nodes is fitted above its rate's floor, the rest free.
Calibration calibrate(std::span<const CalibrationPoint> points) {
  Calibration out;
  const std::vector<Group> groups = group_points(points, out.notes);
  const Floors floors = choose_floors(groups);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::optional<std::size_t> floor = floors.floor_of(groups[i]);
    if (floor && floors.groups[*floor] == i) {
      out.fits.push_back(floors.fits[*floor]);
      out.points.insert(out.points.end(), floors.points[*floor].begin(),
                        floors.points[*floor].end());
      continue;
    }
    if (!groups[i].between_nodes() || !floor) {
      out.fits.push_back(fit_group(groups[i], nullptr, out.points));
      continue;
    }
    const StrategyFit& floor_fit = floors.fits[*floor];
    const LinkFloor link_floor{floor_fit.params.beta_s_per_byte,
                               fmt::format("1 / beta of the {} fit on inter", floor_fit.strategy),
                               most_ahead(floors.points[*floor])};
    int left_out = 0;
    out.fits.push_back(
        fit_group(above_floor(groups[i], link_floor, left_out), &link_floor, out.points));
    if (left_out > 0)
      out.notes.push_back(fmt::format(
          "{}: {} points left out: faster than the link floor ({}) allows for the bytes they put "
          "through the busiest link, by more than its own points ran ahead of it ({:.1f}%): a "
          "shaper's burst or overlap the counts do not see, which no fit above the floor reaches",
          groups[i].label(), left_out, link_floor.from, 100 * link_floor.ahead));
  }
  return out;
}

}  // namespace gradsync::sim
