#include "harness/sim/fit.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gradsync::sim {
namespace {

using Matrix = std::vector<std::vector<double>>;

// Rows scaled by 1/y: the relative-error problem as an ordinary one.
Matrix weighted(const Matrix& rows, const std::vector<double>& y) {
  if (rows.size() != y.size()) throw std::invalid_argument("fit: rows and values differ in count");
  Matrix w = rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!(y[i] > 0)) throw std::invalid_argument("fit: every measured value must be positive");
    for (double& v : w[i]) v /= y[i];
  }
  return w;
}

// Least squares of target on the listed columns of a (normal equations with
// partial pivoting; columns are scaled to unit norm first, which keeps the
// few-column systems here well conditioned). Returns nothing when singular.
std::optional<std::vector<double>> solve(const Matrix& a, const std::vector<double>& target,
                                         const std::vector<std::size_t>& cols) {
  const std::size_t k = cols.size();
  std::vector<double> scale(k, 0);
  for (std::size_t c = 0; c < k; ++c) {
    for (const auto& row : a) scale[c] += row[cols[c]] * row[cols[c]];
    scale[c] = std::sqrt(scale[c]);
    if (scale[c] == 0) return std::nullopt;
  }
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t r = 0; r < k; ++r) {
      const double xr = a[i][cols[r]] / scale[r];
      for (std::size_t c = 0; c < k; ++c) m[r][c] += xr * a[i][cols[c]] / scale[c];
      m[r][k] += xr * target[i];
    }
  for (std::size_t p = 0; p < k; ++p) {
    std::size_t best = p;
    for (std::size_t r = p + 1; r < k; ++r)
      if (std::abs(m[r][p]) > std::abs(m[best][p])) best = r;
    if (std::abs(m[best][p]) < 1e-12) return std::nullopt;
    std::swap(m[p], m[best]);
    for (std::size_t r = 0; r < k; ++r) {
      if (r == p) continue;
      const double f = m[r][p] / m[p][p];
      for (std::size_t c = p; c <= k; ++c) m[r][c] -= f * m[p][c];
    }
  }
  std::vector<double> x(k);
  for (std::size_t c = 0; c < k; ++c) x[c] = m[c][k] / m[c][c] / scale[c];
  return x;
}

double residual(const Matrix& a, const std::vector<double>& target,
                const std::vector<std::size_t>& cols, const std::vector<double>& x) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double pred = 0;
    for (std::size_t c = 0; c < cols.size(); ++c) pred += a[i][cols[c]] * x[c];
    sum += (pred - target[i]) * (pred - target[i]);
  }
  return sum;
}

std::vector<double> column_of(const Matrix& a, std::size_t j) {
  std::vector<double> v(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) v[i] = a[i][j];
  return v;
}

double squared_norm(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return sum;
}

// v less its projection on each vector of an orthonormal basis, one after
// the other (modified Gram-Schmidt).
void project_off(std::vector<double>& v, const Matrix& basis) {
  for (const auto& b : basis) {
    double dot = 0;
    for (std::size_t i = 0; i < v.size(); ++i) dot += v[i] * b[i];
    for (std::size_t i = 0; i < v.size(); ++i) v[i] -= dot * b[i];
  }
}

// An orthonormal basis of the listed columns of a, skipping a column the
// earlier ones already span (what is left of it below 1e-10 of its norm).
Matrix orthonormal_basis(const Matrix& a, const std::vector<std::size_t>& cols) {
  Matrix basis;
  for (std::size_t o : cols) {
    std::vector<double> v = column_of(a, o);
    const double before = squared_norm(v);
    project_off(v, basis);
    const double after = squared_norm(v);
    if (before == 0 || after < 1e-20 * before) continue;
    for (double& x : v) x /= std::sqrt(after);
    basis.push_back(std::move(v));
  }
  return basis;
}

