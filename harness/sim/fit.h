#pragma once
// Least squares for the calibration: y ~ sum_j c_j x_j with every c_j >= 0,
// minimizing the squared *relative* error sum_i ((pred_i - y_i) / y_i)^2, so
// that a 4 KiB point in microseconds counts as much as a 64 MiB point in
// seconds. Before fitting, each column is checked for identifiability: a
// column that the other columns reproduce (within 1e-6 of its own norm, in
// the weighted space) cannot be told apart from them by these data.
//
// Non-negativity: with at most a handful of columns, every subset of
// columns is solved by ordinary least squares and the best solution whose
// coefficients are all non-negative wins (the others are 0): exact NNLS by
// enumeration, 2^k small solves.

#include <optional>
#include <vector>

namespace gradsync::sim {

struct FitResult {
  std::vector<double> coefficients;  // one per column, >= 0
  std::vector<double> predicted;     // one per row
};

// For each column, the index of the first other column it is collinear with
// in the weighted space (or with a combination of the others: then -2), or
// -1 when it is identifiable. Columns that are all zero are reported as -3.
// `tolerance` is the share of the column's squared norm the others may
// leave unexplained for it still to count as reproduced by them (1e-12:
// exactly, up to rounding; larger: nearly, so that a fit would split the two
// by the noise).
std::vector<int> unidentifiable_columns(const std::vector<std::vector<double>>& rows,
                                        const std::vector<double>& y, double tolerance = 1e-12);

// Fits the columns marked true in `use` (others get 0). Rows: one vector of
// column values per measured point; y > 0. `known` (empty, or one per row)
// is a part of each y that is not fitted: the fit explains y - known, still
// weighted by 1 / y, and `predicted` includes it. Throws
// std::invalid_argument on sizes that do not match or a y <= 0.
FitResult fit_nonnegative(const std::vector<std::vector<double>>& rows,
                          const std::vector<double>& y, const std::vector<bool>& use,
                          const std::vector<double>& known = {});

}  // namespace gradsync::sim
