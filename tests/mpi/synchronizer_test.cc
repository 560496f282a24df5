// The gradient synchronizer (harness/synchronizer.h), on every rank count
// CTest runs this binary under.
//
// First against FakeSum, a strategy that talks to no one: it emulates
// peers().size() workers that all hold the buffer plus one, so a gradient x
// comes back as exactly x + 1 after averaging when it was reduced once (twice
// would give x + 2, never would give x). It records the size of each call and
// can fail on demand, which covers bucket formation, averaging, overlap, and
// errors (a threshold switched between steps: synchronizer_switch_test.cc); and the bucket views:
// gradients in one block laid out in hand-over order are reduced where they lie (no byte packed)
// with results bit-identical to packing, another order falls back to packing, and without averaging
// finish() leaves the sums. Then every usable strategy of the table, for fusion off, tiny (many
// buckets) and large (one bucket), overlap on and off, gradients separate or in one block:
// small-integer inputs, so sums are exact and each gradient must equal sum / workers exactly. Last,
// the same with the gradients in GPU memory (CUDA builds where every rank has a GPU; skipped on
// every rank otherwise, with the reason): the device synchronizer against the host rule, exact for
// power-of-two worker counts and within 4 units in the last place otherwise (it scales by
// 1/workers); its third step hands the gradients over in the block's own order, so its buckets are
// views.
#include "harness/engine/synchronizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "harness/engine/fusion_plan.h"
#include "models/gradient_block.h"
#include "strategies/core/local_gpu.h"
#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"
#include "tests/mpi/synchronizer_test_support.h"
#include "tests/unit/device_test_support.h"

