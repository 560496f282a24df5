// What a training step moves and holds, measured against the formulas at
// the rank count CTest runs (1 to 5): a replica's ring and a sharded step
// (ZeRO stage 2: a reduce-scatter and an all-gather) each send 2 (p-1)/p of
// the gradients per step and worker, what a bandwidth-optimal allreduce
// sends; a sharded worker holds 1/p of the optimizer state a replica holds.
// Within 1% (the ring's and the shards' uneven parts, an element per worker
// and bucket).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness/engine/train.h"
#include "harness/sim/simulation.h"
#include "models/model.h"
#include "models/zoo.h"
#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"

namespace gradsync {
namespace {

TrainOutcome train_emulated(const std::string& strategy_name, const std::string& model_name,
                            double fusion_mb = 0.05, UpdateRule rule = UpdateRule::sgd) {
  World world;
  StrategyOptions options;
  options.short_allreduce_bytes = 0;  // the ring's own algorithm at every size
  auto strategy = make_strategy(find_strategy(strategy_name), world, options);
  TrainSettings s;
  s.model = model_name;
  s.batch_size = 2;
  s.warmup_batches = 1;
  s.batches_per_iter = 2;
  s.iters = 1;
  s.sync.fusion_mb = fusion_mb;  // several buckets
  s.optimizer.rule = rule;
  s.model_options.compute = ComputeMode::emulated;
  s.model_options.emulate_img_per_sec = 1e6;
  auto model = make_model(s.model, s.model_options);
  return train(*strategy, *model, s);
}

// The table's entries that shard `sharding`, usable in this build.
std::vector<std::string> sharding_entries(Sharding sharding) {
  std::vector<std::string> names;
  for (const auto& info : strategy_table())
    if (info.sharding == sharding && info.memory == MemoryKind::host && info.availability().usable)
      names.emplace_back(info.name);
  return names;
}

// ring-mpi, a replica's, and every stage 2 entry.
std::vector<std::string> allreduce_traffic_entries() {
  std::vector<std::string> names = sharding_entries(Sharding::optimizer_state);
  names.insert(names.begin(), "ring-mpi");
  return names;
}

class TrainTraffic : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainTraffic, EachStrategySendsWhatAnAllreduceSends) {
  const int p = World().size();
  for (const char* model : {"small-cnn", "tiny-gpt"}) {
    const TrainOutcome outcome = train_emulated(GetParam(), model);
    const double formula = 2.0 * (p - 1) / p * double(outcome.gradient_bytes);
    if (p == 1) {
      EXPECT_EQ(outcome.bytes_sent_per_step, 0) << GetParam();
      continue;
    }
    EXPECT_NEAR(outcome.bytes_sent_per_step, formula, 0.01 * formula) << GetParam() << " " << model;
    EXPECT_NEAR(outcome.bytes_received_per_step, formula, 0.01 * formula)
        << GetParam() << " " << model;
  }
}

// Fully sharded (ZeRO stage 3), one unit per parameter (--fusion-mb 0):
// every unit all-gathered before forward and again before backward, its
// gradients reduce-scattered: 1.5 times what an allreduce sends, less the
// gather the layer forward ends with saves (it stays gathered into
// backward), more the tied embedding's: GPT-2's head uses it at the end of
// forward (gathered again, and kept into backward), and the embedding
// again at the end of backward.
class TrainTrafficFullySharded : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainTrafficFullySharded, GathersTwiceAndReduceScattersOnce) {
  const int p = World().size();
  for (const char* model : {"small-cnn", "tiny-gpt"}) {
    const TrainOutcome outcome = train_emulated(GetParam(), model, 0.0);
    if (p == 1) {
      EXPECT_EQ(outcome.bytes_sent_per_step, 0) << model;
      continue;
    }
    const Graph graph = build_zoo_graph(model, 0);
    const double gradients = double(outcome.gradient_bytes);
    double saved = 0, again = 0;  // the last layer's parameters; a borrowed one's
    for (const Node& node : graph.nodes()) {
      if (node.borrowed_param) again += double(graph.params()[*node.borrowed_param].elements()) * 4;
      if (node.param_count > 0) saved = 0;
      for (std::size_t k = 0; k < node.param_count; ++k)
        saved += double(graph.params()[node.first_param + k].elements()) * 4;
    }
    if (again > 0) saved = 0;  // the tied head ends forward: its parameter is the one kept
    const double moved = 3 * gradients - saved + again;  // gathered twice, reduced once
    const double formula = double(p - 1) / p * moved;
    EXPECT_NEAR(outcome.bytes_sent_per_step, formula, 0.01 * formula) << GetParam() << " " << model;
    EXPECT_NEAR(outcome.bytes_received_per_step, formula, 0.01 * formula)
        << GetParam() << " " << model;
  }
}

INSTANTIATE_TEST_SUITE_P(All, TrainTraffic, ::testing::ValuesIn(allreduce_traffic_entries()),
                         [](const auto& info) { return testing::test_name(info.param); });
INSTANTIATE_TEST_SUITE_P(All, TrainTrafficFullySharded,
                         ::testing::ValuesIn(sharding_entries(Sharding::parameters)),
                         [](const auto& info) { return testing::test_name(info.param); });

