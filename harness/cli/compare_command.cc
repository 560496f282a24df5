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
  const auto base = read_results(options.base);
  const auto fresh = read_results(options.fresh);
  const CompareOutcome outcome = compare_records(base, fresh, options);
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
