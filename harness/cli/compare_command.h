#pragma once
// `gradsync compare BASE NEW`: the CI regression gate's command line. What
// it judges and how is results/compare.h; this reads both sides, prints the
// table, the failed checks, what was not compared and the verdict line.

#include <CLI/CLI.hpp>
#include <ostream>

#include "harness/results/compare.h"

namespace gradsync {

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options);

// Returns 0 when nothing regressed or failed, 1 otherwise. Throws
// std::runtime_error on bad input (missing file, corrupt record, nothing in
// common).
int run_compare(const CompareOptions& options, std::ostream& out);

}  // namespace gradsync
