#include "harness/results/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <utility>

#include "harness/results/collectives_record.h"
#include "harness/results/collectives_table.h"
#include "harness/results/train_report.h"

namespace gradsync {
namespace {

using Column = std::pair<std::string, int>;  // strategy, workers

struct Metric {
  const char* caption;
  std::string (*cell)(const SizeResult&);
};

Metric find_metric(const std::string& name) {
  if (name == "busbw")
    return {"busbw (GB/s)",
            [](const SizeResult& r) { return fmt::format("{:.2f}", r.busbw_gbps); }};
  if (name == "algbw")
    return {"algbw (GB/s)",
            [](const SizeResult& r) { return fmt::format("{:.2f}", r.algbw_gbps); }};
  if (name == "time")
    return {"time (us)", [](const SizeResult& r) { return format_time_us(r.time_us); }};
  throw std::invalid_argument("unknown --metric '" + name + "' (known: busbw, algbw, time)");
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

ReportTable collectives_report(std::span<const StoredRecord> records,
                               const std::string& metric_name) {
  const Metric metric = find_metric(metric_name);
  std::vector<std::string> strategies;  // in order of first appearance
  std::map<Column, std::map<std::uint64_t, std::string>> cells;
  for (const auto& record : records) {
    if (record.value.value("kind", "") != "collectives") continue;
    try {
      const Column column{record.value.at("strategy").get<std::string>(),
                          record.value.at("workers").get<int>()};
      if (std::find(strategies.begin(), strategies.end(), column.first) == strategies.end())
        strategies.push_back(column.first);
      auto& by_size = cells[column];
      for (const auto& json_row : record.value.at("rows")) {
        const SizeResult row = size_result_from_json(json_row);
        by_size[row.size_bytes] = metric.cell(row) + (row.wrong.value_or(0) > 0 ? " (wrong)" : "");
      }
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(record.origin + ": incomplete collectives record (" +
                               without_json_tag(e.what()) + ")");
    }
  }
  if (cells.empty()) throw std::runtime_error("no collectives or train records to report");

  // Strategies side by side at each worker count, the question being which
  // is fastest at the same scale. One worker moves no bytes over a bus, so
  // busbw leaves those columns out (the time table has them).
  std::vector<int> worker_counts;
  for (const auto& [column, by_size] : cells)
    if (std::find(worker_counts.begin(), worker_counts.end(), column.second) == worker_counts.end())
      worker_counts.push_back(column.second);
  std::sort(worker_counts.begin(), worker_counts.end());
  std::vector<Column> columns;
  for (int workers : worker_counts) {
    if (workers == 1 && metric_name == "busbw" && worker_counts.size() > 1) continue;
    for (const auto& strategy : strategies)
      if (cells.count({strategy, workers})) columns.push_back({strategy, workers});
  }
  std::map<std::uint64_t, std::vector<std::string>> by_size_rows;
  for (std::size_t c = 0; c < columns.size(); ++c)
    for (const auto& [size, cell] : cells[columns[c]]) {
      auto& row = by_size_rows[size];
      row.resize(columns.size(), "-");
      row[c] = cell;
    }

  ReportTable table;
  table.caption = fmt::format("{} by message size; columns: n = workers, strategy", metric.caption);
  table.header.push_back("size (B)");
  for (const auto& [strategy, workers] : columns)
    table.header.push_back(fmt::format("n={} {}", workers, strategy));
  for (auto& [size, row] : by_size_rows) {
    row.resize(columns.size(), "-");
    row.insert(row.begin(), std::to_string(size));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string to_markdown(const ReportTable& table) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& cell : cells) out += " " + cell + " |";
    return out + "\n";
  };
  std::string out = table.caption + "\n\n" + line(table.header) + "|";
  for (std::size_t i = 0; i < table.header.size(); ++i)
    out += i < table.label_columns ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : table.rows) out += line(row);
  return out;
}

std::string to_csv(const ReportTable& table) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_field(cells[i]);
    return out + "\n";
  };
  std::string out = line(table.header);
  for (const auto& row : table.rows) out += line(row);
  return out;
}

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  auto* cmd = app.add_subcommand("report", "Tables of collectives results from result files");
  cmd->add_option("files", options.files, "JSON Lines result files")->required()->type_name("FILE");
  cmd->add_option("--metric", options.metric,
                  "what each cell shows: busbw, algbw (GB/s) or time (us)")
      ->check(CLI::IsMember({"busbw", "algbw", "time"}));
  cmd->add_option("--csv", options.csv_path, "also write the table as CSV to this file")
      ->type_name("FILE");
  return cmd;
}

void run_report(const ReportOptions& options, std::ostream& out) {
  std::vector<StoredRecord> records;
  for (const auto& path : options.files) {
    auto more = read_results(path);
    records.insert(records.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
  }
  std::vector<ReportTable> tables = training_report(records);
  const bool has_collectives = std::any_of(records.begin(), records.end(), [](const auto& r) {
    return r.value.value("kind", "") == "collectives";
  });
  if (has_collectives || tables.empty()) tables.push_back(collectives_report(records, options.metric));
  if (!options.csv_path.empty()) {
    std::ofstream csv(options.csv_path);
    for (const auto& table : tables) csv << to_csv(table);
    if (!csv.flush()) throw std::runtime_error(options.csv_path + ": cannot write the CSV table");
  }
  for (std::size_t i = 0; i < tables.size(); ++i) out << (i ? "\n" : "") << to_markdown(tables[i]);
}

}  // namespace gradsync
