// The lines the ranks agree on before work: which rank failed, and which
// option the ranks disagree on with every rank's value.
#include "harness/engine/agreement.h"

#include <gtest/gtest.h>

namespace gradsync {
namespace {

TEST(FailureMessage, NoneWhenEveryRankIsFine) {
  EXPECT_EQ(failure_message({"", "", ""}), "");
}

TEST(FailureMessage, TheErrorAloneWhenEveryRankFailedAlike) {
  EXPECT_EQ(failure_message({"--lr nan: not a finite number", "--lr nan: not a finite number"}),
            "--lr nan: not a finite number");
}

TEST(FailureMessage, TheLowestFailingRankOtherwise) {
  EXPECT_EQ(failure_message({"", "no folder", ""}), "rank 1: no folder");
  EXPECT_EQ(failure_message({"", "no folder", "bad size", "no folder"}),
            "rank 1: no folder (2 other ranks failed too)");
  EXPECT_EQ(failure_message({"a", "b"}), "rank 0: a (1 other rank failed too)");
}

TEST(ConfigDifference, NoneWhenEqual) {
  const nlohmann::json config = {{"subcommand", "train"}, {"--batch-size", "64"}};
  EXPECT_EQ(config_difference({config, config, config}), "");
}

TEST(ConfigDifference, NamesTheOptionAndGroupsTheRanksByValue) {
  std::vector<nlohmann::json> configs(5, {{"subcommand", "collectives"}, {"--ring-segment", "524288"}});
  configs[1]["--ring-segment"] = "65536";
  configs[3]["--ring-segment"] = "65536";
  EXPECT_EQ(config_difference(configs),
            "ranks disagree on --ring-segment: ranks 0,2,4: 524288; ranks 1,3: 65536");
  configs = std::vector<nlohmann::json>(5, {{"--x", "1"}});
  configs[4]["--x"] = "2";
  EXPECT_EQ(config_difference(configs), "ranks disagree on --x: ranks 0-3: 1; rank 4: 2");
}

TEST(ConfigDifference, CountsTheOtherDifferingOptions) {
  nlohmann::json a = {{"--a", "1"}, {"--b", "1"}, {"--c", "1"}};
  nlohmann::json b = {{"--a", "2"}, {"--b", "2"}, {"--c", "1"}, {"--d", "1"}};
  EXPECT_EQ(config_difference({a, b}), "ranks disagree on --a: rank 0: 1; rank 1: 2 (and 2 more: --b --d)");
}

TEST(ConfigDifference, SubcommandFirstAndAlone) {
  nlohmann::json a = {{"subcommand", "train"}, {"--batch-size", "32"}};
  nlohmann::json b = {{"subcommand", "collectives"}, {"--iters", "20"}};
  EXPECT_EQ(config_difference({a, b}),
            "ranks disagree on subcommand: rank 0: train; rank 1: collectives");
}

}  // namespace
}  // namespace gradsync
