// The refusal of flags that do not act (harness/cli/flag_scope.h,
// command_scopes.h): which strategies read which option, a scope's one
// line, a flag of another subcommand, and the --train-args a sweep's run
// keeps. The command-line table of refusals is tests/cli/refusals.sh.
#include "harness/cli/flag_scope.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cli/command_scopes.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

OwnedOptionFlag option_flag(std::string_view name) {
  for (const OwnedOptionFlag& owned : strategy_option_flags())
    if (owned.flag->flag == name) return owned;
  throw std::logic_error("no option flag " + std::string(name));
}

std::string idle(std::string_view strategy, std::string_view flag,
                 const StrategyOptions& options = {}) {
  return idle_option_reason(find_strategy(strategy), option_flag(flag), options);
}

TEST(FlagScope, AStrategyReadsItsOwnTheCommonAndItsSharedFlags) {
  EXPECT_EQ(idle("ring-mpi", "--ring-segment"), "");
  EXPECT_EQ(idle("double-tree-mpi", "--tree-segment"), "");   // tree-mpi's, shared
  EXPECT_EQ(idle("hierarchical-mpi", "--ring-segment"), "");  // its inner ring's
  EXPECT_EQ(idle("halving-doubling-mpi", "--short-allreduce"), "");
  EXPECT_EQ(idle("none", "--timeout"), "");
  EXPECT_EQ(idle("ps-zmq", "--compression"), "");
  EXPECT_EQ(idle("ps-zmq", "--ring-segment"),
            "is for ring-mpi, hierarchical-mpi, zero2-ring-mpi, zero3-ring-mpi");
  EXPECT_EQ(idle("mpi-allreduce", "--short-allreduce"),
            "is for ring-mpi, tree-mpi, double-tree-mpi, halving-doubling-mpi, hierarchical-mpi");
  EXPECT_EQ(idle("ring-mpi", "--ps-servers"), "is for ps-zmq");
}

TEST(FlagScope, AnOptionActsOnlyWithTheOptionsItNeeds) {
  StrategyOptions ssp;
  ssp.ps.mode = PsMode::ssp;
  EXPECT_EQ(idle("ps-zmq", "--ps-staleness"), "is for --ps-mode ssp");
  EXPECT_EQ(idle("ps-zmq", "--ps-staleness", ssp), "");
  EXPECT_EQ(idle("ps-zmq", "--ps-shm", ssp), "is for --ps-mode sync");
  StrategyOptions over_mpi;
  over_mpi.ps.transport = "mpi";
  EXPECT_EQ(idle("ps-zmq", "--ps-curve"), "");
  EXPECT_EQ(idle("ps-zmq", "--ps-curve", over_mpi), "is for --ps-transport tcp or ipc");
  EXPECT_EQ(idle("ps-zmq", "--ps-bind", over_mpi), "is for --ps-transport tcp");
  EXPECT_EQ(idle("ps-zmq", "--ps-shm", over_mpi), "is for --ps-transport tcp or ipc");
  // The threads of a shared-memory sum: only where sums take that path.
  StrategyOptions shm_off;
  shm_off.ps.shm = "off";
  EXPECT_EQ(idle("ps-zmq", "--ps-sum-threads"), "");
  EXPECT_EQ(idle("ps-zmq", "--ps-sum-threads", shm_off), "is for --ps-shm auto or copy");
  EXPECT_EQ(idle("ps-zmq", "--ps-sum-threads", ssp), "is for --ps-mode sync");
  EXPECT_EQ(idle("ps-zmq", "--ps-sum-threads", over_mpi), "is for --ps-transport tcp or ipc");
}

// An app with two subcommands, `run` of them parsed with `args`.
struct TwoCommands {
  CLI::App app{"test", "gradsync"};
  CLI::App* a = app.add_subcommand("alpha");
  CLI::App* b = app.add_subcommand("beta");
  std::string mode = "one", extra, only_b;
  TwoCommands() {
    a->add_option("--mode", mode);
    a->add_option("--extra", extra);
    b->add_option("--only-b", only_b);
  }
};

TEST(FlagScope, ARefusalNamesTheFlagAndWhatItWasGivenWith) {
  TwoCommands t;
  t.app.parse(std::vector<std::string>{"x", "--extra", "alpha"});  // CLI11's reversed order
  const std::vector<FlagScope> scopes = {
      {"--mode", false, "alpha --mode one", "is never refused when not given"},
      {"--extra", true, "alpha --mode one", "acts"},
  };
  EXPECT_NO_THROW(refuse_out_of_scope(*t.a, scopes));
  const std::vector<FlagScope> refused = {
      {"--extra", false, "alpha --mode one", "is for --mode two"}};
  try {
    refuse_out_of_scope(*t.a, refused);
    FAIL() << "not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--extra does not apply to alpha --mode one: it is for --mode two");
  }
}

TEST(FlagScope, AFlagOfAnotherSubcommandIsSaidToBeSo) {
  TwoCommands t;
  try {
    t.app.parse(std::vector<std::string>{"x", "--only-b", "alpha"});
    FAIL() << "parsed";
  } catch (const CLI::ExtrasError& e) {
    EXPECT_EQ(misplaced_flag_line(t.app, e),
              "--only-b does not apply to alpha (it is a flag of beta)");
  }
  TwoCommands u;
  try {
    u.app.parse(std::vector<std::string>{"--nowhere", "alpha"});
    FAIL() << "parsed";
  } catch (const CLI::ExtrasError& e) {
    EXPECT_EQ(misplaced_flag_line(u.app, e), "");  // CLI11's own words then
  }
}

TEST(FlagScope, ASweepRunKeepsTheTrainArgsThatActOnIt) {
  const std::vector<std::string> ring = {"gradsync", "train", "--strategy", "ring-mpi"};
  const std::vector<std::string> extra = {
      "--batch-size", "8", "--ps-servers", "2", "--ps-curve=off", "--ring-segment", "64K"};
  EXPECT_EQ(train_args_acting_on(ring, extra),
            (std::vector<std::string>{"--batch-size", "8", "--ring-segment", "64K"}));
  const std::vector<std::string> ps = {"gradsync", "train", "--strategy", "ps-zmq"};
  EXPECT_EQ(train_args_acting_on(ps, extra),
            (std::vector<std::string>{"--batch-size", "8", "--ps-servers", "2", "--ps-curve=off"}));
  const std::vector<std::string> fixed = {"gradsync", "train", "--fusion-mb", "4"};
  EXPECT_EQ(train_args_acting_on(fixed, {"--fusion-search-steps", "2"}),
            std::vector<std::string>{});
  const std::vector<std::string> searched = {"gradsync", "train", "--fusion-mb", "auto"};
  EXPECT_EQ(train_args_acting_on(searched, {"--fusion-search-steps", "2"}),
            (std::vector<std::string>{"--fusion-search-steps", "2"}));
}

}  // namespace
}  // namespace gradsync