namespace gradsync {
namespace {

struct Config {
  double fusion_mb;
  bool overlap;
  SyncOrder order = SyncOrder::arrival;
};

std::string describe(const Config& c) {
  return "fusion " + std::to_string(c.fusion_mb) + " MiB, overlap " + (c.overlap ? "on" : "off") +
         (c.order == SyncOrder::forward ? ", forward order" : "");
}

const std::vector<Config> kConfigs = {{0, false},   {0, true},         {kKiB, false},
                                      {kKiB, true}, {4 * kKiB, false}, {4 * kKiB, true},
                                      {64, false},  {64, true}};

TEST(SynchronizerFake, BucketsFollowTheRuleAndEveryGradientIsAveragedOnce) {
  for (const Config& config : kConfigs) {
    FakeSum fake;
    Gradients grads(kShapes);
    GradientSynchronizer sync(fake, grads.spans(), {config.fusion_mb, config.overlap});
    // Steps 0 and 1 in one order (buffers reused), step 2 in another (new layout).
    for (int step = 0; step < 3; ++step) {
      const auto order = scrambled(kShapes.size(), step < 2 ? 7 : 8);
      for (std::size_t g = 0; g < kShapes.size(); ++g)
        for (std::size_t i = 0; i < kShapes[g]; ++i) grads.data[g][i] = input(0, g, i, step);
      for (std::size_t index : order) sync.ready(index);
      const SyncStats stats = sync.finish();
      const auto want = bucket_elements(order, grads, config.fusion_mb);
      EXPECT_EQ(fake.take_sizes(), want) << describe(config) << " step " << step;
      EXPECT_EQ(stats.buckets, want.size()) << describe(config);
      EXPECT_EQ(stats.bytes, grads.total_bytes()) << describe(config);
      EXPECT_GE(stats.wait_s, 0.0);
      for (std::size_t g = 0; g < kShapes.size(); ++g)
        for (std::size_t i = 0; i < kShapes[g]; ++i)
          ASSERT_EQ(grads.data[g][i], input(0, g, i, step) + 1)
              << describe(config) << " step " << step << " gradient " << g << " element " << i;
    }
  }
}

TEST(SynchronizerFake, FusionSizesGiveTheExpectedBucketCounts) {
  const auto order = scrambled(kShapes.size(), 3);
  Gradients grads(kShapes);
  EXPECT_EQ(bucket_elements(order, grads, 0).size(), kShapes.size());
  EXPECT_EQ(bucket_elements(order, grads, 64).size(), 1u);
  EXPECT_GT(bucket_elements(order, grads, kKiB).size(), 5u);
}

TEST(SynchronizerFake, OverlapOnAndOffGiveIdenticalResults) {
  std::vector<std::vector<std::vector<float>>> results;
  for (bool overlap : {false, true}) {
    FakeSum fake;
    Gradients grads(kShapes);
    GradientSynchronizer sync(fake, grads.spans(), {kKiB, overlap});
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i)
        grads.data[g][i] = 0.1f * static_cast<float>(i) - 0.37f * static_cast<float>(g);
    for (std::size_t index : scrambled(kShapes.size(), 11)) sync.ready(index);
    sync.finish();
    results.push_back(grads.values());
  }
  EXPECT_EQ(results[0], results[1]);
}

// Values that make the averaging inexact (FakeSum multiplies by the workers
// and averaging divides again), so that layouts can be compared bit for bit.
void fill_inexact(Gradients& grads, int step) {
  for (std::size_t g = 0; g < grads.data.size(); ++g)
    for (std::size_t i = 0; i < grads.data[g].size(); ++i)
      grads.data[g][i] = 0.1f * static_cast<float>(i) - 0.37f * static_cast<float>(g) +
                         0.013f * static_cast<float>(step);
}

TEST(SynchronizerViews, ABlockInHandOverOrderIsReducedWhereItLiesBitIdenticalToPacking) {
  const auto order = scrambled(kShapes.size(), 5);
  for (const Config& config : kConfigs) {
    FakeSum fake_view, fake_packed;
    Gradients view(kShapes, order), packed(kShapes);
    GradientSynchronizer view_sync(fake_view, view.spans(), {config.fusion_mb, config.overlap});
    GradientSynchronizer packed_sync(fake_packed, packed.spans(),
                                     {config.fusion_mb, config.overlap});
    for (int step = 0; step < 2; ++step) {
      fill_inexact(view, step);
      fill_inexact(packed, step);
      for (std::size_t index : order) {
        view_sync.ready(index);
        packed_sync.ready(index);
      }
      const SyncStats in_place = view_sync.finish();
      const SyncStats copied = packed_sync.finish();
      EXPECT_EQ(in_place.packed_bytes, 0u) << describe(config);
      EXPECT_EQ(fake_view.take_sizes(), fake_packed.take_sizes()) << describe(config);
      EXPECT_EQ(view.values(), packed.values()) << describe(config) << " step " << step;
      // Separate allocations: a bucket of two or more gradients with elements
      // is packed, every byte of it (empty gradients occupy no memory).
      std::size_t fused = 0;
      for (const auto& bucket :
           plan_buckets(order, packed.bytes(), FusionRule(config.fusion_mb))) {
        std::size_t with_elements = 0, bytes = 0;
        for (std::size_t index : bucket) {
          with_elements += packed.bytes()[index] > 0;
          bytes += packed.bytes()[index];
        }
        if (with_elements > 1) fused += bytes;
      }
      EXPECT_EQ(copied.packed_bytes, fused) << describe(config);
      if (config.fusion_mb > 0) {
        EXPECT_GT(fused, 0u) << describe(config);  // a real comparison
      }
    }
  }
}

TEST(SynchronizerViews, AnotherOrderThanTheLayoutFallsBackToPacking) {
  const auto layout = scrambled(kShapes.size(), 5);
  const auto order = scrambled(kShapes.size(), 6);
  FakeSum fake;
  Gradients grads(kShapes, layout);
  GradientSynchronizer sync(fake, grads.spans(), {64, true});  // one bucket
  for (int step = 0; step < 2; ++step) {
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i) grads.data[g][i] = input(0, g, i, step);
    // In layout order the bucket is a view; in another order it is packed.
    for (std::size_t index : step == 0 ? layout : order) sync.ready(index);
    const SyncStats stats = sync.finish();
    EXPECT_EQ(stats.packed_bytes, step == 0 ? 0u : grads.total_bytes()) << "step " << step;
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i)
        ASSERT_EQ(grads.data[g][i], input(0, g, i, step) + 1)
            << "step " << step << " gradient " << g << " element " << i;
  }
}

