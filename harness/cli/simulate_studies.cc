// The studies of `gradsync simulate` beyond a projection and a validation
// (simulate_modes.h): a published scaling table beside its simulation, the
// crossover map, and BytePS's parameter-server comparison.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "harness/cli/number_flag.h"
#include "harness/cli/simulate_cases.h"
#include "harness/cli/simulate_modes.h"
#include "harness/results/finite_cells.h"
#include "harness/results/published_table.h"
#include "harness/results/report_json.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/simulated_record.h"
#include "harness/sim/simulation.h"
#include "strategies/registry.h"

namespace gradsync {

using sim::ClusterModel;
using sim::SimulationCase;
using sim::SimulationResult;

namespace {

// One row of a published scaling table, with what it names resolved.
struct PublishedRow : PublishedResult {
  const StrategyInfo* entry = nullptr;  // the strategy named
  double rate = 0;                      // the single-GPU rate, its own or its model's
};

// Each row's strategy entry and single-GPU rate (a row without one takes
// another row's of the same model); errors name the row.
void resolve_published(std::vector<PublishedRow>& rows) {
  for (auto& row : rows) {
    try {
      row.entry = &find_strategy(row.strategy);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: {}", row.where, e.what()));
    }
    row.rate = row.single_img_sec;
    for (const auto& other : rows)
      if (row.rate == 0 && other.model == row.model && other.single_img_sec > 0)
        row.rate = other.single_img_sec;
    if (row.rate == 0)
      throw std::runtime_error(
          fmt::format("{}: no single-GPU rate for {} in the table", row.where, row.model));
  }
}

// One published row on the cluster: its batch, its GPUs per node, its
// single-GPU rate as the compute, and a strategy with server shards given one
// colocated shard per node; the baseline at one GPU beside it.
struct PublishedTwin {
  SimulateOptions options;
  ClusterModel cluster;
  SimulationCase run, base;
  SimulationResult result, one;
  double efficiency = 0;  // percent
};

PublishedTwin simulate_published_row(const SimulateOptions& options, const ClusterModel& cluster,
                                     const PublishedRow& row) {
  PublishedTwin t{options, cluster};
  t.options.batch_size = row.batch;
  t.options.emulate_img_per_sec = row.rate;
  t.cluster.workers_per_node = row.gpus_per_node;
  t.run = base_case(t.options, t.cluster, row.model, *row.entry, row.gpus);
  if (row.entry->set_servers)
    row.entry->set_servers(t.run.options, std::max(1, row.gpus / row.gpus_per_node), false);
  // The parameter servers of published tables (TensorFlow's over gRPC) sent
  // every variable's update at once, with no credit: ps-zmq stands for them
  // pushing all at once, not on its own rotated schedule.
  t.run.options.ps.schedule = "all-at-once";
  t.result = sim::simulate(t.cluster, t.run);
  t.base = baseline_case(t.options, t.cluster, row.model);
  t.one = sim::simulate(t.cluster, t.base);
  t.efficiency = 100 * t.result.img_sec_per_worker / t.one.img_sec_per_worker;
  return t;
}

// The row's line of the table; with mechanisms, every one off too: what the
// counts alone say.
std::vector<std::string> published_cells(const PublishedRow& row, const PublishedTwin& t,
                                         bool mechanisms) {
  std::vector<std::string> cells = {
      row.system,
      row.model,
      std::to_string(row.gpus),
      fmt::format("{:.1f}%", row.efficiency_pct),
      fmt::format("{:.1f}%", t.efficiency),
      fmt::format("{:+.1f} points", t.efficiency - row.efficiency_pct)};
  if (mechanisms) {
    SimulationCase bare = t.run;
    for (const auto& info : sim::kMechanisms) bare.without.insert(info.name);
    cells.push_back(fmt::format("{:.1f}%", 100 * sim::simulate(t.cluster, bare).img_sec_per_worker /
                                               t.one.img_sec_per_worker));
  }
  cells.push_back(t.result.costed_as);
  return cells;
}

std::vector<PublishedRow> read_published(const std::string& path) {
  std::vector<PublishedRow> rows;
  for (auto& result : read_published_table(path)) rows.push_back({std::move(result)});
  resolve_published(rows);
  return rows;
}

}  // namespace

// The crossover map: per worker count and inter-node bandwidth, the fastest
// strategy and its margin over the runner-up.
void crossover(const SimulateOptions& options, const ClusterModel& cluster, std::ostream& out) {
  if (options.models.size() != 1)
    throw std::invalid_argument("simulate crossover: name one model (--model)");
  const std::string& model = options.models.front();
  const auto workers = parse_workers(options.workers);
  const auto strategies = chosen_strategies(options, cluster);
  refuse_idle_strategy_flags(options, strategies, joined_strategy_names(strategies));
  std::vector<double> rates;
  for (const auto& text : options.inter_bandwidths)
    rates.push_back(flag_bit_rate("--inter-bandwidths", text));
  std::sort(rates.begin(), rates.end());
  const nlohmann::json names = known_strategies_json();
  nlohmann::json cells = nlohmann::json::array();
  ReportTable table;
  table.caption = fmt::format(
      "Fastest strategy (simulated) for {} batch {} on {}, by inter-node bandwidth and workers, "
      "with its margin over the runner-up",
      model, options.batch_size, cluster.name);
  table.header = {"between nodes"};
  table.label_columns = 1;
  const std::vector<int> shown = worker_columns(table, workers);
  if (shown.empty())
    throw std::invalid_argument("simulate crossover: needs worker counts above 1 (--workers)");
  for (double rate : rates) {
    const ClusterModel at = sim::with_inter_bandwidth(cluster, rate);
    std::vector<std::string> row = {sim::bits_text(rate)};
    for (int n : shown) {
      std::vector<std::pair<double, std::string>> speed;
      nlohmann::json by = nlohmann::json::object();
      for (const StrategyInfo* s : strategies) {
        const double v =
            sim::simulate(at, base_case(options, at, model, *s, n)).img_sec_per_worker * n;
        speed.emplace_back(v, std::string(s->name));
        by[std::string(s->name)] = v;
      }
      std::sort(speed.rbegin(), speed.rend());
      const bool two = speed.size() > 1;
      const double margin = two ? speed[0].first / speed[1].first - 1 : 0;
      cells.push_back({{"workers", n},
                       {"inter_bandwidth_bits_per_s", rate},
                       {"fastest", speed[0].second},
                       {"runner_up", two ? nlohmann::json(speed[1].second) : nlohmann::json()},
                       {"margin", two ? nlohmann::json(margin) : nlohmann::json()},
                       {"img_sec", by}});
      row.push_back(two ? fmt::format("{} +{:.0f}%", speed[0].second, 100 * margin)
                        : speed[0].second);
    }
    table.rows.push_back(std::move(row));
  }
  nlohmann::json rate_list = rates;
  const nlohmann::json doc = {
      {"schema", "gradsync.crossover"},
      {"schema_version", 1},
      {"model", model},
      {"batch_size", options.batch_size},
      {"compute", "emulated"},
      {"cluster", fmt::format("{} ({} per node)", cluster.name, cluster.workers_per_node)},
      {"strategies", names},
      {"workers", shown},
      {"inter_bandwidths_bits_per_s", rate_list},
      {"cells", cells}};
  write_file_replacing(options.crossover_map, doc.dump(1) + '\n', "the crossover map");
  out << finite_markdown(table) << fmt::format("\nWrote {}\n", options.crossover_map);
}

// BytePS's comparison: each strategy with server shards (its entry's
// set_servers) on k dedicated server hosts, one shard per host, against the
// best of the chosen strategies without servers.
void server_hosts(const SimulateOptions& options, const ClusterModel& cluster,
                  const RunContext& context, std::ostream& out) {
  const auto workers = parse_workers(options.workers);
  std::vector<const StrategyInfo*> others, served;
  for (const StrategyInfo* s : chosen_strategies(options, cluster))
    if (!s->set_servers) others.push_back(s);
  for (const auto& info : strategy_table())
    if (info.set_servers) served.push_back(&info);
  if (others.empty())
    throw std::invalid_argument(
        "simulate server-hosts: name an allreduce to compare with (--strategy)");
  std::vector<const StrategyInfo*> both = others;
  both.insert(both.end(), served.begin(), served.end());
  refuse_idle_strategy_flags(options, both, joined_strategy_names(both));
  std::vector<StoredRecord> records;
  for (const auto& model : options.models) {
    for (const StrategyInfo* ps : served) {
      ReportTable table;
      table.caption = fmt::format(
          "{} batch {} on {}: {} with k dedicated server hosts (one shard each) against the best "
          "allreduce, total img/sec (simulated)",
          model, options.batch_size, cluster.name, ps->name);
      table.header = {"strategy"};
      table.label_columns = 1;
      const std::vector<int> shown = worker_columns(table, workers);
      std::map<int, std::pair<double, std::string>> best;
      std::vector<std::string> row = {"best allreduce"};
      for (int n : shown) {
        for (const StrategyInfo* s : others) {
          const double v =
              sim::simulate(cluster, base_case(options, cluster, model, *s, n)).img_sec_per_worker *
              n;
          if (v > best[n].first) best[n] = {v, std::string(s->name)};
        }
        row.push_back(fmt::format("{:.0f} ({})", best[n].first, best[n].second));
      }
      table.rows.push_back(row);
      std::map<int, int> crossing;
      for (int k : options.server_hosts) {
        std::vector<std::string> krow = {fmt::format("{}, k={}", ps->name, k)};
        for (int n : shown) {
          SimulationCase c = base_case(options, cluster, model, *ps, n);
          ps->set_servers(c.options, k, /*dedicated=*/true);
          c.placement.server_hosts = k;
          const SimulationResult r = sim::simulate(cluster, c);
          const double v = r.img_sec_per_worker * n;
          const double gain = v / best[n].first - 1;
          if (gain > 0 && !crossing.count(n)) crossing[n] = k;
          krow.push_back(fmt::format("{:.0f} ({:+.0f}%)", v, 100 * gain));
          records.push_back(stored(
              simulated_record(
                  {c, r, cluster, options.cluster_file,
                   fmt::format("{} [{} server hosts]", setup_label(options, cluster), k), nullptr},
                  context),
              records.size()));
        }
        table.rows.push_back(krow);
      }
      out << finite_markdown(table) << '\n';
      for (int n : shown) {
        const double bound = double(n) * n / (2.0 * (n - 1));
        out << fmt::format(
            "n={}: {}; BytePS's bound for equal links (k > n^2 / (2(n-1))): k > {:.1f}\n", n,
            crossing.count(n)
                ? fmt::format("{} beats {} from k = {} server hosts", ps->name, best[n].second,
                              crossing[n])
                : fmt::format("no k of {} beats {}", options.server_hosts.size(), best[n].second),
            bound);
      }
      out << '\n';
    }
  }
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

// The published rows beside their simulation on the cluster, each under the
// strategy its row names (a strategy of `gradsync strategies`); a strategy
// with server shards gets one colocated shard per node (a parameter server
// on every server, as distributed TensorFlow ran them).
void published(const SimulateOptions& options, const ClusterModel& cluster,
               const RunContext& context, std::ostream& out) {
  const auto rows = read_published(options.published_table);
  std::vector<const StrategyInfo*> named;
  for (const auto& row : rows)
    if (std::find(named.begin(), named.end(), row.entry) == named.end()) named.push_back(row.entry);
  refuse_idle_strategy_flags(options, named, joined_strategy_names(named) + " of the table");
  ReportTable table;
  table.caption = fmt::format(
      "Published scaling efficiency against the cost model on {} (simulated; efficiency = "
      "img/sec at N / (N x img/sec at 1), batch per GPU fixed)",
      cluster.name);
  const bool mechanisms = cluster.mechanisms.any();
  table.header = {"system", "model", "GPUs", "published", "simulated", "simulated - published"};
  if (mechanisms) table.header.push_back("without the mechanisms");
  table.header.push_back("costed as");
  table.label_columns = 2;
  std::vector<StoredRecord> records;
  std::set<std::string> baselines;
  std::vector<sim::ValidatedRun> validated;
  for (const auto& row : rows) {
    const PublishedTwin t = simulate_published_row(options, cluster, row);
    table.rows.push_back(published_cells(row, t, mechanisms));
    // The same single-GPU rate on both sides: the efficiencies' ratio is the throughputs'.
    validated.push_back(
        {std::string(row.entry->name), row.model, row.gpus, t.efficiency / row.efficiency_pct - 1,
         fmt::format("{} {} at {} GPUs ({})", row.model, row.entry->name, row.gpus, row.system)});
    const std::string setup = fmt::format("{} [{}]", setup_label(t.options, t.cluster), row.system);
    records.push_back(
        stored(simulated_record({t.run, t.result, t.cluster, options.cluster_file, setup, nullptr},
                                context),
               records.size()));
    if (baselines.insert(row.model + setup).second)
      records.push_back(
          stored(simulated_record({t.base, t.one, t.cluster, options.cluster_file, setup, nullptr},
                                  context),
                 records.size()));
  }
  out << finite_markdown(table) << '\n';
  report_validation(
      options, cluster,
      sim::summarize_validation(validated, "published table: " + options.published_table), out);
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

}  // namespace gradsync
