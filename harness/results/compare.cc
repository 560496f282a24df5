#include "harness/results/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

#include "harness/engine/median.h"
#include "harness/results/first_error.h"
#include "harness/results/record_fields.h"
#include "harness/results/train_runs.h"
#include "harness/results/workload.h"
#include "harness/sim/json_whole.h"

namespace gradsync {
namespace {

std::string size_label(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

bool failed(const nlohmann::json& record) {
  const auto it = record.find("correct");
  return it != record.end() && it->is_boolean() && !it->get<bool>();
}

// Keeps the order of first appearance; a later value replaces an earlier one
// (as in `report`, the later record counts).
template <class Key, class Value>
void put(std::vector<std::pair<Key, Value>>& list, const Key& key, Value value) {
  for (auto& [k, v] : list)
    if (k == key) {
      v = std::move(value);
      return;
    }
  list.emplace_back(key, std::move(value));
}

}  // namespace

// Named, not anonymous: SideFold::State (compare.h's class) holds them, and a
// member of an external type whose type is in an anonymous namespace is
// what GCC's -Wsubobject-linkage warns of once the file is part of a unity build.
namespace compare_groups {

// A strategy's total img/sec in one group, and whether the run was an
// external reference's (train_runs.h), whose ratio is its own scaling.
struct StrategyTotal {
  std::string strategy;
  double total = 0;
  bool external = false;
};

// The train runs of one workload at one worker count: a total per strategy,
// in order of first appearance, a later record replacing an earlier one.
struct TrainGroup {
  std::string workload;
  int workers = 0;
  std::vector<StrategyTotal> totals;

