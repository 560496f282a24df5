#pragma once
// Least squares for the calibration: y ~ sum_j c_j x_j with every c_j >= 0,
// minimizing the squared *relative* error sum_i ((pred_i - y_i) / y_i)^2, so
// that a 4 KiB point in microseconds counts as much as a 64 MiB point in
// seconds. A column that the other columns reproduce (exactly: within 1e-6
// of its own norm, in the weighted space) cannot be told apart from them by
// these data: unidentifiable_columns finds such columns, and the
// calibration decides what to do about them (calibration_columns.h).
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

// What unidentifiable_columns says of a column that no single other column
// reproduces; a column one other column reproduces gets that column's index.
inline constexpr int kIdentifiable = -1;     // the other columns leave enough of it unexplained
inline constexpr int kSpannedByOthers = -2;  // several other columns together reproduce it
inline constexpr int kZeroColumn = -3;       // all zero: the data never vary it
inline constexpr int kNotInModel = -4;       // left out by `in_model`: neither checked nor used

// The tolerance of "exactly", up to rounding (see unidentifiable_columns).
inline constexpr double kExactly = 1e-12;

// For each column, whether the other columns reproduce it in the weighted
// space (rows scaled by 1 / y, the space the fit works in): the first other
// column that does alone (its index), else kSpannedByOthers when all of them
// together do, else kIdentifiable; kZeroColumn for a column of zeros.
// `tolerance` is the share of the column's squared norm the others may
// leave unexplained for it still to count as reproduced by them (kExactly;
// larger: nearly, so that a fit would split the two by the noise).
// `in_model` (empty: every column) names the columns the model keeps: the
// others are reported kNotInModel and explain nothing.
std::vector<int> unidentifiable_columns(const std::vector<std::vector<double>>& rows,
                                        const std::vector<double>& y, double tolerance = kExactly,
                                        const std::vector<bool>& in_model = {});

// Fits the columns marked true in `use` (others get 0). Rows: one vector of
// column values per measured point; y > 0. `known` (empty, or one per row)
// is a part of each y that is not fitted: the fit explains y - known, still
// weighted by 1 / y, and `predicted` includes it. Throws
// std::invalid_argument on sizes that do not match or a y <= 0.
FitResult fit_nonnegative(const std::vector<std::vector<double>>& rows,
                          const std::vector<double>& y, const std::vector<bool>& use,
                          const std::vector<double>& known = {});

}  // namespace gradsync::sim
