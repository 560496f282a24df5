#include "harness/cli/report_command.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "harness/cli/sweep_ledger.h"
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

// The records to report: strict, or tolerant with each bad line a warning and
// a count, so that one torn line does not hide a long sweep's good records.
// With no good record left, the first bad line is the error, as strict's.
std::vector<StoredRecord> records_to_report(const ReportOptions& options, std::ostream& warnings) {
  if (options.strict) return read_results(options.files);
  ReadOutcome outcome = read_results_tolerant(options.files);
  const std::size_t bad = outcome.bad_lines.size();
  if (bad == 0) return std::move(outcome.records);
  if (outcome.records.empty())
    throw std::runtime_error(outcome.bad_lines.front() +
                             (bad > 1 ? " (and " + std::to_string(bad - 1) +
                                            " more bad line(s); no good record)"
                                      : ""));
  for (const auto& line : outcome.bad_lines) warnings << "gradsync: warning: " << line << "\n";
  warnings << "gradsync: warning: skipped " << bad << " bad line(s) of " << outcome.lines << "\n"
           << std::flush;
  return std::move(outcome.records);
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
  cmd->add_flag("--strict", options.strict,
                "refuse the files at their first bad line (default: warn about each bad line "
                "and report the good records)");
  return cmd;
}

void run_report(const ReportOptions& options, std::ostream& out, std::ostream& warnings) {
  const std::vector<StoredRecord> records = records_to_report(options, warnings);
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
  // A sweep's attempts (sweep.jsonl, when a results directory is reported):
  // the configurations it could not measure, so that a gap in a table has its reason beside it.
  std::vector<nlohmann::json> attempts;
  for (const auto& record : records)
    if (record.value.value("kind", "") == "sweep") attempts.push_back(record.value);
  const std::vector<std::string> failed = failed_configurations(attempts);
  if (failed.empty()) return;
  out << "\nFailed configurations (their last attempt in the sweep's attempts):\n\n";
  for (const auto& line : failed) out << "- " << line << "\n";
}

}  // namespace gradsync