TEST(TrainMemory, AShardedWorkerHoldsItsShareOfTheOptimizerState) {
  const int p = World().size();
  for (const char* model : {"small-cnn", "tiny-gpt"}) {
    const WorkerMemory replica = train_emulated("ring-mpi", model).memory;
    const WorkerMemory sharded = train_emulated("zero2-ring-mpi", model).memory;
    EXPECT_EQ(replica.optimizer_bytes, replica.parameters_bytes) << model;  // SGD's velocity
    EXPECT_EQ(sharded.parameters_bytes, replica.parameters_bytes) << model;
    EXPECT_EQ(sharded.gradients_bytes, replica.gradients_bytes) << model;
    const double share = double(replica.optimizer_bytes) / p;
    EXPECT_NEAR(double(sharded.optimizer_bytes), share, 0.01 * share + 4.0 * 64) << model;
    EXPECT_EQ(replica.gathered_bytes, 0u) << model;
    // The cost model's projection of the same worker (harness/sim/simulation.h):
    // the largest shard of each bucket, this worker's within one element each.
    const Graph graph = build_zoo_graph(model, 0);
    const WorkerMemory projected =
        sim::worker_memory(graph, Sharding::none, p, 0.05, UpdateRule::sgd);
    EXPECT_EQ(projected.total_bytes(), replica.total_bytes()) << model;
    const WorkerMemory projected_sharded =
        sim::worker_memory(graph, Sharding::optimizer_state, p, 0.05, UpdateRule::sgd);
    EXPECT_EQ(projected_sharded.parameters_bytes, sharded.parameters_bytes) << model;
    EXPECT_EQ(projected_sharded.gradients_bytes, sharded.gradients_bytes) << model;
    EXPECT_EQ(projected_sharded.gathered_bytes, sharded.gathered_bytes) << model;
    EXPECT_GE(projected_sharded.optimizer_bytes, sharded.optimizer_bytes) << model;
    EXPECT_LE(projected_sharded.optimizer_bytes, sharded.optimizer_bytes + 4 * 64) << model;
    // Fully sharded: the parameters fall to 1/p as well; what is gathered at
    // once is a few units (a unit's buffer and values both, while it is
    // copied out), under the whole model where it has many (tiny-gpt: about
    // ten units of 0.05 MiB; small-cnn's are two).
    const WorkerMemory full = train_emulated("zero3-ring-mpi", model).memory;
    EXPECT_NEAR(double(full.parameters_bytes), share, 0.01 * share + 4.0 * 64) << model;
    EXPECT_NEAR(double(full.optimizer_bytes), share, 0.01 * share + 4.0 * 64) << model;
    EXPECT_EQ(full.gradients_bytes, replica.gradients_bytes) << model;
    if (p > 1) {
      EXPECT_GT(full.gathered_bytes, 0u) << model;
    }
    const WorkerMemory projected_full =
        sim::worker_memory(graph, Sharding::parameters, p, 0.05, UpdateRule::sgd);
    EXPECT_GE(projected_full.parameters_bytes, full.parameters_bytes) << model;
    EXPECT_LE(projected_full.parameters_bytes, full.parameters_bytes + 4 * 64) << model;
    EXPECT_EQ(projected_full.optimizer_bytes, projected_full.parameters_bytes) << model;
    EXPECT_LE(projected_full.gathered_bytes, full.gathered_bytes) << model;  // it copies out
    if (p > 1 && std::string(model) == "tiny-gpt") {
      EXPECT_LT(full.gathered_bytes, replica.parameters_bytes / 2) << model;
    }
  }
}

// AdamW's state is two moments per element a worker updates: twice SGD's
// velocity, for a replica and for each sharded stage, as the projection says.
TEST(TrainMemory, AdamwHoldsTwoMomentsPerElementAWorkerUpdates) {
  const int p = World().size();
  const Graph graph = build_zoo_graph("tiny-gpt", 0);
  for (const auto& [name, sharding] : {std::pair{"ring-mpi", Sharding::none},
                                       std::pair{"zero2-ring-mpi", Sharding::optimizer_state},
                                       std::pair{"zero3-ring-mpi", Sharding::parameters}}) {
    const WorkerMemory sgd = train_emulated(name, "tiny-gpt").memory;
    const WorkerMemory adamw = train_emulated(name, "tiny-gpt", 0.05, UpdateRule::adamw).memory;
    EXPECT_EQ(adamw.optimizer_bytes, 2 * sgd.optimizer_bytes) << name;
    EXPECT_EQ(adamw.parameters_bytes, sgd.parameters_bytes) << name;
    const WorkerMemory projected = sim::worker_memory(graph, sharding, p, 0.05, UpdateRule::adamw);
    EXPECT_EQ(projected.optimizer_bytes,
              2 * sim::worker_memory(graph, sharding, p, 0.05, UpdateRule::sgd).optimizer_bytes)
        << name;
    EXPECT_GE(projected.optimizer_bytes, adamw.optimizer_bytes) << name;
    EXPECT_LE(projected.optimizer_bytes, adamw.optimizer_bytes + 2 * 4 * 64) << name;
  }
}

}  // namespace
}  // namespace gradsync