TEST(SynchronizerViews, WithoutAveragingFinishLeavesTheSums) {
  const auto order = scrambled(kShapes.size(), 9);
  for (bool block : {true, false}) {
    FakeSum fake;
    Gradients grads = block ? Gradients(kShapes, order) : Gradients(kShapes);
    GradientSynchronizer sync(fake, grads.spans(), {kKiB, true, /*average=*/false});
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i) grads.data[g][i] = input(0, g, i, 0);
    for (std::size_t index : order) sync.ready(index);
    sync.finish();
    const auto workers = static_cast<float>(fake.peers().size());
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      for (std::size_t i = 0; i < kShapes[g]; ++i)
        ASSERT_EQ(grads.data[g][i], workers * (input(0, g, i, 0) + 1))
            << (block ? "block" : "separate") << " gradient " << g << " element " << i;
  }
}

// Records the categories of the events it is given.
class Categories final : public TraceSink {
 public:
  void event(std::string_view, std::string_view category, TraceClock::time_point,
             TraceClock::time_point, int) override {
    std::lock_guard lock(mu_);
    seen_.insert(std::string(category));
  }
  std::set<std::string> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::set<std::string> seen_;
};

TEST(SynchronizerViews, PacksAndUnpacksAreTracedOnlyWhereTheyHappen) {
  const auto order = scrambled(kShapes.size(), 4);
  for (bool block : {false, true}) {
    FakeSum fake;
    Gradients grads = block ? Gradients(kShapes, order) : Gradients(kShapes);
    Categories trace;
    GradientSynchronizer sync(fake, grads.spans(), {64, true, /*average=*/false});
    sync.set_trace(&trace);
    for (std::size_t index : order) sync.ready(index);
    sync.finish();
    const std::set<std::string> seen = trace.seen();
    EXPECT_TRUE(seen.count("allreduce") && seen.count("wait")) << (block ? "block" : "separate");
    EXPECT_EQ(seen.count("pack"), block ? 0u : 1u) << (block ? "block" : "separate");
    EXPECT_EQ(seen.count("unpack"), block ? 0u : 1u) << (block ? "block" : "separate");
  }
}

TEST(SynchronizerFake, OverlapOnReducesDuringBackwardAndOffWaitsForFinish) {
  const std::vector<std::size_t> shapes(6, 1024);  // 4 KiB each: one bucket per gradient at 4 KiB
  for (bool overlap : {true, false}) {
    FakeSum fake;
    Gradients grads(shapes);
    GradientSynchronizer sync(fake, grads.spans(), {4 * kKiB, overlap});
    for (std::size_t index = 0; index < 3; ++index) sync.ready(index);
    if (overlap) {
      // Buckets closed in backward are reduced before finish() is called.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (fake.calls() < 3 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      EXPECT_EQ(fake.calls(), 3);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_EQ(fake.calls(), 0) << "overlap off sent before finish()";
    }
    for (std::size_t index = 3; index < shapes.size(); ++index) sync.ready(index);
    sync.finish();
    EXPECT_EQ(fake.calls(), 6);
  }
}

TEST(SynchronizerFake, StatsAreThoseOfOneStep) {
  FakeSum fake;
  Gradients grads(kShapes);
  GradientSynchronizer sync(fake, grads.spans(), {kKiB, true});
  std::vector<std::size_t> order(kShapes.size());
  std::iota(order.begin(), order.end(), 0);
  for (int step = 0; step < 3; ++step) {
    for (std::size_t index : order) sync.ready(index);
    const SyncStats stats = sync.finish();
    EXPECT_EQ(stats.bytes, grads.total_bytes()) << "step " << step;
    EXPECT_EQ(stats.buckets, bucket_elements(order, grads, kKiB).size()) << "step " << step;
    EXPECT_GE(stats.pack_s, 0.0);
    EXPECT_GT(stats.allreduce_s, 0.0);
  }
}

