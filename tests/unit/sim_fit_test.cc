// The calibration's least squares (harness/sim/fit.h): exact recovery of
// known coefficients, non-negativity, and the identifiability check that
// lets calibrate refuse data that cannot tell two constants apart.
#include <gtest/gtest.h>

#include "harness/sim/fit.h"

namespace gradsync::sim {
namespace {

TEST(SimFit, RecoversKnownCoefficientsExactly) {
  // y = 2 + 3 x + 0.5 x^2 at x = 1..5: columns 1, x, x^2.
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (double x = 1; x <= 5; ++x) {
    rows.push_back({1, x, x * x});
    y.push_back(2 + 3 * x + 0.5 * x * x);
  }
  const auto fit = fit_nonnegative(rows, y, {true, true, true});
  EXPECT_NEAR(fit.coefficients[0], 2.0, 1e-9);
  EXPECT_NEAR(fit.coefficients[1], 3.0, 1e-9);
  EXPECT_NEAR(fit.coefficients[2], 0.5, 1e-9);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(fit.predicted[i], y[i], 1e-9 * y[i]);
}

TEST(SimFit, NeverReturnsANegativeCoefficient) {
  // y = 10 - x would need a negative slope: the best non-negative fit keeps
  // the slope at 0 and fits the constant alone.
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (double x = 1; x <= 4; ++x) {
    rows.push_back({1, x});
    y.push_back(10 - x);
  }
  const auto fit = fit_nonnegative(rows, y, {true, true});
  EXPECT_EQ(fit.coefficients[1], 0.0);
  EXPECT_GT(fit.coefficients[0], 0.0);
  // The constant minimizing sum ((c - y)/y)^2 is sum(1/y) / sum(1/y^2).
  double s1 = 0, s2 = 0;
  for (double v : y) s1 += 1 / v, s2 += 1 / (v * v);
  EXPECT_NEAR(fit.coefficients[0], s1 / s2, 1e-9);
}

TEST(SimFit, AKnownPartIsHeldFixedAndIncludedInThePrediction) {
  // y = 4 x + 1 with the slope's first 3 known: the fit finds the other 1
  // and the constant, and predicts y itself.
  std::vector<std::vector<double>> rows;
  std::vector<double> y, known;
  for (double x = 1; x <= 4; ++x) {
    rows.push_back({1, x});
    y.push_back(4 * x + 1);
    known.push_back(3 * x);
  }
  const auto fit = fit_nonnegative(rows, y, {true, true}, known);
  EXPECT_NEAR(fit.coefficients[0], 1.0, 1e-9);
  EXPECT_NEAR(fit.coefficients[1], 1.0, 1e-9);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(fit.predicted[i], y[i], 1e-9 * y[i]);
  // A known part above y leaves nothing to fit: every coefficient 0.
  const auto over = fit_nonnegative(rows, y, {true, true}, std::vector<double>(4, 100.0));
  EXPECT_EQ(over.coefficients, (std::vector<double>{0, 0}));
  EXPECT_THROW(fit_nonnegative(rows, y, {true, true}, {1.0}), std::invalid_argument);
}

TEST(SimFit, UnusedColumnsStayZero) {
  const std::vector<std::vector<double>> rows = {{1, 1}, {1, 2}, {1, 3}};
  const std::vector<double> y = {3, 5, 7};
  const auto fit = fit_nonnegative(rows, y, {false, true});
  EXPECT_EQ(fit.coefficients[0], 0.0);
  EXPECT_GT(fit.coefficients[1], 0.0);
}

// Column 2 is twice column 1; column 3 is column 0 + column 1 (so columns 1
// and 3 span column 0); column 4 is all zero.
struct DependentColumns {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  DependentColumns() {
    for (double x = 1; x <= 5; ++x) {
      rows.push_back({1, x, 2 * x, 1 + x, 0});
      y.push_back(1 + x);
    }
  }
};

TEST(SimFit, FindsProportionalAndDependentColumns) {
  const DependentColumns d;
  EXPECT_EQ(unidentifiable_columns(d.rows, d.y),
            (std::vector<int>{kSpannedByOthers, 2, 1, kSpannedByOthers, kZeroColumn}));
}

TEST(SimFit, AColumnLeftOutOfTheModelNeitherIsCheckedNorExplainsOthers) {
  // Without column 2, column 1 has no partner alone but columns 0 and 3
  // still span it; without column 3 too, every column left is identifiable.
  const DependentColumns d;
  EXPECT_EQ(unidentifiable_columns(d.rows, d.y, kExactly, {true, true, false, true, false}),
            (std::vector<int>{kSpannedByOthers, kSpannedByOthers, kNotInModel, kSpannedByOthers,
                              kNotInModel}));
  EXPECT_EQ(
      unidentifiable_columns(d.rows, d.y, kExactly, {true, true, false, false, false}),
      (std::vector<int>{kIdentifiable, kIdentifiable, kNotInModel, kNotInModel, kNotInModel}));
  EXPECT_THROW(unidentifiable_columns(d.rows, d.y, kExactly, {true}), std::invalid_argument);
}

TEST(SimFit, IndependentColumnsAreIdentifiable) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (double x = 1; x <= 5; ++x) {
    rows.push_back({1, x, x * x});
    y.push_back(x);
  }
  EXPECT_EQ(unidentifiable_columns(rows, y), std::vector<int>(3, kIdentifiable));
}

TEST(SimFit, RefusesANonPositiveValueAndMismatchedSizes) {
  EXPECT_THROW(fit_nonnegative({{1}}, {0.0}, {true}), std::invalid_argument);
  EXPECT_THROW(fit_nonnegative({{1}, {2}}, {1.0}, {true}), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync::sim
