#include "harness/cli/simulate_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <map>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "harness/cli/strategy_flags.h"
#include "harness/results/cluster_record.h"
#include "harness/results/report_json.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/simulated_record.h"
#include "harness/results/size_parse.h"
#include "harness/results/train_report.h"
#include "harness/results/workload.h"
#include "harness/sim/simulation.h"
#include "models/model.h"
#include "models/zoo.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

using sim::ClusterModel;
using sim::SimulationCase;
using sim::SimulationResult;

// "1,2,4,8" or "1-1024" (the powers of two from the first to the last).
std::vector<int> parse_workers(const std::string& text) {
  auto bad = [&] {
    return std::invalid_argument(fmt::format(
        "--workers: '{}' is not a list of worker counts (e.g. 1,2,4,8) or a range of powers of "
        "two (e.g. 1-1024)",
        text));
  };
  std::vector<int> out;
  const auto dash = text.find('-');
  try {
    if (dash != std::string::npos) {
      std::size_t used_a = 0, used_b = 0;
      const int a = std::stoi(text.substr(0, dash), &used_a);
      const int b = std::stoi(text.substr(dash + 1), &used_b);
      if (used_a != dash || used_b != text.size() - dash - 1 || a < 1 || b < a) throw bad();
      for (long n = 1; n <= b; n *= 2)
        if (n >= a) out.push_back(int(n));
    } else {
      std::size_t start = 0;
      while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        std::size_t used = 0;
        const std::string item = text.substr(start, comma - start);
        const int n = std::stoi(item, &used);
        if (used != item.size() || n < 1) throw bad();
        out.push_back(n);
        start = comma + 1;
      }
    }
  } catch (const std::invalid_argument&) {
    throw bad();
  } catch (const std::out_of_range&) {
    throw bad();
  }
  if (out.empty()) throw bad();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> chosen_strategies(const SimulateOptions& options,
                                           const ClusterModel& cluster) {
  if (!options.strategies.empty()) {
    for (const auto& s : options.strategies) sim::find_sim_algorithm(s);
    return options.strategies;
  }
  if (cluster.accelerator == "gpu")
    return {"nccl-ring", "nccl-tree", "ps-zmq", "double-tree", "hierarchical"};
  return {"ring-mpi", "tree-mpi", "ps-zmq", "mpi-allreduce", "double-tree", "halving-doubling",
          "hierarchical"};
}

SimulationCase base_case(const SimulateOptions& options, const ClusterModel& cluster,
                         const std::string& model, const std::string& strategy, int workers) {
  SimulationCase c;
  c.model = model;
  c.batch = options.batch_size;
  c.emulate_img_per_sec = options.emulate_img_per_sec;
  c.device = options.emulate_img_per_sec > 0 ? "forced" : options.device;
  if (options.emulate_img_per_sec <= 0)
    c.flops_per_second = find_device_profile(options.device).flops_per_second;
  c.time_scale = options.time_scale;
  c.strategy = strategy;
  c.options = options.strategy_options;
  c.placement.workers = workers;
  c.placement.workers_per_node = cluster.workers_per_node;
  c.fusion_mb = options.fusion_mb;
  c.overlap = options.overlap == "on";
  return c;
}

// The worker counts above one, each a column "n=N" of the table.
std::vector<int> worker_columns(ReportTable& table, const std::vector<int>& workers) {
  std::vector<int> shown;
  for (int n : workers)
    if (n > 1) {
      shown.push_back(n);
      table.header.push_back(fmt::format("n={}", n));
    }
  return shown;
}

StoredRecord stored(nlohmann::json value, std::size_t index) {
  return {fmt::format("simulated:{}", index + 1), std::move(value)};
}