TEST(SynchronizerFake, AnErrorOfTheStrategySurfacesFromFinish) {
  for (bool overlap : {false, true}) {
    FakeSum fake(/*fail_on_call=*/1);
    Gradients grads(kShapes);
    GradientSynchronizer sync(fake, grads.spans(), {kKiB, overlap});
    for (std::size_t index = 0; index < kShapes.size(); ++index) sync.ready(index);
    try {
      sync.finish();
      ADD_FAILURE() << "finish() did not rethrow, overlap " << overlap;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("fake transport failed on call 1"), std::string::npos)
          << e.what();
    }
    // Only the failed step is lost: the next one reduces every gradient again.
    for (std::size_t g = 0; g < kShapes.size(); ++g)
      std::fill(grads.data[g].begin(), grads.data[g].end(), 2.0f);
    for (std::size_t index = 0; index < kShapes.size(); ++index) sync.ready(index);
    sync.finish();
    for (const auto& g : grads.data)
      for (float x : g) ASSERT_EQ(x, 3.0f) << "overlap " << overlap;
  }
}

TEST(SynchronizerFake, DestructorReturnsAfterAnErrorWithoutFinish) {
  for (bool overlap : {false, true}) {
    FakeSum fake(/*fail_on_call=*/0);
    Gradients grads(kShapes);
    {
      GradientSynchronizer sync(fake, grads.spans(), {kKiB, overlap});
      for (std::size_t index = 0; index < kShapes.size(); ++index) sync.ready(index);
      if (overlap) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (fake.calls() < 1 && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_GE(fake.calls(), 1);
      }
    }  // must not hang, must not terminate
    SUCCEED();
  }
}

TEST(SynchronizerFake, MisuseIsReported) {
  FakeSum fake;
  Gradients grads(kShapes);
  GradientSynchronizer sync(fake, grads.spans(), {kKiB, true});
  EXPECT_THROW(sync.ready(kShapes.size()), std::out_of_range);
  sync.ready(0);
  EXPECT_THROW(sync.ready(0), std::logic_error);
  EXPECT_THROW(sync.finish(), std::logic_error);  // the others were never handed over
  // The abandoned step leaves the synchronizer usable.
  for (std::size_t g = 0; g < kShapes.size(); ++g)
    std::fill(grads.data[g].begin(), grads.data[g].end(), 5.0f);
  for (std::size_t index = 0; index < kShapes.size(); ++index) sync.ready(index);
  sync.finish();
  for (const auto& g : grads.data)
    for (float x : g) ASSERT_EQ(x, 6.0f);
}

