#pragma once
// `gradsync compare BASE NEW`: the regression gate for CI. Absolute speeds
// move with the machine (other jobs, clock, noisy neighbours), so compare
// judges ratios between strategies measured in the same run, where that noise
// cancels:
// - train records: for each model, compute mode, batch and worker count, a
//   strategy's total img/sec / the reference strategy's (the strategy
//   table's baseline unless --reference says otherwise) at the same worker
//   count in the same files. Total img/sec is batch x workers / the median
//   step time (`step_median_s`), which one step stretched by another process
//   does not move. An external reference (a record with "external", e.g.
//   PyTorch DDP's ddp-gloo) computes with another framework, so its ratio is
//   its own scaling instead: its total img/sec at n workers / (n x its own
//   at one worker), judged from n = 2 on;
// - collectives records: for each worker count, the median over message sizes
//   >= --min-size (1 MiB: small sizes are latency noise) of the reference's
//   time (the strategy table's reference unless --collectives-reference) /
//   the strategy's time at that size. At a fixed size and worker count that
//   is the busbw ratio, and it is defined at one worker too.
// A row regresses when its NEW ratio < BASE ratio x (1 - tolerance). A row of
// BASE that NEW lacks is a failure too (a strategy that stopped running must
// not pass the gate); a row only in NEW is shown, not judged. Any NEW record
// whose correctness check failed fails the comparison.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "strategies/registry.h"

namespace gradsync {

struct CompareOptions {
  std::string base, fresh;  // files or directories (a directory: its .jsonl files)
  double tolerance = 0.10;
  // train records: the baseline; collectives records: the reference.
  std::string reference{strategy_with_role(StrategyRole::baseline)};
  std::string collectives_reference{strategy_with_role(StrategyRole::reference)};
  std::uint64_t min_size_bytes = 1024 * 1024;  // collectives records
};

// One measured ratio: a strategy against the reference of its own run.
struct RatioKey {
  std::string workload;  // "small-cnn cpu b8", or "allreduce >= 1 MiB"
  std::string strategy;
  int workers = 0;
  auto operator<=>(const RatioKey&) const = default;
};

struct SideRatios {
  std::vector<std::pair<RatioKey, double>> ratios;  // in order of first appearance
  std::vector<std::string> failed_checks;           // records whose correctness check failed, named
  std::vector<RatioKey> failed_keys;                // and the rows they belong to
  std::vector<std::string> notes;                   // what could not be measured, and why
  std::vector<std::string> externals;  // strategies of external references, by their own scaling
};

// One side's ratios as a fold over a stream of its records: what it holds is
// a total per train configuration and a time per collectives configuration
// and size (and the name of each record whose check failed), whatever the
// number of records. An error a record meets is kept until ratios().
class SideFold {
 public:
  explicit SideFold(CompareOptions options);
  ~SideFold();
  void add(const StoredRecord& record);
  // As side_ratios over the records added.
  SideRatios ratios() const;

 private:
  struct State;
  CompareOptions options_;
  std::unique_ptr<State> state_;
};

// The ratios of one side (one run's records). Throws std::runtime_error naming
// the record ("file:line: ...") when one lacks a field the ratios need.
SideRatios side_ratios(std::span<const StoredRecord> records, const CompareOptions& options);

enum class Verdict { ok, regressed, failed_check, missing, added };

struct Comparison {
  RatioKey key;
  std::optional<double> base, fresh;
  Verdict verdict = Verdict::ok;
};

struct CompareOutcome {
  std::vector<Comparison> rows;
  std::vector<std::string> failed_checks;  // NEW records that failed their check
  std::vector<std::string> notes;
  std::vector<std::string> externals;  // strategies of external references (either side)
  bool passed() const;
};

// Throws std::runtime_error when the two sides have no ratio in common.
CompareOutcome compare_sides(const SideRatios& base, const SideRatios& fresh,
                             const CompareOptions& options);
// The same from each side's records.
CompareOutcome compare_records(std::span<const StoredRecord> base,
                               std::span<const StoredRecord> fresh, const CompareOptions& options);

// The table of every comparison: workload, strategy, workers, base and new
// ratio, change, verdict.
ReportTable comparison_table(const CompareOutcome& outcome, const CompareOptions& options);

// One line: PASS or FAIL, and which rows failed.
std::string verdict_line(const CompareOutcome& outcome, const CompareOptions& options);

}  // namespace gradsync
