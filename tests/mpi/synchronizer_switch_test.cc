// The gradient synchronizer switching its fusion threshold between steps
// (set_fusion_mb, what `train --fusion-mb auto` does while it searches), on
// every rank count CTest runs the multi-rank binary under: against FakeSum
// (synchronizer_test_support.h), the buckets are the new threshold's from the
// next step on and every gradient is averaged exactly once, packed buckets
// and views alike; through ring-mpi, the sums stay exact when every worker
// switches at the same step.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/engine/synchronizer.h"
#include "strategies/registry.h"
#include "tests/mpi/synchronizer_test_support.h"

namespace gradsync {
namespace {

// --fusion-mb auto switches the threshold between steps: from the next step
// on the buckets are the new threshold's, every gradient is still averaged
// exactly once, packed buckets (separate gradients) and views (a block) alike.
TEST(SynchronizerFake, SwitchingTheThresholdFormsItsBucketsFromTheNextStep) {
  for (bool block : {false, true}) {
    FakeSum fake;
    const auto order = scrambled(kShapes.size(), 21);
    Gradients grads = block ? Gradients(kShapes, order) : Gradients(kShapes);
    GradientSynchronizer sync(fake, grads.spans(), {64, true});
    EXPECT_TRUE(sync.hand_over_order().empty());
    int step = 0;
    for (double mb : {64.0, kKiB, 0.0, 4 * kKiB, 64.0, kKiB}) {
      if (step > 0) sync.set_fusion_mb(mb);
      EXPECT_EQ(sync.fusion_mb(), mb);
      for (std::size_t g = 0; g < kShapes.size(); ++g)
        for (std::size_t i = 0; i < kShapes[g]; ++i) grads.data[g][i] = input(0, g, i, step);
      for (std::size_t index : order) sync.ready(index);
      const SyncStats stats = sync.finish();
      EXPECT_EQ(fake.take_sizes(), bucket_elements(order, grads, mb))
          << "fusion " << mb << " MiB, step " << step << (block ? " (block)" : " (separate)");
      if (block) EXPECT_EQ(stats.packed_bytes, 0u);
      EXPECT_EQ(sync.hand_over_order(), order);
      for (std::size_t g = 0; g < kShapes.size(); ++g)
        for (std::size_t i = 0; i < kShapes[g]; ++i)
          ASSERT_EQ(grads.data[g][i], input(0, g, i, step) + 1)
              << "fusion " << mb << " MiB, step " << step << " gradient " << g << " element " << i;
      ++step;
    }
  }
  FakeSum fake;
  Gradients grads(kShapes);
  GradientSynchronizer sync(fake, grads.spans(), {64, true});
  EXPECT_THROW(sync.set_fusion_mb(-1), std::invalid_argument);
}

// The same through a real allreduce on every rank: the sums stay exact when
// every worker switches at the same step.
TEST(SynchronizerSwitch, SumsStayExactAcrossSwitchesOnARing) {
  World world;
  StrategyOptions options;
  options.timeout_s = 60;
  auto strategy = make_strategy(find_strategy("ring-mpi"), world, options);
  const World& peers = strategy->peers();
  Gradients grads(kShapes);
  GradientSynchronizer sync(*strategy, grads.spans(), {0, true});
  int step = 0;
  for (double mb : {0.0, kKiB, 64.0, 4 * kKiB}) {
    sync.set_fusion_mb(mb);
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i)
        grads.data[g][i] = input(peers.rank(), g, i, step);
    for (std::size_t index : scrambled(kShapes.size(), 200)) sync.ready(index);
    sync.finish();
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i) {
        float sum = 0;  // small integers: exact
        for (int r = 0; r < peers.size(); ++r) sum += input(r, g, i, step);
        ASSERT_EQ(grads.data[g][i], sum / static_cast<float>(peers.size()))
            << "fusion " << mb << " MiB, step " << step << " gradient " << g << " element " << i;
      }
    ++step;
  }
}

}  // namespace
}  // namespace gradsync
