#include "harness/sim/calibration_columns.h"

#include <fmt/format.h>

#include "harness/sim/fit.h"

namespace gradsync::sim {

std::vector<double> cost_row(const CostTerms& t) {
  return {t.calls, t.messages, t.bytes, t.reduced, t.contended};
}

// The collinearity step. Some constants may move in step with beta in a
// group's data, whatever is measured: contention that never varies (one
// flow per link, or always the same number), a ring's reduced bytes (always
// half its transferred bytes), and the messages when every message is a
// whole segment (no size below the segment: messages = bytes / segment).
// Such a constant is folded into beta: left out of the fit, which then
// predicts the strategy as well over the sizes measured, and the fit says
// so. In order, each step judged on the columns still in the model:
//   1. delta, when the others nearly reproduce it (kNearlyCollinear), or it
//      is all zero;
//   2. gamma, likewise;
//   3. alpha, when beta alone reproduces it exactly (the whole-segment
//      case; alpha exactly in step with anything else is not folded).
// Then o, alpha and beta, whichever are still fitted, must be identifiable
// exactly (within rounding); the first that is not is reported, and the
// calibration refuses the group, saying what to measure.
ColumnChoice choose_columns(const std::vector<std::vector<double>>& rows,
                            const std::vector<double>& y, bool fixed_messages) {
  ColumnChoice choice;
  if (fixed_messages) choice.fitted[kMessages] = false;
  auto fold = [&](int column) {
    choice.fitted[column] = false;
    choice.folded[column] = true;
  };
  for (int column : {kContended, kReduced})
    if (unidentifiable_columns(rows, y, kNearlyCollinear, choice.fitted)[column] != kIdentifiable)
      fold(column);
  if (unidentifiable_columns(rows, y, kExactly, choice.fitted)[kMessages] == kBytes)
    fold(kMessages);
  const std::vector<int> exact = unidentifiable_columns(rows, y, kExactly, choice.fitted);
  for (int column : {kCalls, kMessages, kBytes})
    if (choice.fitted[column] && exact[column] != kIdentifiable) {
      choice.unidentified = ColumnChoice::Unidentified{column, exact[column]};
      break;
    }
  return choice;
}

std::string unidentified_text(const ColumnChoice::Unidentified& u) {
  return fmt::format("the data cannot identify the {} ({})", kCostColumnNames[u.column],
                     u.reproduced_by >= 0 ? fmt::format("it moves in step with the {}",
                                                        kCostColumnNames[u.reproduced_by])
                                          : std::string("the other constants explain it"));
}

}  // namespace gradsync::sim
