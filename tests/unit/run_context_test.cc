// The parts of a run's context that are read from text.
#include "harness/results/run_context.h"

#include <gtest/gtest.h>

namespace gradsync {
namespace {

TEST(RunContext, CommandLinesAreQuotedOnlyWhereTheShellNeedsIt) {
  const std::vector<std::string> args = {
      "gradsync", "collectives",      "-b",   "4", "--strategy", "ring-mpi,none",
      "--json",   "my results.jsonl", "it's", ""};
  EXPECT_EQ(shell_join(args),
            "gradsync collectives -b 4 --strategy ring-mpi,none --json 'my results.jsonl' "
            "'it'\\''s' ''");
}

TEST(RunContext, CpuModelIsTheFirstModelName) {
  EXPECT_EQ(cpu_model_from_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                                   "model name\t: AMD EPYC 7B13\nprocessor\t: 1\n"
                                   "model name\t: other\n"),
            "AMD EPYC 7B13");
  EXPECT_EQ(cpu_model_from_cpuinfo("processor : 0\n"), "unknown");
}

}  // namespace
}  // namespace gradsync
