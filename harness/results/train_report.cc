#include "harness/results/train_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace gradsync {
namespace {

struct Workload {  // what must match for two runs to be compared
  std::string model, compute;
  int batch = 0;
  auto operator<=>(const Workload&) const = default;
};

struct Run {
  double total_img_sec = 0, img_sec_conf = 0, exposed_share = 0;
  bool failed = false;
};

}  // namespace

std::string compute_mode(const nlohmann::json& train_record) {
  std::string mode = train_record.at("compute").get<std::string>();
  const auto precision = train_record.find("precision");
  if (precision != train_record.end() && precision->is_string())
    mode += "-" + precision->get<std::string>();
  return mode;
}

std::vector<ReportTable> training_report(std::span<const StoredRecord> records) {
  // (workload, strategy) -> workers -> run, in order of first appearance.
  std::vector<std::pair<Workload, std::string>> rows;
  std::map<std::pair<Workload, std::string>, std::map<int, Run>> runs;
  std::vector<int> worker_counts;
  for (const auto& record : records) {
    const auto& v = record.value;
    if (v.value("kind", "") != "train") continue;
    try {
      const Workload w{v.at("model"), compute_mode(v), v.at("batch_size")};
      const std::pair key{w, v.at("strategy").get<std::string>()};
      const auto& r = v.at("results");
      const int workers = r.at("workers");
      Run run{r.at("img_sec_mean").get<double>() * workers,
              r.at("img_sec_conf").get<double>() * workers, r.at("exposed_comm_share"),
              v.at("correct").is_boolean() && !v.at("correct").get<bool>()};
      if (!runs.count(key)) rows.push_back(key);
      runs[key][workers] = run;
      if (std::find(worker_counts.begin(), worker_counts.end(), workers) == worker_counts.end())
        worker_counts.push_back(workers);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(record.origin + ": incomplete train record (" + e.what() + ")");
    }
  }
  if (rows.empty()) return {};
  std::sort(worker_counts.begin(), worker_counts.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.model, a.first.compute) < std::tie(b.first.model, b.first.compute);
  });

  auto table = [&](std::string caption, auto cell) {
    ReportTable t;
    t.caption = std::move(caption);
    t.header = {"model", "compute", "batch", "strategy"};
    t.label_columns = t.header.size();
    for (int n : worker_counts) t.header.push_back(fmt::format("n={}", n));
    for (const auto& key : rows) {
      std::vector<std::string> row = {key.first.model, key.first.compute,
                                      std::to_string(key.first.batch), key.second};
      for (int n : worker_counts) {
        const auto& by_workers = runs[key];
        auto it = by_workers.find(n);
        row.push_back(it == by_workers.end() ? "-"
                                             : cell(key.first, n, it->second) +
                                                   (it->second.failed ? " (FAILED CHECK)" : ""));
      }
      t.rows.push_back(std::move(row));
    }
    return t;
  };

  auto baseline = [&](const Workload& w) -> const Run* {
    auto it = runs.find({w, "none"});
    if (it == runs.end()) return nullptr;
    auto one = it->second.find(1);
    return one == it->second.end() ? nullptr : &one->second;
  };

  return {
      table("Scaling efficiency: total img/sec at n workers / (n x img/sec of `none` at 1 worker)",
            [&](const Workload& w, int n, const Run& run) {
              const Run* base = baseline(w);
              if (!base || base->total_img_sec <= 0) return std::string("n/a (no `none` at n=1)");
              return fmt::format("{:.1f}%", 100 * run.total_img_sec / (n * base->total_img_sec));
            }),
      table("Throughput: total img/sec on n workers (+- 1.96 sigma)",
            [](const Workload&, int, const Run& run) {
              return fmt::format("{:.1f} +-{:.1f}", run.total_img_sec, run.img_sec_conf);
            }),
      table("Exposed communication: share of the step spent waiting after backward",
            [](const Workload&, int, const Run& run) {
              return fmt::format("{:.1f}%", 100 * run.exposed_share);
            }),
  };
}

}  // namespace gradsync
