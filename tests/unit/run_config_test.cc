// The effective options the ranks compare: one value per option whatever its
// spelling, per-rank files left out, non-finite numbers refused.
#include "harness/cli/run_config.h"

#include <gtest/gtest.h>

#include "harness/cli/size_flag.h"

namespace gradsync {
namespace {

struct Flags {
  CLI::App app{"test"};
  CLI::App* cmd = nullptr;
  std::uint64_t segment = 512 * 1024;
  double lr = 0.1;
  std::string out;
  std::vector<std::string> strategies = {"ring-mpi"};
  Flags() {
    app.option_defaults()->always_capture_default();
    cmd = app.add_subcommand("collectives");
    add_size_flag(*cmd, "--ring-segment", segment, "");
    cmd->add_option("--lr", lr, "");
    cmd->add_option("--out", out, "");
    cmd->add_option("--strategy", strategies, "");
  }
  nlohmann::json parse(std::vector<std::string> args) {
    args.insert(args.begin(), "collectives");
    std::reverse(args.begin(), args.end());
    app.parse(args);
    return effective_options(*cmd);
  }
};

TEST(EffectiveOptions, ADefaultAndTheSameValueGivenReadAlike) {
  const auto defaults = Flags().parse({});
  const auto given = Flags().parse({"--ring-segment", "512K", "--lr", "0.10"});
  EXPECT_EQ(defaults.at("--ring-segment"), "524288");
  EXPECT_EQ(defaults.at("--lr"), "0.1");
  EXPECT_EQ(defaults, given);
  EXPECT_EQ(agreed_config(defaults).digest, agreed_config(given).digest);
  EXPECT_NE(agreed_config(defaults).digest, agreed_config(Flags().parse({"--lr", "0.2"})).digest);
}

TEST(EffectiveOptions, NamesTheSubcommandAndBinaryAndLeavesOutPerRankFiles) {
  const auto options = Flags().parse({"--out", "x.jsonl", "--strategy", "ring-mpi,tree-mpi"});
  EXPECT_EQ(options.at("subcommand"), "collectives");
  EXPECT_FALSE(options.contains("--out"));
  EXPECT_FALSE(options.contains("--help"));
  EXPECT_TRUE(options.contains("gradsync"));
  EXPECT_EQ(options.at("--strategy"), "ring-mpi,tree-mpi");
  EXPECT_TRUE(agreed_config(options).digest.starts_with("fnv1a64:"));
  EXPECT_EQ(agreed_config(options).digest.size(), 8u + 16u);
}

TEST(CheckFiniteNumbers, RefusesNanInfAndOverflowNamingTheFlag) {
  for (const std::string bad : {"nan", "NaN", "inf", "-inf", "1e999"}) {
    Flags flags;
    flags.parse({"--lr", bad});
    try {
      check_finite_numbers(flags.app);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "--lr: must be a finite number (got " + bad + ")");
    }
  }
  Flags fine;
  fine.parse({"--lr", "1e-30", "--out", "nan.jsonl"});
  EXPECT_NO_THROW(check_finite_numbers(fine.app));
}

}  // namespace
}  // namespace gradsync