  const StrategyTotal* find(const std::string& strategy) const {
    const auto it = std::ranges::find(totals, strategy, &StrategyTotal::strategy);
    return it == totals.end() ? nullptr : &*it;
  }
};

}  // namespace compare_groups

namespace {

using compare_groups::StrategyTotal;
using compare_groups::TrainGroup;

// Adds one train record to its group; notes the external references' names
// and the records whose correctness check failed in `side`.
void add_train_record(const StoredRecord& record, std::vector<TrainGroup>& groups,
                      SideRatios& side) {
  const auto& v = record.value;
  read_fields(record, "train", [&](const nlohmann::json&) {
    const auto& r = v.at("results");
    const int workers = whole_number(r.at("workers"));
    // Total img/sec at the median step time: the median shrugs off the odd
    // step another process on the machine stretched, which the mean does not.
    const double step = r.at("step_median_s");
    const StrategyTotal entry{strategy_label(v),  // ps-zmq's async modes apart
                              step > 0 ? double(whole_number(v.at("batch_size"))) * workers / step : 0,
                              !external_of(v).empty()};
    const std::string workload = workload_of(v).label();
    auto group = std::ranges::find_if(groups, [&](const TrainGroup& g) {
      return g.workload == workload && g.workers == workers;
    });
    if (group == groups.end()) group = groups.insert(groups.end(), {workload, workers, {}});
    const auto same = std::ranges::find(group->totals, entry.strategy, &StrategyTotal::strategy);
    if (same == group->totals.end())
      group->totals.push_back(entry);
    else
      *same = entry;
    if (entry.external && std::ranges::find(side.externals, entry.strategy) == side.externals.end())
      side.externals.push_back(entry.strategy);
    if (failed(v)) {
      side.failed_checks.push_back(fmt::format("{}: {} {} n={} failed its correctness check",
                                               record.origin, workload, entry.strategy, workers));
      side.failed_keys.push_back({workload, entry.strategy, workers});
    }
  });
}

// An external reference computes with another framework: its ratio is its
// own scaling, total img/sec / (workers x its own at one worker), never a
// ratio to gradsync's reference; judged from two workers on.
void own_scaling_ratios(const TrainGroup& group, std::span<const TrainGroup> groups,
                        SideRatios& side) {
  if (group.workers == 1) return;
  const auto alone_group = std::ranges::find_if(
      groups, [&](const TrainGroup& g) { return g.workload == group.workload && g.workers == 1; });
  for (const StrategyTotal& s : group.totals) {
    if (!s.external) continue;
    const StrategyTotal* alone =
        alone_group == groups.end() ? nullptr : alone_group->find(s.strategy);
    if (alone && alone->total > 0)
      put(side.ratios, RatioKey{group.workload, s.strategy, group.workers},
          s.total / (group.workers * alone->total));
    else
      side.notes.push_back(
          fmt::format("{} {} n={}: no run of it at n=1 to take its scaling against", group.workload,
                      s.strategy, group.workers));
  }
}

// gradsync's strategies: total img/sec / the reference's in the same group.
void reference_ratios(const TrainGroup& group, const CompareOptions& o, SideRatios& side) {
  const StrategyTotal* ref = group.find(o.reference);
  if (!ref || ref->total <= 0) {
    if (std::ranges::any_of(group.totals, [](const StrategyTotal& s) { return !s.external; }))
      side.notes.push_back(fmt::format("{} n={}: no `{}` run to take ratios against",
                                       group.workload, group.workers, o.reference));
    return;
  }
  for (const StrategyTotal& s : group.totals)
    if (s.strategy != o.reference && !s.external)
      put(side.ratios, RatioKey{group.workload, s.strategy, group.workers}, s.total / ref->total);
}

void train_ratios(std::span<const TrainGroup> groups, const CompareOptions& o, SideRatios& side) {
  for (const TrainGroup& group : groups) {
    own_scaling_ratios(group, groups, side);
    reference_ratios(group, o, side);
  }
}

// Collectives: (workers, size) -> strategy -> time.
using CollectivesTimes = std::map<std::pair<int, std::uint64_t>, std::map<std::string, double>>;

void add_collectives_record(const StoredRecord& record, const CompareOptions& o,
                            CollectivesTimes& times, SideRatios& side) {
  const std::string workload = "allreduce >= " + size_label(o.min_size_bytes);
  const auto& v = record.value;
  read_fields(record, "collectives", [&](const nlohmann::json&) {
    const std::string strategy = v.at("strategy");
    const int workers = whole_number(v.at("workers"));
    for (const auto& row : v.at("rows")) {
      const auto size = whole_number<std::uint64_t>(row.at("size_bytes"));
      if (size >= o.min_size_bytes && size > 0)
        times[{workers, size}][strategy] = row.at("time_us").get<double>();
    }
    if (failed(v)) {
      side.failed_checks.push_back(fmt::format("{}: collectives {} n={} had wrong elements",
                                               record.origin, strategy, workers));
      side.failed_keys.push_back({workload, strategy, workers});
    }
  });
}

// The ratio per size, then the median over the sizes both the strategy and
// the reference measured.
void collectives_ratios(const CollectivesTimes& times, const CompareOptions& o, SideRatios& side) {
  const std::string workload = "allreduce >= " + size_label(o.min_size_bytes);
  std::vector<std::pair<std::string, int>> columns;
  for (const auto& [key, by_strategy] : times)
    for (const auto& [strategy, time] : by_strategy)
      if (std::find(columns.begin(), columns.end(), std::pair{strategy, key.first}) ==
          columns.end())
        columns.emplace_back(strategy, key.first);
  for (const auto& [strategy, workers] : columns) {
    if (strategy == o.collectives_reference) continue;
    std::vector<double> ratios;
    for (const auto& [key, by_strategy] : times) {
      if (key.first != workers) continue;
      const auto ref = by_strategy.find(o.collectives_reference);
      const auto own = by_strategy.find(strategy);
      if (ref != by_strategy.end() && own != by_strategy.end() && own->second > 0)
        ratios.push_back(ref->second / own->second);
    }
    if (ratios.empty())
      side.notes.push_back(fmt::format("collectives {} n={}: no size >= {} measured with `{}` too",
                                       strategy, workers, size_label(o.min_size_bytes),
                                       o.collectives_reference));
    else
      put(side.ratios, RatioKey{workload, strategy, workers}, median(ratios));
  }
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok:
      return "ok";
    case Verdict::regressed:
      return "REGRESSED";
    case Verdict::failed_check:
      return "FAILED CHECK";
    case Verdict::missing:
      return "MISSING in NEW";
    case Verdict::added:
      return "new (not judged)";
  }
  return "?";
}

std::string row_name(const RatioKey& key) {
  return fmt::format("{} {} n={}", key.workload, key.strategy, key.workers);
}

}  // namespace

// What a side keeps: a group per train workload and worker count, a time
// per collectives size, worker count and strategy, and the failed checks;
// train and collectives apart, each with its first error.
struct SideFold::State {
  std::vector<TrainGroup> groups;
  SideRatios train;  // externals, failed checks
  FirstError train_error;
  CollectivesTimes times;
  SideRatios collectives;  // failed checks
  FirstError collectives_error;
};

SideFold::SideFold(CompareOptions options)
    : options_(std::move(options)), state_(std::make_unique<State>()) {}
SideFold::~SideFold() = default;

void SideFold::add(const StoredRecord& record) {
  const std::string kind = record.value.value("kind", "");
  State& s = *state_;
  if (kind == "train")
    s.train_error.guard([&] { add_train_record(record, s.groups, s.train); });
  else if (kind == "collectives")
    s.collectives_error.guard(
        [&] { add_collectives_record(record, options_, s.times, s.collectives); });
}

SideRatios SideFold::ratios() const {
  const State& s = *state_;
  s.train_error.rethrow();
  SideRatios side = s.train;
  train_ratios(s.groups, options_, side);
  s.collectives_error.rethrow();
  side.failed_checks.insert(side.failed_checks.end(), s.collectives.failed_checks.begin(),
                            s.collectives.failed_checks.end());
  side.failed_keys.insert(side.failed_keys.end(), s.collectives.failed_keys.begin(),
                          s.collectives.failed_keys.end());
  collectives_ratios(s.times, options_, side);
  return side;
}

SideRatios side_ratios(std::span<const StoredRecord> records, const CompareOptions& options) {
  SideFold fold(options);
  for (const auto& record : records) fold.add(record);
  return fold.ratios();
}

bool CompareOutcome::passed() const {
  return failed_checks.empty() && std::none_of(rows.begin(), rows.end(), [](const auto& row) {
           return row.verdict == Verdict::regressed || row.verdict == Verdict::failed_check ||
                  row.verdict == Verdict::missing;
         });
}

CompareOutcome compare_records(std::span<const StoredRecord> base,
                               std::span<const StoredRecord> fresh, const CompareOptions& options) {
  const SideRatios before = side_ratios(base, options);
  return compare_sides(before, side_ratios(fresh, options), options);
}

CompareOutcome compare_sides(const SideRatios& before, const SideRatios& after,
                             const CompareOptions& options) {
  CompareOutcome outcome;
  outcome.failed_checks = after.failed_checks;
  for (const auto& note : before.notes) outcome.notes.push_back("BASE: " + note);
  for (const auto& note : after.notes) outcome.notes.push_back("NEW: " + note);
  for (const auto* side : {&before, &after})
    for (const auto& name : side->externals)
      if (std::find(outcome.externals.begin(), outcome.externals.end(), name) ==
          outcome.externals.end())
        outcome.externals.push_back(name);

  auto find = [](const SideRatios& side, const RatioKey& key) -> std::optional<double> {
    for (const auto& [k, ratio] : side.ratios)
      if (k == key) return ratio;
    return std::nullopt;
  };
  auto check_failed = [&](const RatioKey& key) {
    return std::find(after.failed_keys.begin(), after.failed_keys.end(), key) !=
           after.failed_keys.end();
  };
  bool common = false;
  for (const auto& [key, ratio] : before.ratios) {
    Comparison row{key, ratio, find(after, key)};
    if (!row.fresh) {
      row.verdict = Verdict::missing;
    } else {
      common = true;
      if (*row.fresh < ratio * (1 - options.tolerance)) row.verdict = Verdict::regressed;
      if (check_failed(key)) row.verdict = Verdict::failed_check;
    }
    outcome.rows.push_back(row);
  }
  for (const auto& [key, ratio] : after.ratios)
    if (!find(before, key))
      outcome.rows.push_back(
          {key, std::nullopt, ratio, check_failed(key) ? Verdict::failed_check : Verdict::added});
  if (!common)
    throw std::runtime_error(fmt::format(
        "nothing in common to compare: BASE has {} ratio(s), NEW {}, none for the same workload, "
        "strategy and worker count (train ratios need a `{}` run, collectives ratios `{}` at sizes "
        ">= {})",
        before.ratios.size(), after.ratios.size(), options.reference, options.collectives_reference,
        size_label(options.min_size_bytes)));
  return outcome;
}

ReportTable comparison_table(const CompareOutcome& outcome, const CompareOptions& options) {
  ReportTable table;
  table.caption = fmt::format(
      "Ratios to the reference measured in the same run (train: total img/sec / `{}`'s at the same "
      "workers; collectives: median over sizes of `{}`'s time / the strategy's). A row regresses "
      "when NEW < BASE x (1 - {:g}).",
      options.reference, options.collectives_reference, options.tolerance);
  table.header = {"workload",  "strategy", "workers", "base ratio",
                  "new ratio", "change",   "verdict"};
  table.label_columns = 2;
  auto ratio = [](const std::optional<double>& r) { return r ? fmt::format("{:.3f}", *r) : "-"; };
  for (const auto& row : outcome.rows) {
    const std::string change = row.base && row.fresh && *row.base > 0
                                   ? fmt::format("{:+.1f}%", 100 * (*row.fresh / *row.base - 1))
                                   : "-";
    table.rows.push_back({row.key.workload, row.key.strategy, std::to_string(row.key.workers),
                          ratio(row.base), ratio(row.fresh), change, to_string(row.verdict)});
  }
  for (const auto& name : outcome.externals)
    table.notes.push_back(fmt::format(
        "`{}` is an external reference (another framework's compute): its ratio is its own "
        "scaling, total img/sec / (workers x its own at 1 worker), not a ratio to `{}`.",
        name, options.reference));
  return table;
}

std::string verdict_line(const CompareOutcome& outcome, const CompareOptions& options) {
  std::vector<std::string> bad;
  for (const auto& row : outcome.rows) {
    if (row.verdict == Verdict::regressed)
      bad.push_back(fmt::format("{} regressed {:.1f}%", row_name(row.key),
                                100 * (1 - *row.fresh / *row.base)));
    if (row.verdict == Verdict::missing) bad.push_back(row_name(row.key) + " missing in NEW");
    if (row.verdict == Verdict::failed_check)
      bad.push_back(row_name(row.key) + " failed its check");
  }
  if (bad.empty() && !outcome.failed_checks.empty())
    bad.push_back(
        fmt::format("{} record(s) failed their correctness check", outcome.failed_checks.size()));
  const std::size_t judged =
      std::count_if(outcome.rows.begin(), outcome.rows.end(),
                    [](const auto& r) { return r.verdict != Verdict::added; });
  if (bad.empty())
    return fmt::format("compare: PASS: {} ratio(s) compared, none dropped more than {:g}%", judged,
                       100 * options.tolerance);
  std::string line = fmt::format("compare: FAIL (tolerance {:g}%): ", 100 * options.tolerance);
  for (std::size_t i = 0; i < bad.size(); ++i) line += (i ? "; " : "") + bad[i];
  return line;
}

}  // namespace gradsync
