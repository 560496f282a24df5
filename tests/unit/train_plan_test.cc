// `gradsync train`'s flags become a typed plan once (harness/cli/train_command.h):
// every named value maps to its enum or is a one-line error naming the flag
// and the known values (never a silent fallback), names are resolved, and
// the precision default is filled in for cuda compute only.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

#include "harness/cli/train_command.h"
#include "models/cuda_model.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// Parses `train ARGS` as the binary does; CLI11's errors propagate.
TrainFlags parse(const std::string& args) {
  CLI::App app{"test"};
  app.option_defaults()->always_capture_default();
  TrainFlags flags;
  StrategyOptions strategy_options;
  add_train_command(app, flags, strategy_options);
  app.parse("train " + args);
  return flags;
}

TrainPlan plan(const std::string& args) { return plan_train(parse(args), StrategyOptions{}); }

// The one-line message CLI11 gives for `train ARGS`.
std::string parse_error(const std::string& args) {
  try {
    (void)parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "accepted";
}

// The one-line message plan_train gives for `train ARGS`.
std::string plan_error(const std::string& args) {
  try {
    (void)plan(args);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST(TrainPlan, DefaultsAreTyped) {
  const TrainPlan p = plan("");
  EXPECT_EQ(p.strategy->name, default_strategy_names().front());
  EXPECT_EQ(p.settings.model_options.compute, ComputeMode::cpu);
  EXPECT_EQ(p.settings.model_options.precision, Precision::fp32);
  EXPECT_TRUE(p.settings.sync.overlap);
  EXPECT_EQ(p.settings.model, "small-cnn");
}

TEST(TrainPlan, NamedValuesBecomeTheirEnums) {
  const TrainPlan p = plan("--compute emulated --device a100 --overlap off --strategy none");
  EXPECT_EQ(p.settings.model_options.compute, ComputeMode::emulated);
  EXPECT_EQ(p.settings.model_options.profile.name, "a100");
  EXPECT_GT(p.settings.model_options.profile.flops_per_second, 0);
  EXPECT_FALSE(p.settings.sync.overlap);
  EXPECT_EQ(p.strategy->name, "none");
}

TEST(TrainPlan, AnUnknownValueIsOneLineNamingTheFlagAndTheKnownValues) {
  EXPECT_EQ(parse_error("--compute bogus"), "--compute: bogus not in {cpu,emulated,cuda}");
  EXPECT_EQ(parse_error("--compute CPU"), "--compute: CPU not in {cpu,emulated,cuda}");
  EXPECT_EQ(parse_error("--precision fp64"), "--precision: fp64 not in {fp32,tf32,mixed}");
  EXPECT_EQ(parse_error("--overlap yes"), "--overlap: yes not in {on,off}");
}

TEST(TrainPlan, UnknownNamesAreRefusedNamingTheFlag) {
  EXPECT_TRUE(starts_with(plan_error("--strategy bogus"), "--strategy: unknown strategy 'bogus'"))
      << plan_error("--strategy bogus");
  EXPECT_TRUE(starts_with(plan_error("--strategy none,ring-mpi"), "--strategy: unknown strategy"));
  EXPECT_TRUE(starts_with(plan_error("--model nosuch"), "--model: unknown model 'nosuch'"));
  EXPECT_TRUE(starts_with(plan_error("--compute emulated --device tpu"),
                          "--device: unknown device profile 'tpu'"));
  EXPECT_EQ(plan_error("--fusion-mb -1"),
            "--fusion-mb: expected auto or a threshold in MiB, 0 or more (0: no fusion), got '-1'");
  EXPECT_EQ(
      plan_error("--fusion-mb 16x"),
      "--fusion-mb: expected auto or a threshold in MiB, 0 or more (0: no fusion), got '16x'");
  EXPECT_EQ(plan_error("--fusion-search-steps 0 --fusion-mb auto"),
            "--fusion-search-steps must be at least 1");

  EXPECT_EQ(plan_error("--timeline-steps -1"), "--timeline-steps must be 0 or more");
}

TEST(TrainPlan, FusionIsAThresholdOrAuto) {
  EXPECT_EQ(plan("--fusion-mb 16").settings.sync.fusion_mb, 16);
  EXPECT_FALSE(plan("--fusion-mb 16").settings.fusion_search_steps);
  EXPECT_FALSE(plan("").settings.fusion_search_steps);
  const TrainPlan automatic = plan("--fusion-mb auto");
  EXPECT_EQ(automatic.settings.fusion_search_steps, kFusionSearchSteps);
  EXPECT_EQ(automatic.settings.sync.fusion_mb, SyncOptions{}.fusion_mb);  // where it starts
  EXPECT_EQ(plan("--fusion-mb auto --fusion-search-steps 5").settings.fusion_search_steps, 5);
  EXPECT_FALSE(
      plan("--fusion-search-steps 5").settings.fusion_search_steps);  // unused, not refused
}

TEST(TrainPlan, PrecisionIsForCudaComputeOnly) {
  EXPECT_EQ(plan_error("--precision mixed"),
            "--precision mixed is for --compute cuda (cpu compute runs in fp32)");
  EXPECT_EQ(plan_error("--compute emulated --precision fp32"),
            "--precision fp32 is for --compute cuda (emulated compute runs in fp32)");
}

TEST(TrainPlan, CudaComputeDefaultsToFp32) {
  if (!cuda_compute_built()) {
    EXPECT_TRUE(starts_with(plan_error("--compute cuda"), "--compute cuda: "));
    GTEST_SKIP() << "cuda compute is not built";
  }
  const TrainPlan fp32 = plan("--compute cuda");
  EXPECT_EQ(fp32.settings.model_options.compute, ComputeMode::cuda);
  EXPECT_EQ(fp32.settings.model_options.precision, Precision::fp32);
  EXPECT_EQ(plan("--compute cuda --precision tf32").settings.model_options.precision,
            Precision::tf32);
}

TEST(TrainPlan, HelpShowsTheDefaultsByName) {
  CLI::App app{"test"};
  app.option_defaults()->always_capture_default();
  TrainFlags flags;
  StrategyOptions strategy_options;
  CLI::App* train = add_train_command(app, flags, strategy_options);
  EXPECT_EQ(train->get_option("--strategy")->get_default_str(), default_strategy_names().front());
  EXPECT_EQ(train->get_option("--compute")->get_default_str(), "cpu");
  EXPECT_EQ(train->get_option("--overlap")->get_default_str(), "on");
  EXPECT_EQ(train->get_option("--precision")->get_default_str(), "");
  const std::string help = train->help();
  EXPECT_NE(help.find("--compute TEXT:{cpu,emulated,cuda}=cpu"), std::string::npos) << help;
  EXPECT_NE(help.find("--overlap TEXT:{on,off}=on"), std::string::npos) << help;
}

TEST(TrainPlan, EveryNameIsTheOneToStringWrites) {
  for (const auto& entry : kComputeModes) EXPECT_EQ(to_string(entry.value), entry.name);
  for (const auto& entry : kPrecisions) EXPECT_EQ(to_string(entry.value), entry.name);
  for (const auto& entry : kOnOff) EXPECT_EQ(on_off(entry.value), entry.name);
}

}  // namespace
}  // namespace gradsync
