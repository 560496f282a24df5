// What a sweep has done (harness/cli/sweep_ledger.h): the configurations a
// results file holds, found by their config digest and rank count, and the
// ones whose last attempt failed.
#include "harness/cli/sweep_ledger.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/results/result_file.h"

namespace gradsync {
namespace {

nlohmann::json train_record(const std::string& digest, int ranks) {
  nlohmann::json r = new_record("train");
  r["ranks"] = ranks;
  r["context"] = {{"config_digest", digest}};
  return r;
}

TEST(SweepLedger, TheDigestIsTheConfigurationNotTheSpelling) {
  const std::string a = train_config_digest({"train", "--model", "small-cnn", "--batch-size", "4"});
  EXPECT_EQ(a.rfind("fnv1a64:", 0), 0u) << a;
  // The default spelled out, another order, another --out: the same configuration.
  EXPECT_EQ(a, train_config_digest({"train", "--batch-size", "4", "--model", "small-cnn", "--lr",
                                    "0.01", "--out", "/elsewhere.jsonl"}));
  EXPECT_NE(a, train_config_digest({"train", "--model", "small-cnn", "--batch-size", "8"}));
  EXPECT_THROW(train_config_digest({"train", "--bogus"}), std::invalid_argument);
}

TEST(SweepLedger, DoneConfigurationsAreKeyedByDigestAndRanksAndSurviveATornLine) {
  const auto dir = std::filesystem::temp_directory_path() / "gradsync_sweep_ledger_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto file = dir / "train.jsonl";
  std::vector<std::string> warnings;
  EXPECT_TRUE(done_configurations(file, warnings).empty());  // no file yet: nothing done
  append_record(file, train_record("fnv1a64:aa", 2));
  append_record(file, new_record("collectives"));
  { std::ofstream(file, std::ios::app) << "{\"schema\": \"gradsync.res"; }  // a torn line
  append_record(file, train_record("fnv1a64:aa", 4));
  const auto done = done_configurations(file, warnings);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done.at(configuration_key("fnv1a64:aa", 2)), file.string() + ":1");
  EXPECT_EQ(done.at(configuration_key("fnv1a64:aa", 4)), file.string() + ":4");
  EXPECT_EQ(done.count(configuration_key("fnv1a64:aa", 3)), 0u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(":3:"), std::string::npos) << warnings[0];
  std::filesystem::remove_all(dir);
}

TEST(SweepLedger, AConfigurationIsListedFailedOnlyWhenItsLastAttemptFailed) {
  auto attempt = [](const std::string& strategy, const std::string& status) {
    SweepAttempt a;
    a.model = "small-cnn", a.compute = "cpu", a.strategy = strategy, a.workers = 2, a.ranks = 2;
    a.config_digest = "fnv1a64:" + strategy;
    a.status = status;
    a.exit_status = status == "failed" ? 1 : 0;
    a.reason = status == "failed" ? "gradsync: error: boom" : "";
    return sweep_attempt_record(a);
  };
  const auto failed = failed_configurations({attempt("ring-mpi", "failed"),
                                             attempt("tree-mpi", "failed"),
                                             attempt("ring-mpi", "done"),
                                             attempt("ps-zmq", "stopped")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], "small-cnn cpu tree-mpi x2: exit 1: gradsync: error: boom");
}

TEST(SweepLedger, AFailedRunWithAnInputStageIsNamedWithIt) {
  SweepAttempt a;
  a.model = "small-cnn", a.compute = "cpu", a.strategy = "none", a.workers = 1, a.ranks = 1;
  a.config_digest = "fnv1a64:bb", a.status = "failed", a.exit_status = 1, a.reason = "boom";
  a.input = "decode:2ms";
  const auto record = sweep_attempt_record(a);
  EXPECT_EQ(record.at("input"), "decode:2ms");
  EXPECT_EQ(failed_configurations({record}),
            std::vector<std::string>{"small-cnn cpu none x1 input decode:2ms: exit 1: boom"});
  a.input = "synthetic";  // no input stage: the record has none, as before
  EXPECT_FALSE(sweep_attempt_record(a).contains("input"));
}

}  // namespace
}  // namespace gradsync
