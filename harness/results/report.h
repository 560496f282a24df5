#pragma once
// `gradsync report`: collectives records as one table, a row per message size
// and a column per (strategy, worker count), printed as Markdown and
// optionally written as CSV.

#include <CLI/CLI.hpp>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "harness/results/result_file.h"

namespace gradsync {

struct ReportOptions {
  std::vector<std::string> files;
  std::string metric = "busbw";  // busbw, algbw (GB/s) or time (us)
  std::string csv_path;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

struct ReportTable {
  std::string caption;
  std::vector<std::string> header;             // "size (B)", then a column per strategy and workers
  std::vector<std::vector<std::string>> rows;  // a missing measurement is "-"
  std::size_t label_columns = 0;  // leading columns of names (left-aligned), then figures
};

// The table of the collectives records (other kinds are skipped); where two
// records measured the same strategy, workers and size, the later one counts.
// Throws std::runtime_error naming the record ("file:line: ...") when one is
// incomplete, and when there are no collectives records at all.
ReportTable collectives_report(std::span<const StoredRecord> records, const std::string& metric);

std::string to_markdown(const ReportTable& table);
std::string to_csv(const ReportTable& table);

// Reads every file, prints the Markdown table to `out`, writes the CSV if asked.
void run_report(const ReportOptions& options, std::ostream& out);

}  // namespace gradsync
