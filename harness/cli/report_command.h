#pragma once
// `gradsync report`: the tables of result files. Training records give the
// efficiency, throughput and exposed-communication tables (train_report.h),
// collectives records the table by message size (collectives_report.h);
// printed as Markdown, optionally written as CSV, or printed as one JSON
// document of every figure the plots draw (report_json.h).

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace gradsync {

struct ReportOptions {
  std::vector<std::string> files;
  std::string metric = "busbw";     // busbw, algbw (GB/s) or time (us)
  std::string format = "markdown";  // markdown or json
  std::string csv_path;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

// Reads every file, prints the Markdown tables (or the JSON document) to
// `out`, writes the CSV if asked.
void run_report(const ReportOptions& options, std::ostream& out);

}  // namespace gradsync
