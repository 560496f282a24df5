#include "harness/cli/simulate_cases.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "harness/cli/flag_scope.h"
#include "harness/cli/fusion_flag.h"
#include "harness/engine/input_rules.h"
#include "harness/results/input_text.h"
#include "harness/sim/cluster_model.h"
#include "harness/sim/strategy_cost.h"
#include "models/model.h"
#include "strategies/registry.h"

namespace gradsync {

using sim::ClusterModel;
using sim::SimulationCase;

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
  // Up to ten million workers: the counts' products with bytes and steps
  // stay far inside a double's exact integers.
  for (int n : out) checked(n, {"--workers", true, 1, 1e7, ""}, "");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<const StrategyInfo*> chosen_strategies(const SimulateOptions& options,
                                                   const ClusterModel& cluster) {
  std::vector<const StrategyInfo*> chosen;
  if (!options.strategies.empty()) {
    for (const auto& s : options.strategies) chosen.push_back(&find_strategy(s));
    return chosen;
  }
  // The memory the cluster's workers hold their gradients in: host
  // strategies on GPUs would be staged, which the model does not cost.
  const MemoryKind native = cluster.accelerator == "gpu" ? MemoryKind::device : MemoryKind::host;
  for (const auto& info : strategy_table())
    if (info.role != StrategyRole::baseline && info.memory == native) chosen.push_back(&info);
  return chosen;
}

std::string joined_strategy_names(std::span<const StrategyInfo* const> strategies) {
  std::string names;
  for (const StrategyInfo* s : strategies)
    names += (names.empty() ? "" : ",") + std::string(s->name);
  return names;
}

void refuse_idle_strategy_flags(const SimulateOptions& options,
                                std::span<const StrategyInfo* const> strategies,
                                const std::string& what) {
  if (!options.mode) return;
  const std::string given =
      fmt::format("simulate {} (strategies {})", options.mode->get_name(), what);
  refuse_out_of_scope(*options.mode, strategy_flag_scopes(*options.mode, strategies,
                                                          options.strategy_options, given));
}

SimulationCase baseline_case(const SimulateOptions& options, const ClusterModel& cluster,
                             const std::string& model) {
  return base_case(options, cluster, model,
                   find_strategy(strategy_with_role(StrategyRole::baseline)), 1);
}

SimulationCase base_case(const SimulateOptions& options, const ClusterModel& cluster,
                         const std::string& model, const StrategyInfo& strategy, int workers) {
  SimulationCase c;
  c.model = model;
  c.batch = options.batch_size;
  c.sequence_length = options.sequence_length;
  c.optimizer = options.optimizer;
  c.emulate_img_per_sec = options.emulate_img_per_sec;
  c.device_profile = options.emulate_img_per_sec > 0 ? "forced" : options.device;
  if (options.emulate_img_per_sec <= 0)
    c.flops_per_second =
        profile_for(find_device_profile(options.device), describe_model(model, c.sequence_length))
            .flops_per_second;
  c.time_scale = options.time_scale;
  c.strategy = &strategy;
  c.options = options.strategy_options;
  c.placement.workers = workers;
  c.placement.workers_per_node = cluster.workers_per_node;
  const FusionChoice fusion = parse_fusion_mb(options.fusion_mb);
  c.fusion_mb = fusion.mb;
  c.fusion_auto = fusion.automatic;
  c.overlap = options.overlap == "on";
  c.order = options.sync_order;
  c.steps_per_iteration = options.steps_per_iteration;
  c.input.spec = parse_input(options.input);
  c.input.spec.threads = options.input_threads;
  c.input.spec.prefetch = options.input_prefetch;
  c.input.image_s = options.input_image_ms * 1e-3;
  c.without.insert(options.without.begin(), options.without.end());
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
                     cluster.workers_per_node,
                     sim::bits_text(cluster.inter.bandwidth_bits_per_s.value));
}

ReportTable validation_table(const std::vector<sim::ValidationEntry>& entries) {
  ReportTable t;
  t.caption = "Per strategy: throughput error over its runs of 2 or more workers";
  t.header = {"strategy",       "runs",        "workers", "calibrated at",
              "median |error|", "error range", "worst"};
  t.label_columns = 1;
  auto list = [](const std::vector<int>& v) {
    return v.empty() ? std::string("-") : fmt::format("{}", fmt::join(v, ","));
  };
  for (const auto& e : entries)
    t.rows.push_back({e.strategy, std::to_string(e.runs), list(e.worker_counts),
                      list(e.calibrated_workers), fmt::format("{:.1f}%", 100 * e.median_abs_error),
                      fmt::format("{:+.1f}% to {:+.1f}%", 100 * e.min_error, 100 * e.max_error),
                      e.worst_run});
  return t;
}

void report_validation(const SimulateOptions& options, const ClusterModel& cluster,
                       std::vector<sim::ValidationEntry> entries, std::ostream& out) {
  for (auto& e : entries) {  // the worker counts its calibration saw
    std::set<int> seen;
    for (const auto& f : cluster.fits)
      if (f.strategy == e.strategy) seen.insert(f.worker_counts.begin(), f.worker_counts.end());
    e.calibrated_workers.assign(seen.begin(), seen.end());
  }
  if (!entries.empty()) out << '\n' << to_markdown(validation_table(entries)) << '\n';
  if (options.save_validation.empty()) return;
  ClusterModel saved = sim::read_cluster_model(options.cluster_file);
  // A strategy's entry against runs or tables is replaced; its entry
  // against SMPI (scripts/smpi-scaling.sh --save-validation) stays, and the
  // widest sets the band.
  std::erase_if(saved.validation, [&](const sim::ValidationEntry& old) {
    return std::any_of(entries.begin(), entries.end(), [&](const auto& e) {
      return e.strategy == old.strategy && e.engine == old.engine;
    });
  });
  saved.validation.insert(saved.validation.end(), entries.begin(), entries.end());
  write_file_replacing(options.save_validation, sim::to_json(saved).dump(2) + '\n',
                       "the cluster file");
  out << fmt::format(
      "Wrote {} with the validation of {} strategies: every projection on it "
      "carries their band\n",
      options.save_validation, entries.size());
}

void append_all(const std::string& file, const std::vector<StoredRecord>& records) {
  for (const auto& r : records) append_record(file, r.value);
}

}  // namespace gradsync
