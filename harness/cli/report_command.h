#pragma once
// `gradsync report`: the tables of result files. Training records give the
// efficiency, throughput and exposed-communication tables (train_report.h),
// collectives records the table by message size (collectives_report.h);
// printed as Markdown, optionally written as CSV, or printed as one JSON
// document of every figure the plots draw (report_json.h). Bad lines in the
// files are skipped with a warning each, unless --strict.

#include <CLI/CLI.hpp>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

namespace gradsync {

struct ReportOptions {
  std::vector<std::string> files;
  std::string metric = "busbw";     // busbw, algbw (GB/s) or time (us)
  std::string format = "markdown";  // markdown or json
  std::string csv_path;
  bool strict = false;  // refuse at the first bad line instead of skipping bad lines
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

// Reads every file, prints the Markdown tables (or the JSON document) to
// `out`, writes the CSV if asked. Unless options.strict, each bad line is a
// "gradsync: warning: file:line: why" on `warnings`, then "gradsync: warning:
// skipped N bad line(s) of M", and the good records are reported. Throws
// std::runtime_error when a file cannot be read, when no good record remains
// (naming the first bad line), or, strict, at the first bad line.
void run_report(const ReportOptions& options, std::ostream& out,
                std::ostream& warnings = std::cerr);

}  // namespace gradsync
