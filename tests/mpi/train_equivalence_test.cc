// Data-parallel equivalence, for every strategy that synchronizes: N workers
// with batch B per worker, after k steps, hold the same parameters as one
// worker with batch N x B and the same learning-rate schedule. The two differ
// only in the order floating-point sums are taken (per-worker means averaged
// over workers against one mean over N x B), so they agree within a stated
// tolerance: |a - b| <= 1e-5 x (1 + |b|) for every parameter element, after
// 4 steps of SGD with momentum (measured: at most 3e-7). Runs with fusion off (one allreduce per
// gradient), with a small threshold (several buckets), and with one bucket,
// overlap on and off. tiny-gpt (a transformer: embeddings, attention, layer
// norms, a head tied to the token embedding) runs the same check at several
// buckets and at one, and under AdamW (--optimizer adamw) with ring-mpi and
// every sharded strategy, whose shards each carry their part of the two
// moments.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness/engine/train.h"
#include "models/model.h"
#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"

namespace gradsync {
namespace {

constexpr int kBatch = 4;
constexpr int kSteps = 4;
constexpr double kTolerance = 1e-5;

TrainSettings settings_for(int batch, const SyncOptions& sync,
                           const std::string& model = "small-cnn",
                           UpdateRule rule = UpdateRule::sgd) {
  TrainSettings s;
  s.model = model;
  s.batch_size = batch;
  s.warmup_batches = 0;
  s.batches_per_iter = 1;
  s.iters = kSteps;
  s.sync = sync;
  s.optimizer.rule = rule;
  s.optimizer.base_lr = rule == UpdateRule::adamw ? 0.002 : 0.05;
  // AdamW's epsilon at 1e-4, not its default 1e-8: a gradient that sums to
  // about 0 (a LayerNorm bias, a token no sample holds but through the
  // tied head) moves its parameter by about +-lr at 1e-8, the sign chosen by
  // the order of the sums, which is all the two runs differ in (measured:
  // 2e-3 apart at 1e-8, 3e-5 at 1e-6; within 1e-5 from 1e-5 on). Where
  // |g| is well above eps the update is the same as at 1e-8.
  s.optimizer.eps = 1e-4;
  s.optimizer.momentum = 0.9;
  s.optimizer.warmup_steps = 2;
  return s;
}

// One worker alone (its own World of one rank) with the whole global batch.
std::vector<Parameter> single_worker_reference(int workers, const std::string& model_name,
                                               UpdateRule rule) {
  World self(MPI_COMM_SELF);
  auto strategy = make_strategy(find_strategy("none"), self, {});
  TrainSettings s = settings_for(kBatch * workers, {}, model_name, rule);
  s.optimizer.workers = workers;  // the N-worker run's schedule
  auto model = make_model(s.model, s.model_options);
  train(*strategy, *model, s);
  return model->parameters();
}

struct Case {
  std::string strategy;
  double fusion_mb;
  bool overlap;
  std::string model = "small-cnn";
  UpdateRule rule = UpdateRule::sgd;
};

class TrainEquivalence : public ::testing::TestWithParam<Case> {};

TEST_P(TrainEquivalence, NWorkersMatchOneWorkerWithTheWholeBatch) {
  const Case c = GetParam();
  World world;
  auto strategy = make_strategy(find_strategy(c.strategy), world, {});
  if (!strategy->is_worker()) {
    strategy->serve();
    return;
  }
  const int workers = strategy->peers().size();
  const TrainSettings s = settings_for(kBatch, {c.fusion_mb, c.overlap}, c.model, c.rule);
  auto model = make_model(s.model, s.model_options);
  const TrainOutcome outcome = train(*strategy, *model, s);
  EXPECT_EQ(outcome.parameters_identical, std::optional<bool>(true)) << outcome.mismatch;

  const std::vector<Parameter> reference = single_worker_reference(workers, c.model, c.rule);
  const std::vector<Parameter>& mine = model->parameters();
  ASSERT_EQ(mine.size(), reference.size());
  double worst = 0;
  std::size_t not_finite = 0;  // NaN would pass every comparison below
  for (std::size_t p = 0; p < mine.size(); ++p)
    for (std::size_t i = 0; i < mine[p].value.size(); ++i) {
      const double a = mine[p].value[i], b = reference[p].value[i];
      not_finite += !std::isfinite(a) || !std::isfinite(b);
      worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
    }
  EXPECT_EQ(not_finite, 0u) << c.strategy << " with " << workers << " workers";
  EXPECT_LE(worst, kTolerance) << c.strategy << " with " << workers << " workers";
  // The parameters moved: the test would not pass by doing nothing.
  double moved = 0;
  auto fresh = make_model(s.model, s.model_options);
  for (std::size_t p = 0; p < mine.size(); ++p)
    for (std::size_t i = 0; i < mine[p].value.size(); ++i)
      moved = std::max(moved, double(std::abs(mine[p].value[i] - fresh->parameters()[p].value[i])));
  EXPECT_GT(moved, 1e-3);
}

// Forward order (--sync-order forward) changes when each bucket is reduced
// and when each parameter is updated (as the next forward reaches it, within
// an iteration), not what is summed: with no fusion (no gradient cut into
// pieces) the parameters equal arrival order's bit for bit; at a small
// threshold, where large gradients go in pieces that a strategy may sum in
// another order than the whole, within the tolerance above.
class ForwardOrder : public ::testing::TestWithParam<std::string> {};

TEST_P(ForwardOrder, TrainsTheSameParametersAsArrivalOrderBitForBit) {
  World world;
  StrategyOptions options;
  options.timeout_s = 60;
  auto strategy = make_strategy(find_strategy(GetParam()), world, options);
  if (!strategy->is_worker()) {
    strategy->serve();
    return;
  }
  for (double fusion_mb : {0.0, 0.01}) {
    std::vector<std::vector<Parameter>> trained;
    for (SyncOrder order : {SyncOrder::arrival, SyncOrder::forward}) {
      TrainSettings s = settings_for(kBatch, {fusion_mb, true, true, order});
      s.batches_per_iter = kSteps;  // one iteration: the steps' communication overlaps forwards
      s.iters = 1;
      auto model = make_model(s.model, s.model_options);
      const TrainOutcome outcome = train(*strategy, *model, s);
      EXPECT_EQ(outcome.parameters_identical, std::optional<bool>(true)) << outcome.mismatch;
      trained.push_back(model->parameters());
    }
    std::size_t differ = 0, moved = 0;
    double worst = 0;
    auto fresh = make_model("small-cnn", {});
    for (std::size_t p = 0; p < trained[0].size(); ++p)
      for (std::size_t i = 0; i < trained[0][p].value.size(); ++i) {
        const double a = trained[1][p].value[i], b = trained[0][p].value[i];
        differ += a != b;
        worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
        moved += trained[1][p].value[i] != fresh->parameters()[p].value[i];
      }
    if (fusion_mb == 0) {
      EXPECT_EQ(differ, 0u) << GetParam();
    }
    EXPECT_LE(worst, kTolerance) << GetParam() << " at fusion " << fusion_mb << " MiB";
    EXPECT_GT(moved, 0u);
  }
}

// Every usable strategy but `none`, whose workers are not meant to agree,
// and the sharded ones, which all-gather their parameters before the next
// forward (they refuse forward order).
std::vector<std::string> synchronizing_strategies() {
  std::vector<std::string> names = testing::usable_strategies();
  std::erase(names, "none");
  std::erase_if(names, [](const std::string& name) {
    return find_strategy(name).sharding != Sharding::none;
  });
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, ForwardOrder, ::testing::ValuesIn(synchronizing_strategies()),
                         [](const auto& info) { return testing::test_name(info.param); });

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& info : strategy_table()) {
    if (!info.availability().usable || info.name == "none") continue;
    for (double fusion : {0.0, 0.01, 64.0})
      for (bool overlap : {true, false}) out.push_back({std::string(info.name), fusion, overlap});
    for (double fusion : {0.01, 64.0})
      out.push_back({std::string(info.name), fusion, true, "tiny-gpt"});
    if (info.name == "ring-mpi" || info.sharding != Sharding::none)
      out.push_back({std::string(info.name), 0.01, true, "tiny-gpt", UpdateRule::adamw});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, TrainEquivalence, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string n = (info.param.model == "small-cnn" ? "" : info.param.model + "_") +
                  (info.param.rule == UpdateRule::sgd ? "" : "adamw_") + info.param.strategy +
                  "_fusion" + std::to_string(static_cast<int>(info.param.fusion_mb * 100)) +
                  (info.param.overlap ? "_overlap" : "_sequential");
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

}  // namespace
}  // namespace gradsync
