#include "harness/results/collectives_table.h"

#include <fmt/format.h>

#include <span>

#include "harness/results/computed_traffic.h"

namespace gradsync {
namespace {

// Widths of: strategy, size, count, type, redop, time, algbw, busbw, #wrong,
// and, on device buffers, stage.
constexpr const char* kRowFormat =
    "  {:<20}{:>12}  {:>12}  {:>8}  {:>6}  {:>9}  {:>7}  {:>7}  {:>7}{}\n";
constexpr const char* kHeadFormat =
    "# {:<20}{:>12}  {:>12}  {:>8}  {:>6}  {:>9}  {:>7}  {:>7}  {:>7}{}\n";

std::string staging_cell(const std::string& text, bool with_staging) {
  return with_staging ? fmt::format("  {:>9}", text) : std::string();
}

// "recursive doubling at 4-8192 B; its own at 32768-65536 B": the sizes at
// which the strategy took each of its algorithms, in runs of rows; empty
// when every row took its own.
std::string paths_by_size(std::span<const SizeResult> rows) {
  bool switched = false;
  for (const auto& row : rows) switched = switched || !row.path.empty();
  if (!switched) return {};
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].path == rows[i].path) ++j;
    const std::string name = rows[i].path.empty() ? "its own" : rows[i].path;
    out += fmt::format("{}{} at {}", out.empty() ? "" : "; ", name, rows[i].size_bytes);
    if (j > i) out += fmt::format("-{}", rows[j].size_bytes);
    out += " B";
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string format_time_us(double time_us) {
  if (time_us >= 10000.0) return fmt::format("{:.0f}", time_us);
  if (time_us >= 100.0) return fmt::format("{:.1f}", time_us);
  return fmt::format("{:.2f}", time_us);
}

std::string collectives_table_header(bool with_staging) {
  return fmt::format(kHeadFormat, "strategy", "size", "count", "type", "redop", "time", "algbw",
                     "busbw", "#wrong", staging_cell("stage", with_staging)) +
         fmt::format(kHeadFormat, "", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "",
                     staging_cell("(us)", with_staging));
}

std::string collectives_table_rows(const StrategyOutcome& outcome, bool with_staging) {
  std::string out;
  for (const auto& row : outcome.rows)
    out += fmt::format(
        kRowFormat, outcome.strategy, row.size_bytes, row.count, kBenchDatatype, kBenchOp,
        format_time_us(row.time_us), fmt::format("{:.2f}", row.algbw_gbps),
        fmt::format("{:.2f}", row.busbw_gbps),
        row.wrong_elements ? std::to_string(*row.wrong_elements) : "N/A",
        staging_cell(row.staging_us ? format_time_us(*row.staging_us) : "host", with_staging));
  return out;
}

std::string collectives_summary(const StrategyOutcome& outcome) {
  std::string out = fmt::format(
      "# {}, {} workers, {} buffers\n#   Avg bus bandwidth   : {:.4g} GB/s\n", outcome.strategy,
      outcome.workers, to_string(outcome.memory), average_busbw(outcome.rows));
  // Counts computed from the algorithm's formula are marked, with a legend.
  const bool computed = outcome.account.fields.value("traffic_source", "") == "computed";
  out += "#   Bytes sent/received :";
  for (const auto& r : outcome.ranks)
    out += fmt::format(" rank {}{} {}/{}{}", r.rank, r.is_worker ? "" : " (server)",
                       r.traffic.bytes_sent, r.traffic.bytes_received,
                       computed ? computed_traffic_mark : "");
  out += "\n";
  if (computed) out += fmt::format("#   {}\n", computed_traffic_legend);
  if (const std::string paths = paths_by_size(outcome.rows); !paths.empty())
    out += "#   Algorithm by size   : " + paths + "\n";
  if (const std::string disturbance = outcome.first_disturbance(); !disturbance.empty())
    out += "#   Disturbed, not clean: " + disturbance + " (the record says correct: false)\n";
  for (const auto& line : outcome.account.lines) out += "#   " + line + "\n";
  return out;
}

}  // namespace gradsync
