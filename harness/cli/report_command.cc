#include "harness/cli/report_command.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "harness/results/collectives_report.h"
#include "harness/results/report_json.h"
#include "harness/results/result_file.h"
#include "harness/results/train_report.h"
#include "harness/results/wire_report.h"

namespace gradsync {
namespace {

std::vector<ReportTable> report_tables(const std::vector<StoredRecord>& records,
                                       const std::string& metric) {
  std::vector<ReportTable> tables = training_report(records);
  const bool has_collectives = std::any_of(records.begin(), records.end(), [](const auto& r) {
    return r.value.value("kind", "") == "collectives";
  });
  if (has_collectives || tables.empty()) tables.push_back(collectives_report(records, metric));
  if (auto wire = wire_report(records)) tables.push_back(std::move(*wire));
  return tables;
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  auto* cmd = app.add_subcommand("report", "Tables of collectives results from result files");
  cmd->add_option("files", options.files, "JSON Lines result files")->required()->type_name("FILE");
  cmd->add_option("--metric", options.metric,
                  "what each cell shows: busbw, algbw (GB/s) or time (us)")
      ->check(CLI::IsMember({"busbw", "algbw", "time"}));
  cmd->add_option("--csv", options.csv_path, "also write the table as CSV to this file")
      ->type_name("FILE");
  cmd->add_option("--format", options.format,
                  "markdown: the tables; json: every figure the plots draw (efficiency, "
                  "throughput, breakdown, busbw...), one JSON document")
      ->check(CLI::IsMember({"markdown", "json"}));
  return cmd;
}

void run_report(const ReportOptions& options, std::ostream& out) {
  const std::vector<StoredRecord> records = read_results(options.files);
  // The JSON form alone needs no table (and no records of any kind): the
  // CSV tables are built only when asked for.
  const bool json = options.format == "json";
  std::vector<ReportTable> tables;
  if (!json || !options.csv_path.empty()) tables = report_tables(records, options.metric);
  if (!options.csv_path.empty()) {
    std::ofstream csv(options.csv_path);
    for (const auto& table : tables) csv << to_csv(table);
    if (!csv.flush()) throw std::runtime_error(options.csv_path + ": cannot write the CSV table");
  }
  if (json) {
    out << report_json(records).dump(1) << "\n";
    return;
  }
  for (std::size_t i = 0; i < tables.size(); ++i) out << (i ? "\n" : "") << to_markdown(tables[i]);
}

}  // namespace gradsync
