#include "harness/cli/report_command.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cli/sweep_ledger.h"
#include "harness/results/latest_by_key.h"
#include "harness/results/report_records.h"
#include "harness/results/result_file.h"

namespace gradsync {
namespace {

// A sweep's attempts (sweep.jsonl, when a results directory is reported) as
// failed_configurations reads them: the last of each configuration, in the
// order each configuration first appeared, one held per configuration.
class LastAttempts {
 public:
  void add(const nlohmann::json& attempt) {
    attempts_.put(configuration_key(attempt.value("config_digest", ""), attempt.value("ranks", 0)),
                  attempt);
  }
  const std::vector<nlohmann::json>& attempts() const { return attempts_.values(); }

 private:
  LatestByKey<std::string, nlohmann::json> attempts_;
};

// Bad lines met before the first good record are held (when no good record
// follows, the first is the error, as strict's, and none is a warning); at
// most this many: past them the warnings go out as they come, so that a
// file of nothing but bad lines holds no more than this.
constexpr std::size_t kHeldBadLines = 1000;

// Tolerant reading's bad lines: each a warning, then a count; with no good
// record at all, the first bad line is the error, as strict's.
class BadLineWarnings {
 public:
  explicit BadLineWarnings(std::ostream& warnings) : warnings_(warnings) {}
  void bad_line(const std::string& line) {
    ++bad_;
    if (first_.empty()) first_ = line;
    held_.push_back(line);
    if (any_good_ || held_.size() > kHeldBadLines) flush();
  }
  void good_record() {
    if (!any_good_) flush();
    any_good_ = true;
  }
  // After reading `lines`: the count, or the error when nothing was good.
  void finish(std::size_t lines) {
    if (bad_ == 0) return;
    if (!any_good_)
      throw std::runtime_error(first_ + (bad_ > 1 ? " (and " + std::to_string(bad_ - 1) +
                                                        " more bad line(s); no good record)"
                                                  : ""));
    flush();
    warnings_ << "gradsync: warning: skipped " << bad_ << " bad line(s) of " << lines << "\n"
              << std::flush;
  }

 private:
  void flush() {
    for (const auto& line : held_) warnings_ << "gradsync: warning: " << line << "\n";
    held_.clear();
  }
  std::ostream& warnings_;
  std::vector<std::string> held_;
  std::string first_;
  std::size_t bad_ = 0;
  bool any_good_ = false;
};

// Reads the files into the report's folds: strict, or tolerant with each bad
// line a warning and a count, so that one torn line does not hide a long
// sweep's good records.
void read_for_report(const ReportOptions& options, ReportRecords& records, LastAttempts& attempts,
                     std::ostream& warnings) {
  BadLineWarnings bad(warnings);
  auto record = [&](StoredRecord&& r) {
    bad.good_record();
    records.add(r);
    if (r.value.value("kind", "") == "sweep") attempts.add(r.value);
  };
  if (options.strict) {
    visit_results(options.files, {record, {}});
    return;
  }
  const std::size_t lines =
      visit_results(options.files, {record, [&](const std::string& line) { bad.bad_line(line); }});
  bad.finish(lines);
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
  ReportRecords records;
  LastAttempts attempts;
  read_for_report(options, records, attempts, warnings);
  // The JSON form alone needs no table (and no records of any kind): the
  // CSV tables are built only when asked for.
  const bool json = options.format == "json";
  std::vector<ReportTable> tables;
  if (!json || !options.csv_path.empty()) tables = records.tables(options.metric);
  if (!options.csv_path.empty()) {
    std::ofstream csv(options.csv_path);
    for (const auto& table : tables) csv << to_csv(table);
    if (!csv.flush()) throw std::runtime_error(options.csv_path + ": cannot write the CSV table");
  }
  if (json) {
    out << records.json().dump(1) << "\n";
    return;
  }
  for (std::size_t i = 0; i < tables.size(); ++i) out << (i ? "\n" : "") << to_markdown(tables[i]);
  // The configurations a sweep could not measure, so that a gap in a table
  // has its reason beside it.
  const std::vector<std::string> failed = failed_configurations(attempts.attempts());
  if (failed.empty()) return;
  out << "\nFailed configurations (their last attempt in the sweep's attempts):\n\n";
  for (const auto& line : failed) out << "- " << line << "\n";
}

}  // namespace gradsync