// The first of `others` that alone reproduces `column` (of squared norm
// `norm`) to within `tolerance` of that norm, or kIdentifiable.
int single_partner(const Matrix& a, const std::vector<double>& column, double norm,
                   const std::vector<std::size_t>& others, double tolerance) {
  for (std::size_t o : others) {
    const auto x = solve(a, column, {o});
    if (x && residual(a, column, {o}, *x) < tolerance * norm) return int(o);
  }
  return kIdentifiable;
}

}  // namespace

// Each column in the model is tried against every other one alone (a
// one-column least squares), then against all of them together: what is
// left of it off an orthonormal basis of the others. Either residual below
// `tolerance` of its squared norm makes it unidentifiable.
std::vector<int> unidentifiable_columns(const Matrix& rows, const std::vector<double>& y,
                                        double tolerance, const std::vector<bool>& in_model) {
  const Matrix a = weighted(rows, y);
  const std::size_t k = a.empty() ? 0 : a.front().size();
  if (!in_model.empty() && in_model.size() != k)
    throw std::invalid_argument("fit: the model's columns and the rows' differ in count");
  auto kept = [&](std::size_t j) { return in_model.empty() || in_model[j]; };
  std::vector<int> out(k, kNotInModel);
  for (std::size_t j = 0; j < k; ++j) {
    if (!kept(j)) continue;
    const std::vector<double> column = column_of(a, j);
    const double norm = squared_norm(column);
    if (norm == 0) {
      out[j] = kZeroColumn;
      continue;
    }
    std::vector<std::size_t> others;
    for (std::size_t o = 0; o < k; ++o)
      if (o != j && kept(o)) others.push_back(o);
    out[j] = single_partner(a, column, norm, others, tolerance);
    if (out[j] != kIdentifiable) continue;
    std::vector<double> rest = column;
    project_off(rest, orthonormal_basis(a, others));
    if (squared_norm(rest) < tolerance * norm) out[j] = kSpannedByOthers;
  }
  return out;
}

FitResult fit_nonnegative(const Matrix& rows, const std::vector<double>& y,
                          const std::vector<bool>& use, const std::vector<double>& known) {
  const Matrix a = weighted(rows, y);
  const std::size_t k = use.size();
  for (const auto& row : rows)
    if (row.size() != k) throw std::invalid_argument("fit: a row has the wrong number of columns");
  if (!known.empty() && known.size() != y.size())
    throw std::invalid_argument("fit: the known parts and the values differ in count");
  // The target in the weighted space: (y - known) / y.
  std::vector<double> ones(a.size(), 1.0);
  if (!known.empty())
    for (std::size_t i = 0; i < ones.size(); ++i) ones[i] -= known[i] / y[i];
  std::vector<std::size_t> usable;
  for (std::size_t j = 0; j < k; ++j)
    if (use[j]) usable.push_back(j);
  FitResult best{std::vector<double>(k, 0), {}};
  double best_residual = residual(a, ones, {}, {});
  for (unsigned mask = 1; mask < (1u << usable.size()); ++mask) {
    std::vector<std::size_t> cols;
    for (std::size_t b = 0; b < usable.size(); ++b)
      if (mask & (1u << b)) cols.push_back(usable[b]);
    const auto x = solve(a, ones, cols);
    if (!x) continue;
    bool feasible = true;
    for (double v : *x) feasible = feasible && v >= 0;
    if (!feasible) continue;
    const double r = residual(a, ones, cols, *x);
    if (r < best_residual) {
      best_residual = r;
      best.coefficients.assign(k, 0);
      for (std::size_t c = 0; c < cols.size(); ++c) best.coefficients[cols[c]] = (*x)[c];
    }
  }
  best.predicted.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double pred = known.empty() ? 0 : known[i];
    for (std::size_t j = 0; j < k; ++j) pred += rows[i][j] * best.coefficients[j];
    best.predicted[i] = pred;
  }
  return best;
}

}  // namespace gradsync::sim
