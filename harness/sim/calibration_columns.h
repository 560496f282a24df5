#pragma once
// The calibration's design matrix and which of its columns a group's data
// can identify. One row per measured allreduce, one column per constant of
// CostParams (cost_params.h), holding what the strategy counts for it
// (strategies/core/cost.h): calls for o, messages for alpha, bytes through
// the busiest link for beta, bytes added for gamma, contended bytes for
// delta. choose_columns decides, before the least squares (fit.h), which
// columns are fitted, which are folded into beta and which the data cannot
// identify at all, so that the calibration refuses them.

#include <optional>
#include <string>
#include <vector>

#include "strategies/core/cost.h"

namespace gradsync::sim {

enum CostColumn { kCalls = 0, kMessages, kBytes, kReduced, kContended, kCostColumns };

// The constant each column fits, in words, by CostColumn.
inline constexpr const char* kCostColumnNames[kCostColumns] = {
    "per-call overhead o", "per-message latency alpha", "per-byte transfer beta",
    "per-byte reduction gamma", "contention delta"};

// One point's row of the design matrix.
std::vector<double> cost_row(const CostTerms& terms);

// How far "nearly" goes for a constant that may be folded into beta: one
// the other columns explain to within 1% of its squared norm (10% of its
// size) would only be split from them by the noise (a tree's reduced bytes
// against its transferred bytes, say).
inline constexpr double kNearlyCollinear = 1e-2;

struct ColumnChoice {
  // Per column: fitted by the least squares (else its constant is 0).
  std::vector<bool> fitted = std::vector<bool>(kCostColumns, true);
  // Per column: left out because the columns fitted carry it; its time is
  // then in theirs, mostly beta's ("in beta" in calibrate's table).
  std::vector<bool> folded = std::vector<bool>(kCostColumns, false);
  // A constant among o, alpha and beta that the data cannot identify, and
  // what reproduces it: another column's index, kSpannedByOthers or
  // kZeroColumn (fit.h). When set, the group cannot be calibrated.
  struct Unidentified {
    int column = 0;
    int reproduced_by = 0;
  };
  std::optional<Unidentified> unidentified;
};

// Which columns of a group's design matrix (rows, times y) to fit. With
// `fixed_messages` (a black box at one worker count, whose message count
// never varies) alpha is not fitted: its time is the per-call overhead's.
ColumnChoice choose_columns(const std::vector<std::vector<double>>& rows,
                            const std::vector<double>& y, bool fixed_messages);

// "the data cannot identify the per-message latency alpha (it moves in step
// with the per-byte transfer beta)"
std::string unidentified_text(const ColumnChoice::Unidentified& u);

}  // namespace gradsync::sim