// Forward order: with every bucket closed before any goes (overlap off),
// buckets go in the order of their first gradient in forward, whatever the
// order backward handed them over in, a gradient that fills a bucket by
// itself cut into pieces of the threshold; each await(i) returns with
// gradient i final (all of its pieces).
TEST(SynchronizerFake, ForwardOrderReducesTheBucketTheForwardNeedsFirstFirst) {
  for (double fusion_mb : {0.0, kKiB}) {
    FakeSum fake;
    Gradients grads(kShapes);
    GradientSynchronizer sync(fake, grads.spans(), {fusion_mb, false, true, SyncOrder::forward});
    std::vector<std::size_t> backward(kShapes.size());
    std::iota(backward.rbegin(), backward.rend(), 0);  // the last layer's first
    for (int step = 0; step < 2; ++step) {
      for (auto& g : grads.data) std::fill(g.begin(), g.end(), float(step));
      for (std::size_t index : backward) sync.ready(index);
      sync.close_step();
      for (std::size_t g = 0; g < kShapes.size(); ++g) {
        sync.await(g);
        for (float x : grads.data[g]) ASSERT_EQ(x, float(step + 1)) << "gradient " << g;
      }
      const SyncStats stats = sync.finish();
      // The buckets of the rule, a gradient above the threshold cut into
      // pieces of it, sorted by their first gradient in forward (pieces of
      // one gradient in their order).
      std::vector<std::pair<std::size_t, std::size_t>> buckets;  // first gradient, elements
      const std::size_t piece = fusion_mb == 0 ? 0 : FusionRule(fusion_mb).threshold_bytes() / 4;
      for (const auto& members : plan_buckets(backward, grads.bytes(), FusionRule(fusion_mb))) {
        std::size_t elements = 0;
        for (std::size_t g : members) elements += kShapes[g];
        const std::size_t first = *std::min_element(members.begin(), members.end());
        if (members.size() == 1 && piece > 0 && elements > piece) {
          for (std::size_t at = 0; at < elements; at += piece)
            buckets.emplace_back(first, std::min(piece, elements - at));
        } else {
          buckets.emplace_back(first, elements);
        }
      }
      std::stable_sort(buckets.begin(), buckets.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<std::size_t> want;
      for (const auto& bucket : buckets) want.push_back(bucket.second);
      EXPECT_EQ(stats.buckets, want.size());
      EXPECT_EQ(fake.take_sizes(), want) << "fusion " << fusion_mb << " MiB, step " << step;
    }
  }
}

TEST(SynchronizerFake, ForwardOrderEndsItsWaitsOnAnErrorAndFinishRethrows) {
  FakeSum fake(/*fail_on_call=*/1);
  Gradients grads(kShapes);
  GradientSynchronizer sync(fake, grads.spans(), {kKiB, true, true, SyncOrder::forward});
  EXPECT_THROW(sync.close_step(), std::logic_error);  // nothing handed over yet
  for (std::size_t index = kShapes.size(); index-- > 0;) sync.ready(index);
  EXPECT_THROW(sync.await(0), std::logic_error);  // before close_step()
  EXPECT_THROW(sync.await(kShapes.size()), std::out_of_range);
  sync.close_step();
  for (std::size_t g = 0; g < kShapes.size(); ++g) sync.await(g);  // must not hang
  EXPECT_THROW(sync.finish(), std::runtime_error);
  // The next step reduces every gradient again.
  for (auto& g : grads.data) std::fill(g.begin(), g.end(), 2.0f);
  for (std::size_t index = kShapes.size(); index-- > 0;) sync.ready(index);
  sync.close_step();
  for (std::size_t g = 0; g < kShapes.size(); ++g) {
    sync.await(g);
    for (float x : grads.data[g]) ASSERT_EQ(x, 3.0f) << "gradient " << g;
  }
  sync.finish();
}

TEST(SynchronizerFake, RejectsABadFusionSize) {
  FakeSum fake;
  Gradients grads(kShapes);
  EXPECT_THROW(GradientSynchronizer(fake, grads.spans(), {-1.0, true}), std::invalid_argument);
}

// Every usable strategy of the table, through the synchronizer.
class SynchronizerStrategies : public ::testing::TestWithParam<std::string> {};

TEST_P(SynchronizerStrategies, EveryGradientIsTheExactAverage) {
  World world;
  StrategyOptions options;
  options.timeout_s = 60;
  auto strategy = make_strategy(find_strategy(GetParam()), world, options);
  if (!strategy->is_worker()) {  // dedicated servers serve while the workers run
    strategy->serve();
    return;
  }
  const World& peers = strategy->peers();
  const int workers = peers.size();
  // Separate gradients (packed buckets), and one block laid out in step 0's
  // order (buckets reduced where they lie in step 0, packed in step 1).
  // Forward order: each gradient is checked as soon as await() returns for it.
  for (const Config& config :
       {Config{0, false}, Config{0, true}, Config{kKiB, false}, Config{kKiB, true},
        Config{64, false}, Config{64, true}, Config{0, true, SyncOrder::forward},
        Config{kKiB, true, SyncOrder::forward}, Config{kKiB, false, SyncOrder::forward}}) {
    for (bool block : {false, true}) {
      Gradients grads =
          block ? Gradients(kShapes, scrambled(kShapes.size(), 100)) : Gradients(kShapes);
      GradientSynchronizer sync(*strategy, grads.spans(),
                                {config.fusion_mb, config.overlap, true, config.order});
      for (int step = 0; step < 2; ++step) {
        for (std::size_t g = 0; g < kShapes.size(); ++g)
          for (std::size_t i = 0; i < kShapes[g]; ++i)
            grads.data[g][i] = input(peers.rank(), g, i, step);
        for (std::size_t index : scrambled(kShapes.size(), 100 + step)) sync.ready(index);
        std::optional<SyncStats> stats;
        if (config.order == SyncOrder::forward)
          sync.close_step();
        else
          stats = sync.finish();
        std::size_t wrong = 0;
        for (std::size_t g = 0; g < kShapes.size(); ++g) {
          if (config.order == SyncOrder::forward) sync.await(g);
          for (std::size_t i = 0; i < kShapes[g]; ++i) {
            float want = input(peers.rank(), g, i, step);
            if (strategy->synchronizes()) {
              float sum = 0;  // small integers: exact
              for (int r = 0; r < workers; ++r) sum += input(r, g, i, step);
              want = sum / static_cast<float>(workers);
            }
            if (grads.data[g][i] != want && wrong++ < 3)
              ADD_FAILURE() << GetParam() << " " << describe(config)
                            << (block ? " (block)" : " (separate)") << " rank " << peers.rank()
                            << "/" << workers << " step " << step << " gradient " << g
                            << " element " << i << ": got " << grads.data[g][i] << ", want "
                            << want;
          }
        }
        if (!stats) stats = sync.finish();
        EXPECT_EQ(stats->bytes, grads.total_bytes());
        if (block && step == 0) {
          EXPECT_EQ(stats->packed_bytes, 0u) << describe(config);
        }
        EXPECT_EQ(wrong, 0u) << GetParam() << " " << describe(config);
      }
    }
  }
}

#ifdef GRADSYNC_WITH_CUDA
TEST_P(SynchronizerStrategies, DeviceGradientsAreAveragedOnTheGpu) {
  World world;
  const auto [gpu, why] =
      testing::gpu_per_rank(world, gpu_need(find_strategy(GetParam()), {}, world.rank()));
  if (!why.empty()) GTEST_SKIP() << why;  // every rank runs, or none does
  StrategyOptions options;
  options.timeout_s = 60;
  auto strategy = make_strategy(find_strategy(GetParam()), world, options, MemoryKind::device);
  if (!strategy->is_worker()) {
    strategy->serve();
    return;
  }
  const World& peers = strategy->peers();
  const int workers = peers.size();
  for (const Config& config : {Config{0, true}, Config{kKiB, false}, Config{kKiB, true},
                               Config{64, true}}) {
    testing::DeviceBlock block(gpu, kShapes);
    const Model::DeviceState& state = block.state();
    GradientSynchronizer sync(*strategy, state.grad_of, {config.fusion_mb, config.overlap}, &state);
    for (int step = 0; step < 3; ++step) {
      for (std::size_t g = 0; g < kShapes.size(); ++g) {
        std::vector<float> host(kShapes[g]);
        for (std::size_t i = 0; i < kShapes[g]; ++i) host[i] = input(peers.rank(), g, i, step);
        block.write(state.grad_of[g], host);  // queued on the "model's" stream, like backward
      }
      // Steps 0 and 1 scrambled (packed buckets); step 2 in the block's own
      // order, so that every bucket is a view of the block.
      std::vector<std::size_t> order = scrambled(kShapes.size(), 100 + step);
      if (step == 2) std::sort(order.begin(), order.end());
      for (std::size_t index : order) sync.ready(index);
      const SyncStats stats = sync.finish();
      EXPECT_EQ(stats.bytes, Gradients(kShapes).total_bytes());
      if (step == 2) {
        EXPECT_EQ(stats.packed_bytes, 0u) << describe(config);
      }
      std::size_t wrong = 0;
      for (std::size_t g = 0; g < kShapes.size(); ++g) {
        const std::vector<float> got = block.read(state.grad_of[g]);
        for (std::size_t i = 0; i < kShapes[g]; ++i) {
          float want = input(peers.rank(), g, i, step);
          if (strategy->synchronizes()) {
            float sum = 0;
            for (int r = 0; r < workers; ++r) sum += input(r, g, i, step);
            want = sum / static_cast<float>(workers);
          }
          const bool exact = (workers & (workers - 1)) == 0;
          const bool ok = exact ? got[i] == want
                                : ::testing::internal::FloatingPoint<float>(got[i]).AlmostEquals(
                                      ::testing::internal::FloatingPoint<float>(want));
          if (!ok && wrong++ < 3)
            ADD_FAILURE() << GetParam() << " on device, " << describe(config) << " rank "
                          << peers.rank() << "/" << workers << " step " << step << " gradient "
                          << g << " element " << i << ": got " << got[i] << ", want " << want;
        }
      }
      EXPECT_EQ(wrong, 0u) << GetParam() << " on device, " << describe(config);
    }
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(All, SynchronizerStrategies,
                         ::testing::ValuesIn(testing::usable_strategies()),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace gradsync
