// How sure a projection is (harness/sim/validation.h): the per-strategy
// summary of validated runs, the band it gives a projection (plus and minus
// the worst error, beyond validation above the largest validated worker
// count), and the cluster file's form of it, whose bad entries are one line.
#include "harness/sim/validation.h"

#include <gtest/gtest.h>

#include "harness/sim/cluster_model.h"

namespace gradsync::sim {
namespace {

const std::vector<ValidatedRun> kRuns = {
    {"ring-mpi", "resnet50", 8, +0.036, "resnet50 ring-mpi at 8 workers"},
    {"ring-mpi", "vgg16", 8, +0.058, "vgg16 ring-mpi at 8 workers"},
    {"ring-mpi", "vgg16", 1, +0.500, "one worker: the compute alone, left out"},
    {"tree-mpi", "resnet50", 4, -0.020, "resnet50 tree-mpi at 4 workers"},
    {"tree-mpi", "vgg16", 8, -0.140, "vgg16 tree-mpi at 8 workers"},
    {"tree-mpi", "inception3", 8, +0.090, "inception3 tree-mpi at 8 workers"},
};

TEST(SimValidation, SummarizesEachStrategysRunsOfTwoOrMoreWorkers) {
  const auto entries = summarize_validation(kRuns, "made-up runs");
  ASSERT_EQ(entries.size(), 2u);
  const auto& ring = entries[0];
  EXPECT_EQ(ring.strategy, "ring-mpi");
  EXPECT_EQ(ring.runs, 2);  // the one-worker run is the compute alone
  EXPECT_EQ(ring.worker_counts, (std::vector<int>{8}));
  EXPECT_EQ(ring.models, (std::vector<std::string>{"resnet50", "vgg16"}));
  EXPECT_DOUBLE_EQ(ring.min_error, 0.036);
  EXPECT_DOUBLE_EQ(ring.max_error, 0.058);
  EXPECT_DOUBLE_EQ(ring.median_abs_error, (0.036 + 0.058) / 2);
  EXPECT_EQ(ring.worst_run, "vgg16 ring-mpi at 8 workers: +5.8%");
  const auto& tree = entries[1];
  EXPECT_EQ(tree.worker_counts, (std::vector<int>{4, 8}));
  EXPECT_DOUBLE_EQ(tree.min_error, -0.140);
  EXPECT_DOUBLE_EQ(tree.median_abs_error, 0.090);
  EXPECT_EQ(tree.against, "made-up runs");
}

TEST(SimValidation, TheBandIsPlusMinusTheWorstErrorAndSaysWhenItIsBeyond) {
  const auto entries = summarize_validation(kRuns, "made-up runs");
  const Band at8 = band_for(entries, "tree-mpi", 8);
  EXPECT_TRUE(at8.validated);
  EXPECT_FALSE(at8.beyond_validation);
  EXPECT_DOUBLE_EQ(at8.low, 1 - 0.14);
  EXPECT_DOUBLE_EQ(at8.high, 1 + 0.14);
  EXPECT_EQ(at8.text(), "+/-14% (validated at 4,8 workers)");
  const Band at64 = band_for(entries, "tree-mpi", 64);
  EXPECT_TRUE(at64.beyond_validation);
  EXPECT_DOUBLE_EQ(at64.low, at8.low);
  EXPECT_NE(at64.text().find("beyond validation"), std::string::npos);
  EXPECT_FALSE(band_for(entries, "ps-zmq", 8).validated);  // no entry: no band
  EXPECT_EQ(band_for(entries, "ps-zmq", 8).text(), "not validated on this cluster");
  EXPECT_FALSE(band_for(entries, "ring-mpi", 1).validated);  // one worker is the compute alone
}

// Runs on the cluster and the model against SMPI at scale each give an
// entry: the widest sets the band, the largest worker count ends validation.
TEST(SimValidation, EveryEntryOfAStrategyCountsTheWidestSetsTheBand) {
  std::vector<ValidationEntry> entries = summarize_validation(kRuns, "made-up runs");
  const std::vector<ValidatedRun> at_scale = {{"tree-mpi", "collectives 64M", 64, 0.05, "a"},
                                              {"tree-mpi", "collectives 64M", 256, -0.07, "b"}};
  for (auto e : summarize_validation(at_scale, "SMPI")) {
    e.engine = "smpi";
    // The file keeps which kind of evidence it is; runs' entries say none.
    EXPECT_EQ(validation_from_json(to_json(e), "test").engine, "smpi");
    EXPECT_FALSE(to_json(entries[0]).contains("engine"));
    entries.push_back(e);
  }
  const Band at64 = band_for(entries, "tree-mpi", 64);
  EXPECT_FALSE(at64.beyond_validation);
  EXPECT_EQ(at64.validated_to_workers, 256);
  EXPECT_DOUBLE_EQ(at64.high, 1 + 0.14);  // the runs' +/-14%, not SMPI's 7%
  EXPECT_EQ(at64.entry->against, "made-up runs");
  EXPECT_TRUE(band_for(entries, "tree-mpi", 512).beyond_validation);
  entries.push_back(summarize_validation({{"tree-mpi", "collectives 1M", 16, 0.5, "c"}}, "SMPI, 1M")[0]);
  EXPECT_DOUBLE_EQ(band_for(entries, "tree-mpi", 64).high, 1.5);
  EXPECT_EQ(band_for(entries, "tree-mpi", 64).entry->against, "SMPI, 1M");
}

TEST(SimValidation, TheClusterFileKeepsItAndRefusesABrokenEntryInOneLine) {
  ClusterModel m;
  for (LinkClass* link : {&m.inter, &m.intra}) {
    link->bandwidth_bits_per_s = {1e9, "assumed", ""};
    link->latency_s = {1e-6, "assumed", ""};
  }
  m.per_message_s = m.server_hosts = {0, "assumed", ""};
  m.reduce_bytes_per_s = {1e9, "assumed", ""};
  m.validation = summarize_validation(kRuns, "made-up runs");
  m.validation[1].calibrated_workers = {2, 4};
  const ClusterModel back = cluster_model_from_json(to_json(m), "c.json");
  ASSERT_EQ(back.validation.size(), 2u);
  EXPECT_EQ(back.validation[1].calibrated_workers, (std::vector<int>{2, 4}));
  EXPECT_DOUBLE_EQ(back.validation[1].max_error, 0.09);
  auto doc = to_json(m);
  doc["validation"][0]["max_error"] = -2;
  try {
    cluster_model_from_json(doc, "c.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: validation of ring-mpi: min_error and max_error must be numbers with -1 < "
              "min <= max");
  }
  doc["validation"][0].erase("runs");
  EXPECT_THROW(cluster_model_from_json(doc, "c.json"), std::runtime_error);
  doc["validation"] = "all good";
  EXPECT_THROW(cluster_model_from_json(doc, "c.json"), std::runtime_error);
}

}  // namespace
}  // namespace gradsync::sim
