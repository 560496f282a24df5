#pragma once
// The last guard before a table prints: a figure that is not a finite
// number ("nan%", "-nan", "inf s") means an input got past its checks
// (harness/engine/input_rules.h) and a division or product went wrong; the
// table is refused with the column and row named, never printed with it.

#include "harness/results/report_table.h"

namespace gradsync {

// Throws std::runtime_error "TABLE: column n=16, row vgg16 nccl-ring: not a
// finite number (-nan%)" for the first figure cell (past the label columns)
// that holds nan or inf.
void require_finite_cells(const ReportTable& table);

// to_markdown(table), once require_finite_cells passed: what the simulate
// modes print their tables with.
std::string finite_markdown(const ReportTable& table);

}  // namespace gradsync
