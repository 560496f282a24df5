// The calibration's collinearity step (harness/sim/calibration_columns.h):
// which constants a design matrix lets the fit identify, which it folds into
// beta, at what threshold, and which it refuses. Each design is made here,
// its columns o, alpha, beta, gamma, delta.
#include <gtest/gtest.h>

#include "harness/sim/calibration_columns.h"
#include "harness/sim/fit.h"

namespace gradsync::sim {
namespace {

using Rows = std::vector<std::vector<double>>;

// Eight points on which messages, bytes, reduced and contended bytes each
// take the values 1 and 3 in a pattern of their own (2 + a column of a
// Hadamard matrix), one call each: the others leave 20% of each of those
// columns' squared norm unexplained, twenty times kNearlyCollinear, and 6%
// of the calls'. Times are 1, so the weighted space is the design's own.
Rows well_conditioned() {
  return {{1, 3, 3, 3, 3}, {1, 1, 3, 1, 3}, {1, 3, 1, 1, 3}, {1, 1, 1, 3, 3},
          {1, 3, 3, 3, 1}, {1, 1, 3, 1, 1}, {1, 3, 1, 1, 1}, {1, 1, 1, 3, 1}};
}

std::vector<double> ones(const Rows& rows) { return std::vector<double>(rows.size(), 1.0); }

// What choose_columns makes of each column of `rows` (times 1), o to delta:
// F fitted, b folded into beta, - neither; then "!" when it finds a
// constant it cannot identify.
std::string choice(const Rows& rows, bool fixed_messages = false) {
  const ColumnChoice c = choose_columns(rows, ones(rows), fixed_messages);
  std::string out;
  for (int column = 0; column < kCostColumns; ++column)
    out += c.fitted[column] ? 'F' : c.folded[column] ? 'b' : '-';
  return c.unidentified ? out + "!" : out;
}

// The well-conditioned design with each row changed by `change`.
template <typename Change>
Rows changed(Change change) {
  Rows rows = well_conditioned();
  for (auto& r : rows) change(r);
  return rows;
}

TEST(SimCalibrationColumns, AWellConditionedDesignIsFittedWhole) {
  EXPECT_EQ(choice(well_conditioned()), "FFFFF");
}

// A ring adds half the bytes it sends: gamma moves in step with beta, so it
// is folded into beta; nothing else changes.
TEST(SimCalibrationColumns, ReductionInStepWithTransferIsFoldedIntoBeta) {
  EXPECT_EQ(choice(changed([](auto& r) { r[kReduced] = r[kBytes] / 2; })), "FFFbF");
}

// Contention the data never vary is beta's: none at all (one flow per
// link), or always the same number of flows (contended bytes a fixed share
// of the bytes).
TEST(SimCalibrationColumns, ContentionThatNeverVariesIsFolded) {
  EXPECT_EQ(choice(changed([](auto& r) { r[kContended] = 0; })), "FFFFb");
  EXPECT_EQ(choice(changed([](auto& r) { r[kContended] = 3 * r[kBytes]; })), "FFFFb");
}

// Every message a whole segment: messages = bytes / segment, alpha folded;
// the other columns stay.
TEST(SimCalibrationColumns, MessagesInStepWithBytesFoldAlpha) {
  EXPECT_EQ(choice(changed([](auto& r) { r[kMessages] = r[kBytes] / 0.5; })), "FbFFF");
}

// A black box at one worker count: its messages are fixed, so alpha is not
// fitted, and that is not a fold (its time is in o, not in beta).
TEST(SimCalibrationColumns, FixedMessagesAreNotFittedNorFolded) {
  EXPECT_EQ(choice(well_conditioned(), true), "F-FFF");
}

// The threshold: gamma is folded when o and beta leave less than 1% of its
// squared norm unexplained. Here reduced = bytes + d (1, -1, -1, 1), whose
// wobble is orthogonal to both, so the share bytes alone leaves unexplained
// is 4 d^2 / (30 + 4 d^2): 0.83% at d = 0.25 (folded), 1.19% at d = 0.3
// (fitted).
TEST(SimCalibrationColumns, GammaIsFoldedBelowOnePercentUnexplained) {
  auto design = [](double d) {
    const double wobble[] = {1, -1, -1, 1};
    Rows rows;
    for (int i = 0; i < 4; ++i) rows.push_back({1, 0, i + 1.0, i + 1.0 + d * wobble[i], 0});
    return rows;
  };
  const Rows near = design(0.25), apart = design(0.3);
  EXPECT_EQ(unidentifiable_columns(near, ones(near), kNearlyCollinear)[kReduced], kBytes);
  EXPECT_EQ(unidentifiable_columns(apart, ones(apart), kNearlyCollinear)[kReduced], kIdentifiable);
  EXPECT_EQ(choice(near, true), "F-Fbb");  // delta: all zero
  EXPECT_EQ(choice(apart, true), "F-FFb");
}

// o, alpha and beta are never folded: one message per call at every point
// (one worker count) leaves o and alpha inseparable, and the step says which
// constant and what it moves with.
TEST(SimCalibrationColumns, OverheadInStepWithLatencyIsUnidentified) {
  const Rows rows = changed([](auto& r) { r[kMessages] = 3 * r[kCalls]; });
  EXPECT_EQ(choice(rows), "FFFFF!");  // neither is folded away
  const ColumnChoice c = choose_columns(rows, ones(rows), false);
  ASSERT_TRUE(c.unidentified.has_value());
  EXPECT_EQ(c.unidentified->column, kCalls);
  EXPECT_EQ(c.unidentified->reproduced_by, kMessages);
  EXPECT_EQ(unidentified_text(*c.unidentified),
            "the data cannot identify the per-call overhead o (it moves in step with the "
            "per-message latency alpha)");
}

// No one constant in step with another, but bytes = calls + messages: the
// three together are not identifiable, and the first of them is named.
TEST(SimCalibrationColumns, ConstantsTheOthersSpanAreUnidentified) {
  const Rows rows = changed([](auto& r) { r[kBytes] = r[kCalls] + r[kMessages]; });
  const ColumnChoice c = choose_columns(rows, ones(rows), false);
  ASSERT_TRUE(c.unidentified.has_value());
  EXPECT_EQ(c.unidentified->column, kCalls);
  EXPECT_EQ(c.unidentified->reproduced_by, kSpannedByOthers);
  EXPECT_EQ(unidentified_text(*c.unidentified),
            "the data cannot identify the per-call overhead o (the other constants explain it)");
}

}  // namespace
}  // namespace gradsync::sim
