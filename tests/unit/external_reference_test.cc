// External references (train records with "external", e.g. PyTorch DDP's
// ddp-gloo from scripts/ddp-reference.py): they share the workload and the
// tables with gradsync's strategies, but compute with their own framework, so
// their efficiency is against their own run at one worker, compare judges
// their own scaling, the tables mark them, the report's JSON names their
// role, the cost model refuses them, and a sweep plans their script's runs.
#include "harness/cli/external_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/cli/sweep_command.h"
#include "harness/results/compare.h"
#include "harness/results/efficiency.h"
#include "harness/results/report_json.h"
#include "harness/results/result_file.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/train_report.h"
#include "tests/unit/train_record_support.h"

namespace gradsync {
namespace {

// gradsync's none at 1000 img/s alone and ring-mpi at 800 per worker on 2;
// PyTorch at 400 alone (its own compute) and 300 per worker on 2.
std::vector<StoredRecord> mixed() {
  return {small_cnn_train("none", 1, 1000), small_cnn_train("ring-mpi", 2, 800),
          small_cnn_train("ddp-gloo", 1, 400, true), small_cnn_train("ddp-gloo", 2, 300, true)};
}

TEST(ExternalReference, EfficiencyIsAgainstItsOwnRunAtOneWorker) {
  const auto records = mixed();
  const auto runs = latest_train_runs(records, [](const TrainRun&) { return true; });
  const TrainRun* ddp = TrainRunIndex(runs).find(runs[0].workload, "ddp-gloo", 2);
  const TrainRun* ring = TrainRunIndex(runs).find(runs[0].workload, "ring-mpi", 2);
  ASSERT_TRUE(ddp && ring);
  EXPECT_EQ(ddp->external, "pytorch-ddp");
  EXPECT_EQ(ring->external, "");
  EXPECT_DOUBLE_EQ(scaling_efficiency(*ddp, baseline_run(TrainRunIndex(runs), *ddp))->value,
                   0.75);  // 600 / (2 x 400)
  EXPECT_DOUBLE_EQ(scaling_efficiency(*ring, baseline_run(TrainRunIndex(runs), *ring))->value,
                   0.8);  // against none
  // Without its own run at one worker there is none, never gradsync's `none`.
  const std::vector<StoredRecord> alone = {small_cnn_train("none", 1, 1000),
                                           small_cnn_train("ddp-gloo", 2, 300, true)};
  const auto lone = latest_train_runs(alone, [](const TrainRun&) { return true; });
  EXPECT_EQ(baseline_run(TrainRunIndex(lone), lone[1]), nullptr);
}

TEST(ExternalReference, OneTableWithItsRowsMarkedAndANoteUnderEach) {
  const auto tables = training_report(mixed());
  ASSERT_EQ(tables.size(), 3u);
  const auto& efficiency = tables[0];
  ASSERT_EQ(efficiency.rows.size(), 3u);  // none, ring-mpi and ddp-gloo in the one table
  const auto ddp = std::find_if(efficiency.rows.begin(), efficiency.rows.end(),
                                [](const auto& row) { return row[3] == "ddp-gloo (external)"; });
  ASSERT_NE(ddp, efficiency.rows.end());
  EXPECT_EQ((*ddp)[4], "100.0%");
  EXPECT_EQ((*ddp)[5], "75.0%");
  for (const auto& table : tables) {
    ASSERT_EQ(table.notes.size(), 1u) << table.caption;
    EXPECT_NE(table.notes[0].find("`ddp-gloo` is an external reference (pytorch-ddp)"),
              std::string::npos);
    EXPECT_NE(to_markdown(table).find(table.notes[0]), std::string::npos);
    EXPECT_EQ(to_csv(table).find("external reference"), std::string::npos);
  }
  // gradsync's own runs alone: no note.
  const std::vector<StoredRecord> own = {small_cnn_train("none", 1, 1000),
                                         small_cnn_train("ring-mpi", 2, 800)};
  EXPECT_TRUE(training_report(own)[0].notes.empty());
}

TEST(ExternalReference, CompareJudgesItsOwnScalingFromTwoWorkersOn) {
  auto slower = mixed();
  slower[3] = small_cnn_train("ddp-gloo", 2, 240, true);  // 480 / (2 x 400) = 0.6, down from 0.75
  const auto outcome = compare_records(mixed(), slower, {});
  EXPECT_FALSE(outcome.passed());
  std::vector<std::string> ddp_rows;
  for (const auto& row : outcome.rows)
    if (row.key.strategy == "ddp-gloo") {
      ddp_rows.push_back(std::to_string(row.key.workers));
      EXPECT_NEAR(*row.base, 0.75, 1e-12);
      EXPECT_NEAR(*row.fresh, 0.6, 1e-12);
      EXPECT_EQ(row.verdict, Verdict::regressed);
    }
  EXPECT_EQ(ddp_rows, std::vector<std::string>{"2"});
  EXPECT_TRUE(compare_records(mixed(), mixed(), {}).passed());
  // No run of it at one worker: a note, no ratio.
  const std::vector<StoredRecord> lone = {small_cnn_train("none", 2, 900),
                                          small_cnn_train("ring-mpi", 2, 800),
                                          small_cnn_train("ddp-gloo", 2, 300, true)};
  const SideRatios side = side_ratios(lone, {});
  EXPECT_EQ(side.ratios.size(), 1u);  // ring-mpi alone
  ASSERT_EQ(side.notes.size(), 1u);
  EXPECT_NE(side.notes[0].find("ddp-gloo n=2: no run of it at n=1"), std::string::npos);
}

// Whether a run is judged by its own scaling is its record's "external", not
// its strategy's name: a run of gradsync's own that shares the name of an
// external reference elsewhere is a ratio to the reference like any other.
TEST(ExternalReference, CompareTakesItFromTheRecordNotTheName) {
  auto batch16 = [](StoredRecord r) {
    r.value["batch_size"] = 16;
    return r;
  };
  auto records = mixed();
  for (auto r : {small_cnn_train("none", 1, 1000), small_cnn_train("none", 2, 1000),
                 small_cnn_train("ddp-gloo", 2, 500)})
    records.push_back(batch16(r));
  const SideRatios side = side_ratios(records, {});
  auto ratio = [&](const std::string& workload) -> std::optional<double> {
    for (const auto& [key, value] : side.ratios)
      if (key == RatioKey{workload, "ddp-gloo", 2}) return value;
    return std::nullopt;
  };
  ASSERT_TRUE(ratio("small-cnn cpu b8"));
  EXPECT_NEAR(*ratio("small-cnn cpu b8"), 0.75, 1e-12);  // its own scaling, 600 / (2 x 400)
  ASSERT_TRUE(ratio("small-cnn cpu b16"));
  EXPECT_NEAR(*ratio("small-cnn cpu b16"), 0.5, 1e-12);  // against none at 2 workers
  for (const auto& note : side.notes) EXPECT_EQ(note.find("ddp-gloo"), std::string::npos) << note;
}

TEST(ExternalReference, TheReportJsonNamesItsRoleAndFramework) {
  const auto report = report_json(mixed());
  const auto& strategies = report.at("strategies");
  const auto entry = std::find_if(strategies.begin(), strategies.end(),
                                  [](const auto& s) { return s.at("name") == "ddp-gloo"; });
  ASSERT_NE(entry, strategies.end());
  EXPECT_EQ(entry->at("role"), "external");
  EXPECT_EQ(entry->at("in_table"), false);
  for (const auto& row : report.at("train")) {
    const bool ddp = row.at("strategy") == "ddp-gloo";
    EXPECT_EQ(row.at("external"), ddp ? nlohmann::json("pytorch-ddp") : nlohmann::json());
    if (ddp && row.at("workers") == 2) {
      EXPECT_DOUBLE_EQ(row.at("efficiency").at("value"), 0.75);
    }
  }
}

TEST(ExternalReference, TheCostModelRefusesIt) {
  try {
    (void)simulation_case(mixed()[2]);
    FAIL() << "an external record was simulated";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("an external reference (pytorch-ddp, strategy ddp-gloo): "
                                         "the cost model simulates gradsync's own strategies only"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExternalReference, ASweepRunsItsScriptOnThisHostWithTheSameArguments) {
  ASSERT_NE(find_external_reference("ddp-gloo"), nullptr);
  EXPECT_EQ(find_external_reference("ring-mpi"), nullptr);
  SweepOptions o;
  o.results_dir = "/tmp/sweep";
  o.workers = "1,2";
  o.strategies = "none,ddp-gloo,ring-mpi";
  o.models = "small-cnn:cpu";
  o.train_args = "--batch-size 16";
  const auto runs = plan_sweep(o, "gradsync");
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[1].strategy, "ddp-gloo");
  EXPECT_EQ(runs[2].strategy, "ring-mpi");  // in the order given
  const SweepRun& ddp = runs[4];
  ASSERT_NE(ddp.external, nullptr);
  EXPECT_TRUE(ddp.launcher.empty());  // it starts its own workers
  EXPECT_EQ(ddp.ranks, 2);
  EXPECT_EQ(ddp.command,
            (std::vector<std::string>{"ddp-reference.py", "--model", "small-cnn", "--compute",
                                      "cpu", "--workers", "2", "--out", "/tmp/sweep/train.jsonl",
                                      "--batch-size", "16"}));
  EXPECT_EQ(runs[3].external, nullptr);
  auto refused = [&](SweepOptions bad, const std::string& words) {
    try {
      (void)plan_sweep(bad, "gradsync");
      ADD_FAILURE() << "accepted, expected: " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  SweepOptions emulated = o;
  emulated.models = "resnet50:emulated";
  refused(emulated,
          "--strategy ddp-gloo trains with PyTorch DistributedDataParallel over Gloo's "
          "own cpu compute: --models resnet50:emulated is not cpu");
  SweepOptions srun = o;
  srun.launcher = "srun";
  refused(srun, "starts its own workers on this host alone");
}

}  // namespace
}  // namespace gradsync
