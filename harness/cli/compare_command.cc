#include "harness/cli/compare_command.h"

#include "harness/cli/size_flag.h"
#include "harness/results/result_file.h"

namespace gradsync {

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options) {
  auto* cmd = app.add_subcommand(
      "compare",
      "CI regression gate: compare ratios between strategies measured in the same run; exit 1 "
      "when one dropped beyond the tolerance or a record failed its check, 2 on bad input");
  cmd->add_option("base", options.base, "reference results: a file or a directory of .jsonl files")
      ->required()
      ->type_name("BASE");
  cmd->add_option("new", options.fresh, "results to judge: a file or a directory of .jsonl files")
      ->required()
      ->type_name("NEW");
  cmd->add_option("--tolerance", options.tolerance,
                  "fail when a ratio drops below BASE x (1 - this), e.g. 0.10 = 10%")
      ->check(CLI::Range(0.0, 0.99));
  cmd->add_option("--reference", options.reference,
                  "train records: the strategy every other is divided by, at the same workers");
  cmd->add_option("--collectives-reference", options.collectives_reference,
                  "collectives records: the strategy every other is divided by");
  add_size_flag(*cmd, "--min-size", options.min_size_bytes,
                "collectives records: only sizes from this one up count (small ones are noise)");
  return cmd;
}

int run_compare(const CompareOptions& options, std::ostream& out) {
  // Each side streamed into its fold: what is held is a figure per configuration.
  SideFold base(options), fresh(options);
  visit_results({options.base}, {[&](StoredRecord&& r) { base.add(r); }, {}});
  visit_results({options.fresh}, {[&](StoredRecord&& r) { fresh.add(r); }, {}});
  const SideRatios before = base.ratios();
  const CompareOutcome outcome = compare_sides(before, fresh.ratios(), options);
  out << to_markdown(comparison_table(outcome, options));
  if (!outcome.failed_checks.empty()) {
    out << "\nRecords of NEW that failed their correctness check:\n";
    for (const auto& failure : outcome.failed_checks) out << "- " << failure << "\n";
  }
  if (!outcome.notes.empty()) {
    out << "\nNot compared:\n";
    for (const auto& note : outcome.notes) out << "- " << note << "\n";
  }
  out << "\n" << verdict_line(outcome, options) << "\n";
  return outcome.passed() ? 0 : 1;
}

}  // namespace gradsync