std::string setup_label(const SimulateOptions& options, const ClusterModel& cluster) {
  if (!options.setup.empty()) return options.setup;
  return fmt::format("{} (simulated: {} per node, {} between nodes)",
                     cluster.name.empty() ? "described cluster" : cluster.name,
                     cluster.workers_per_node, sim::bits_text(cluster.inter.bandwidth_bits_per_s.value));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void append_all(const std::string& file, const std::vector<StoredRecord>& records) {
  for (const auto& r : records) append_record(file, r.value);
}

// The projection: every model x strategy x worker count, and `none` at one
// worker as the baseline of each model.
void project(const SimulateOptions& options, const ClusterModel& cluster,
             const RunContext& context, std::ostream& out) {
  const auto workers = parse_workers(options.workers);
  const auto strategies = chosen_strategies(options, cluster);
  const std::string setup = setup_label(options, cluster);
  std::vector<StoredRecord> records;
  std::map<std::string, std::string> costed;
  std::string compute;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& model : options.models) {
    auto add = [&](const std::string& strategy, int n) {
      const SimulationCase c = base_case(options, cluster, model, strategy, n);
      const SimulationResult r = sim::simulate(cluster, c);
      if (n > 1) costed[strategy] = r.costed_as;
      compute = r.compute_source;
      records.push_back(stored(
          simulated_record({c, r, cluster, options.cluster_file, setup, nullptr}, context),
          records.size()));
    };
    add("none", 1);
    for (const auto& s : strategies)
      for (int n : workers) add(s, n);
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << fmt::format("# gradsync simulate: {} runs on {} in {:.0f} ms\n", records.size(), setup,
                     elapsed * 1e3);
  out << fmt::format("# compute: {}\n", compute);
  for (const auto& s : strategies) out << fmt::format("# {}\n", costed[s]);
  if (workers.back() > cluster.nodes * cluster.workers_per_node)
    out << fmt::format(
        "# note: up to {} workers, beyond the {} node(s) the file describes: a projection with "
        "the same per-node links\n",
        workers.back(), cluster.nodes);
  out << '\n';
  for (const auto& table : training_report(records)) out << to_markdown(table) << '\n';
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

// The measured compute of a workload: its `none` run at one worker.
std::map<Workload, sim::MeasuredCompute> measured_computes(std::span<const StoredRecord> records) {
  std::map<Workload, sim::MeasuredCompute> out;
  for (const auto& r : records) {
    const auto& v = r.value;
    if (v.value("kind", "") != "train" || v.value("simulated", false)) continue;
    if (v.value("strategy", "") != "none" || v.at("results").value("workers", 0) != 1) continue;
    const auto& res = v.at("results");
    const double compute = res.at("compute_s").get<double>();
    const double step = res.value("step_median_s", res.value("step_mean_s", compute));
    out[workload_of(v)] = {compute, std::max(0.0, step - compute),
                           fmt::format("measured: the none run at 1 worker ({}), {:.4g} s forward "
                                       "+ backward and {:.4g} s after it per step",
                                       r.origin, compute, std::max(0.0, step - compute))};
  }
  return out;
}

void validate(const SimulateOptions& options, const ClusterModel& cluster,
              const RunContext& context, std::ostream& out) {
  const std::vector<StoredRecord> records = read_results(options.validate);
  const auto computes = measured_computes(records);
  ReportTable table;
  table.caption =
      "Measured against simulated: total img/sec of the setup each run represents; error = "
      "simulated / measured - 1";
  table.header = {"model", "setup", "strategy", "workers", "measured", "simulated", "error",
                  "exposed comm measured / simulated"};
  table.label_columns = 3;
  std::vector<StoredRecord> twins;
  std::vector<double> errors;
  std::string worst;
  double worst_error = -1;
  std::map<std::string, std::string> costed;
  for (const auto& record : records) {
    const auto& v = record.value;
    if (v.value("kind", "") != "train" || v.value("simulated", false)) continue;
    SimulationCase c = simulation_case(record);
    const Workload workload = workload_of(v);
    const auto computed = computes.find(workload);
    if (computed != computes.end()) c.measured = computed->second;
    const ClusterModel* model = &cluster;
    std::optional<ClusterModel> rescaled;
    if (v.contains("cluster") && v.at("cluster").is_object()) {
      const double rate = v.at("cluster").value("rate_bits_per_s", 0.0);
      const auto* fit = cluster.fits.empty() ? nullptr : &cluster.fits.front();
      const double calibrated = fit && fit->link_bits_per_s > 0
                                    ? fit->link_bits_per_s
                                    : cluster.inter.bandwidth_bits_per_s.value;
      if (rate > 0 && std::abs(rate / calibrated - 1) > 1e-6) {
        rescaled = sim::with_inter_bandwidth(
            cluster, cluster.inter.bandwidth_bits_per_s.value * rate / calibrated);
        model = &*rescaled;
      }
    }
    const SimulationResult r = sim::simulate(*model, c);
    const int n = c.placement.workers;
    const double measured = v.at("results").at("img_sec_mean").get<double>() * n * c.time_scale;
    const double simulated = r.img_sec_per_worker * n * c.time_scale;
    const double error = simulated / measured - 1;
    // One worker moves nothing: its twin is the compute profile, which for a
    // workload with a measured `none` run is that run's own time.
    const bool compute_only = n == 1;
    const std::string strategy =
        c.strategy + (c.strategy == "ps-zmq" ? fmt::format(" (S={}{})", c.options.ps.servers,
                                                           c.options.ps.placement ==
                                                                   PsPlacement::dedicated
                                                               ? ", dedicated"
                                                               : "")
                                             : "");
    if (!compute_only) {
      errors.push_back(std::abs(error));
      if (std::abs(error) > worst_error) {
        worst_error = std::abs(error);
        worst = fmt::format("{} {} at {} workers ({}): {:+.1f}%", workload.model, strategy, n,
                            workload.setup.empty() ? "one machine" : workload.setup, 100 * error);
      }
    }
    if (n > 1) costed[c.strategy + (rescaled ? " (link rescaled)" : "")] = r.costed_as;
    table.rows.push_back(
        {workload.model, workload.setup.empty() ? "-" : workload.setup, strategy,
         std::to_string(n), fmt::format("{:.1f}", measured), fmt::format("{:.1f}", simulated),
         compute_only ? fmt::format("{:+.1f}% (compute only)", 100 * error)
                     : fmt::format("{:+.1f}%", 100 * error),
         fmt::format("{:.3f} / {:.3f} s", v.at("results").value("exposed_comm_s", 0.0),
                     r.step.exposed_comm_s)});
    twins.push_back(stored(simulated_record({c, r, *model, options.cluster_file, "", &record},
                                            context),
                           twins.size()));
  }
  if (table.rows.empty())
    throw std::runtime_error("--validate: no measured train records in the files");
  out << fmt::format("# gradsync simulate --validate: {} measured runs against {}\n",
                     table.rows.size(), options.cluster_file);
  for (const auto& [s, text] : costed) out << fmt::format("# {}\n", text);
  out << '\n' << to_markdown(table) << '\n';
  out << fmt::format(
      "Throughput error over the {} runs of 2 or more workers (1 worker is the compute alone): "
      "median |error| {:.1f}%, worst {}\n",
      errors.size(), 100 * median(errors), worst.empty() ? "-" : worst);
  if (!options.out.empty()) {
    append_all(options.out, twins);
    out << fmt::format("Appended {} simulated twins to {}\n", twins.size(), options.out);
  }
}

// The crossover map: per worker count and inter-node bandwidth, the fastest
// strategy and its margin over the runner-up.
void crossover(const SimulateOptions& options, const ClusterModel& cluster, std::ostream& out) {
  if (options.models.size() != 1)
    throw std::invalid_argument("--crossover: name one model (--model)");
  const std::string& model = options.models.front();
  const auto workers = parse_workers(options.workers);
  const auto strategies = chosen_strategies(options, cluster);
  std::vector<double> rates;
  for (const auto& text : options.inter_bandwidths) rates.push_back(parse_bit_rate(text));
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
  if (shown.empty()) throw std::invalid_argument("--crossover: needs worker counts above 1");
  for (double rate : rates) {
    const ClusterModel at = sim::with_inter_bandwidth(cluster, rate);
    std::vector<std::string> row = {sim::bits_text(rate)};
    for (int n : shown) {
      std::vector<std::pair<double, std::string>> speed;
      nlohmann::json by = nlohmann::json::object();
      for (const auto& s : strategies) {
        const double v =
            sim::simulate(at, base_case(options, at, model, s, n)).img_sec_per_worker * n;
        speed.emplace_back(v, s);
        by[s] = v;
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
  const nlohmann::json doc = {{"schema", "gradsync.crossover"},
                              {"schema_version", 1},
                              {"model", model},
                              {"batch_size", options.batch_size},
                              {"compute", "emulated"},
                              {"cluster", fmt::format("{} ({} per node)", cluster.name,
                                                      cluster.workers_per_node)},
                              {"strategies", names},
                              {"workers", shown},
                              {"inter_bandwidths_bits_per_s", rate_list},
                              {"cells", cells}};
  write_file_replacing(options.crossover, doc.dump(1) + '\n', "the crossover map");
  out << to_markdown(table) << fmt::format("\nWrote {}\n", options.crossover);
}

// BytePS's comparison: ps-zmq with its shards on k dedicated server hosts
// (one shard per host) against the best of the other strategies.
void server_hosts(const SimulateOptions& options, const ClusterModel& cluster,
                  const RunContext& context, std::ostream& out) {
  const auto workers = parse_workers(options.workers);
  std::vector<std::string> others;
  for (const auto& s : chosen_strategies(options, cluster))
    if (s != "ps-zmq") others.push_back(s);
  if (others.empty()) throw std::invalid_argument("--ps-server-hosts: name an allreduce to compare with");
  std::vector<StoredRecord> records;
  for (const auto& model : options.models) {
    ReportTable table;
    table.caption = fmt::format(
        "{} batch {} on {}: ps-zmq with k dedicated server hosts (one shard each) against the "
        "best allreduce, total img/sec (simulated)",
        model, options.batch_size, cluster.name);
    table.header = {"strategy"};
    table.label_columns = 1;
    const std::vector<int> shown = worker_columns(table, workers);
    std::map<int, std::pair<double, std::string>> best;
    std::vector<std::string> row = {"best allreduce"};
    for (int n : shown) {
      for (const auto& s : others) {
        const double v = sim::simulate(cluster, base_case(options, cluster, model, s, n))
                             .img_sec_per_worker * n;
        if (v > best[n].first) best[n] = {v, s};
      }
      row.push_back(fmt::format("{:.0f} ({})", best[n].first, best[n].second));
    }
    table.rows.push_back(row);
    std::map<int, int> crossing;
    for (int k : options.ps_server_hosts) {
      std::vector<std::string> krow = {fmt::format("ps-zmq, k={}", k)};
      for (int n : shown) {
        SimulationCase c = base_case(options, cluster, model, "ps-zmq", n);
        c.options.ps.placement = PsPlacement::dedicated;
        c.options.ps.servers = k;
        c.placement.server_hosts = k;
        const SimulationResult r = sim::simulate(cluster, c);
        const double v = r.img_sec_per_worker * n;
        const double gain = v / best[n].first - 1;
        if (gain > 0 && !crossing.count(n)) crossing[n] = k;
        krow.push_back(fmt::format("{:.0f} ({:+.0f}%)", v, 100 * gain));
        records.push_back(stored(
            simulated_record({c, r, cluster, options.cluster_file,
                              fmt::format("{} [{} server hosts]", setup_label(options, cluster), k),
                              nullptr},
                             context),
            records.size()));
      }
      table.rows.push_back(krow);
    }
    out << to_markdown(table) << '\n';
    for (int n : shown) {
      const double bound = double(n) * n / (2.0 * (n - 1));
      out << fmt::format(
          "n={}: {}; BytePS's bound for equal links (k > n^2 / (2(n-1))): k > {:.1f}\n", n,
          crossing.count(n) ? fmt::format("ps-zmq beats {} from k = {} server hosts",
                                          best[n].second, crossing[n])
                            : fmt::format("no k of {} beats {}", options.ps_server_hosts.size(),
                                          best[n].second),
          bound);
    }
    out << '\n';
  }
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

// One row of a published scaling table (results/reference/published-scaling.csv).
struct PublishedRow {
  std::string system, strategy, model;
  int gpus = 0, gpus_per_node = 0, batch = 0;
  double single_img_sec = 0;  // 0: the table leaves it to another row of the model
  double efficiency_pct = 0;
  std::string where;
};

std::vector<PublishedRow> read_published(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the published table", path));
  std::vector<PublishedRow> rows;
  std::vector<std::string> header;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    if (header.empty()) {
      header = cells;
      continue;
    }
    auto at = [&](const std::string& name) -> std::string {
      const auto it = std::find(header.begin(), header.end(), name);
      if (it == header.end())
        throw std::runtime_error(fmt::format("{}: no column \"{}\"", path, name));
      const std::size_t i = std::size_t(it - header.begin());
      return i < cells.size() ? cells[i] : "";
    };
    const std::string where = fmt::format("{}:{}", path, number);
    try {
      PublishedRow r;
      r.system = at("system");
      r.strategy = at("strategy");
      r.model = at("model");
      r.gpus = std::stoi(at("gpus"));
      r.gpus_per_node = std::stoi(at("gpus_per_node"));
      r.batch = std::stoi(at("batch_per_gpu"));
      r.single_img_sec = at("single_gpu_img_per_sec").empty() ? 0 : std::stod(at("single_gpu_img_per_sec"));
      r.efficiency_pct = std::stod(at("efficiency_pct"));
      r.where = where;
      rows.push_back(r);
    } catch (const std::logic_error&) {
      throw std::runtime_error(fmt::format("{}: a number is missing or malformed", where));
    }
  }
  if (rows.empty()) throw std::runtime_error(fmt::format("{}: no rows", path));
  return rows;
}

// The published rows beside their simulation on the cluster: nccl-ring rows
// as nccl-ring, "ps" rows as ps-zmq with one colocated shard per node (a
// parameter server on every server, as distributed TensorFlow ran them).
void published(const SimulateOptions& options, const ClusterModel& cluster,
               const RunContext& context, std::ostream& out) {
  const auto rows = read_published(options.published);
  ReportTable table;
  table.caption = fmt::format(
      "Published scaling efficiency against the cost model on {} (simulated; efficiency = "
      "img/sec at N / (N x img/sec at 1), batch per GPU fixed)",
      cluster.name);
  table.header = {"system", "model", "GPUs", "published", "simulated", "simulated - published",
                  "costed as"};
  table.label_columns = 2;
  std::vector<StoredRecord> records;
  std::set<std::string> baselines;
  for (const auto& row : rows) {
    double rate = row.single_img_sec;
    for (const auto& other : rows)
      if (rate == 0 && other.model == row.model && other.single_img_sec > 0)
        rate = other.single_img_sec;
    if (rate == 0)
      throw std::runtime_error(fmt::format("{}: no single-GPU rate for {} in the table", row.where,
                                           row.model));
    const std::string strategy = row.strategy == "ps" ? "ps-zmq" : row.strategy;
    SimulateOptions o = options;
    o.batch_size = row.batch;
    o.emulate_img_per_sec = rate;
    ClusterModel c = cluster;
    c.workers_per_node = row.gpus_per_node;
    SimulationCase run = base_case(o, c, row.model, strategy, row.gpus);
    if (strategy == "ps-zmq") run.options.ps.servers = std::max(1, row.gpus / row.gpus_per_node);
    const SimulationResult r = sim::simulate(c, run);
    const SimulationResult one = sim::simulate(c, base_case(o, c, row.model, "none", 1));
    const double efficiency = 100 * r.img_sec_per_worker / one.img_sec_per_worker;
    table.rows.push_back({row.system, row.model, std::to_string(row.gpus),
                          fmt::format("{:.1f}%", row.efficiency_pct),
                          fmt::format("{:.1f}%", efficiency),
                          fmt::format("{:+.1f} points", efficiency - row.efficiency_pct),
                          r.costed_as});
    const std::string setup = fmt::format("{} [{}]", setup_label(o, c), row.system);
    records.push_back(stored(
        simulated_record({run, r, c, options.cluster_file, setup, nullptr}, context),
        records.size()));
    if (baselines.insert(row.model + setup).second) {
      SimulationCase base = base_case(o, c, row.model, "none", 1);
      records.push_back(stored(
          simulated_record({base, one, c, options.cluster_file, setup, nullptr}, context),
          records.size()));
    }
  }
  out << to_markdown(table) << '\n';
  if (!options.out.empty()) {
    append_all(options.out, records);
    out << fmt::format("Appended {} simulated records to {}\n", records.size(), options.out);
  }
}

}  // namespace

CLI::App* add_simulate_command(CLI::App& app, SimulateOptions& options) {
  auto* cmd = app.add_subcommand(
      "simulate",
      "The cost model: one training step as events on a described cluster, for any worker count; "
      "--validate against measured runs, --crossover maps, --ps-server-hosts (BytePS)");
  cmd->add_option("--cluster", options.cluster_file,
                  "cluster file (from `gradsync calibrate`, or written by hand: "
                  "results/reference/clusters/)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--model", options.models, "models from `gradsync models` (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--strategy", options.strategies,
                  "strategies (comma-separated): the table's, and the model-only double-tree, "
                  "halving-doubling, hierarchical; default: every one the cluster can run")
      ->delimiter(',');
  cmd->add_option("--workers", options.workers,
                  "worker counts: a list (1,2,4,8) or powers of two in a range (1-4096)");
  cmd->add_option("--batch-size", options.batch_size, "images per worker per step")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--device", options.device, "device profile of the compute (`gradsync models`)");
  cmd->add_option("--emulate-img-per-sec", options.emulate_img_per_sec,
                  "compute at this single-worker rate instead of a device profile")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--fusion-mb", options.fusion_mb, "fusion bucket threshold in MiB (0: no fusion)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--overlap", options.overlap, "reduce buckets while backward runs")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--time-scale", options.time_scale,
                  "compute K times slower, as `train --time-scale` on an emulated cluster")
      ->check(CLI::Range(1.0, 1e9));
  cmd->add_option("--inter-bandwidth", options.inter_bandwidth,
                  "links between nodes at this rate instead of the file's (e.g. 100gbit); inter "
                  "fits' beta scale with it")
      ->type_name("RATE");
  cmd->add_option("--workers-per-node", options.workers_per_node,
                  "workers per node instead of the file's (e.g. 1: one worker per machine, its "
                  "GPUs' gradients summed locally first, as BytePS counts machines)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ps-server-hosts", options.ps_server_hosts,
                  "compare ps-zmq on k dedicated server hosts (one shard each) with the best "
                  "allreduce, for each k (comma-separated)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--validate", options.validate,
                  "measured result files: simulate each train record's twin and print the errors")
      ->type_name("RESULTS");
  cmd->add_option("--crossover", options.crossover,
                  "write the crossover map (fastest strategy per workers x inter-node "
                  "bandwidth) to this JSON file")
      ->type_name("FILE");
  cmd->add_option("--published", options.published,
                  "a published scaling table (CSV, results/reference/published-scaling.csv): "
                  "simulate every row on the cluster and print both efficiencies")
      ->type_name("CSV");
  cmd->add_option("--inter-bandwidths", options.inter_bandwidths,
                  "the crossover map's bandwidths (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--out", options.out, "append the simulated records to this JSON Lines file")
      ->type_name("FILE");
  cmd->add_option("--setup", options.setup,
                  "what the projection's records stand for in tables (default: the cluster's name)");
  add_strategy_flags(*cmd, options.strategy_options);
  return cmd;
}

void run_simulate(const SimulateOptions& options, const std::vector<std::string>& command_line,
                  std::ostream& out) {
  ClusterModel cluster = sim::read_cluster_model(options.cluster_file);
  if (!options.inter_bandwidth.empty())
    cluster = sim::with_inter_bandwidth(cluster, parse_bit_rate(options.inter_bandwidth));
  if (options.workers_per_node > 0) cluster.workers_per_node = options.workers_per_node;
  for (const auto& m : options.models) find_zoo_entry(m);
  const RunContext context = simulation_context(command_line);
  if (!options.validate.empty()) return validate(options, cluster, context, out);
  if (!options.crossover.empty()) return crossover(options, cluster, out);
  if (!options.published.empty()) return published(options, cluster, context, out);
  if (!options.ps_server_hosts.empty()) return server_hosts(options, cluster, context, out);
  project(options, cluster, context, out);
}

}  // namespace gradsync
