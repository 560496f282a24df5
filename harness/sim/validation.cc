#include "harness/sim/validation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "harness/engine/input_rules.h"
#include "harness/engine/median.h"
#include "harness/sim/json_whole.h"

namespace gradsync::sim {

std::string Band::text() const {
  if (!validated) return "not validated on this cluster";
  // The band as the measured throughput's distance from the projection.
  const std::string range = fmt::format("+/-{:.0f}%", 100 * (high - 1));
  return fmt::format(
      "{} ({} at {} workers{})", range,
      beyond_validation ? "beyond validation: validated" : "validated",
      fmt::join(entry->worker_counts, ","),
      entry->calibrated_workers.empty()
          ? ""
          : fmt::format(", calibrated at {}", fmt::join(entry->calibrated_workers, ",")));
}

Band band_for(const std::vector<ValidationEntry>& validation, const std::string& strategy,
              int workers) {
  // Every entry of the strategy counts (a cluster's measured runs, SMPI's
  // at scale): the widest sets the band and names it, and a projection is
  // beyond validation above the most workers any of them saw.
  Band b;
  double worst = 0;
  int validated_to = 0;
  for (const auto& e : validation) {
    if (e.strategy != strategy) continue;
    const double error = std::max(std::abs(e.min_error), std::abs(e.max_error));
    if (b.entry == nullptr || error >= worst) {
      b.entry = &e;
      worst = error;
    }
    validated_to =
        std::max(validated_to, *std::max_element(e.worker_counts.begin(), e.worker_counts.end()));
  }
  if (b.entry == nullptr || workers < 2) return b;
  b.validated = true;
  b.validated_to_workers = validated_to;
  b.beyond_validation = workers > validated_to;
  b.low = std::max(0.0, 1 - worst);
  b.high = 1 + worst;
  return b;
}

std::vector<ValidationEntry> summarize_validation(const std::vector<ValidatedRun>& runs,
                                                  const std::string& against) {
  std::map<std::string, std::vector<const ValidatedRun*>> by_strategy;
  std::vector<std::string> order;
  for (const auto& r : runs) {
    if (r.workers < 2) continue;
    if (!by_strategy.count(r.strategy)) order.push_back(r.strategy);
    by_strategy[r.strategy].push_back(&r);
  }
  std::vector<ValidationEntry> out;
  for (const auto& name : order) {
    ValidationEntry e;
    e.strategy = name;
    e.against = against;
    std::set<int> workers;
    std::set<std::string> models;
    std::vector<double> abs_errors;
    e.min_error = e.max_error = by_strategy[name].front()->error;
    double worst = -1;
    for (const auto* r : by_strategy[name]) {
      workers.insert(r->workers);
      models.insert(r->model);
      abs_errors.push_back(std::abs(r->error));
      e.min_error = std::min(e.min_error, r->error);
      e.max_error = std::max(e.max_error, r->error);
      if (std::abs(r->error) > worst) {
        worst = std::abs(r->error);
        e.worst_run = fmt::format("{}: {:+.1f}%", r->label, 100 * r->error);
      }
    }
    e.runs = int(by_strategy[name].size());
    e.worker_counts.assign(workers.begin(), workers.end());
    e.models.assign(models.begin(), models.end());
    e.median_abs_error = median(abs_errors);
    out.push_back(std::move(e));
  }
  return out;
}

nlohmann::json to_json(const ValidationEntry& e) {
  // "workers" and "worst" keep their names (worker_counts, worst_run).
  nlohmann::json out = {{"strategy", e.strategy},
                        {"against", e.against},
                        {"runs", e.runs},
                        {"workers", e.worker_counts},
                        {"calibrated_workers", e.calibrated_workers},
                        {"models", e.models},
                        {"median_abs_error", e.median_abs_error},
                        {"min_error", e.min_error},
                        {"max_error", e.max_error},
                        {"worst", e.worst_run}};
  if (!e.engine.empty()) out["engine"] = e.engine;
  return out;
}

ValidationEntry validation_from_json(const nlohmann::json& v, const std::string& where) {
  ValidationEntry e;
  try {
    e.strategy = v.at("strategy").get<std::string>();
    e.against = v.value("against", "");
    e.engine = v.value("engine", "");
    // Counts are whole: 2.5 runs is refused, not read as 2.
    e.runs = int(json_number(v.at("runs"), {"runs", true, 1, 1e9, ""}, where, "validation: runs"));
    for (const auto& n : v.at("workers"))  // the keys keep their names
      e.worker_counts.push_back(
          int(json_number(n, {"workers", true, 1, 1e7, ""}, where, "validation: workers")));
    e.calibrated_workers = v.contains("calibrated_workers")
                               ? whole_numbers(v.at("calibrated_workers"))
                               : std::vector<int>{};
    e.models = v.value("models", std::vector<std::string>{});
    e.median_abs_error = v.at("median_abs_error").get<double>();
    e.min_error = v.at("min_error").get<double>();
    e.max_error = v.at("max_error").get<double>();
    e.worst_run = v.value("worst", "");
  } catch (const nlohmann::json::exception& ex) {
    throw std::runtime_error(
        fmt::format("{}: a validation entry is incomplete ({})", where, ex.what()));
  } catch (const std::invalid_argument& ex) {
    throw std::runtime_error(ex.what());
  }
  if (e.runs < 1 || e.worker_counts.empty())
    throw std::runtime_error(
        fmt::format("{}: validation of {}: no runs or no worker counts", where, e.strategy));
  if (!(e.min_error > -1) || !(e.max_error >= e.min_error) || !std::isfinite(e.max_error))
    throw std::runtime_error(fmt::format(
        "{}: validation of {}: min_error and max_error must be numbers with -1 < min <= max", where,
        e.strategy));
  return e;
}

}  // namespace gradsync::sim
