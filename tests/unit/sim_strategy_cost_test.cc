// The cost model learns every strategy from its table entry
// (harness/sim/strategy_cost.h): the test walks the table, so an entry the
// model cannot cost or calibrate fails here by name; options that change
// what a strategy moves are costed (--compression) or refused in one line
// (--ps-mode async, the test-only faults); calibration keeps compressed runs
// apart from fp32 ones.
#include "harness/sim/strategy_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/sim/calibration.h"
#include "harness/sim/simulation.h"
#include "strategies/registry.h"
#include "tests/unit/sim_test_support.h"

namespace gradsync::sim {
namespace {

using ::testing::HasSubstr;

constexpr double MiB = 1 << 20;

// 2 nodes of 4 GPUs: every entry can run.
ClusterModel gpu_cluster() {
  ClusterModel m = made_up_gpu_cluster(2);
  m.compression_costs["fp16"] = {{4e9, "measured", "made up"}, {3, "measured", "made up"}};
  return m;
}

SimulationCase case_of(const StrategyInfo& strategy, int workers, StrategyOptions options = {}) {
  SimulationCase c;
  c.model = "resnet50";
  c.batch = 32;
  c.device_profile = "v100";
  c.flops_per_second = 29.4e12;
  c.strategy = &strategy;
  c.options = options;
  c.placement = {.workers = workers, .workers_per_node = 4};
  return c;
}

TEST(SimStrategyCost, EveryTableEntryIsCostedFromItsOwnEntry) {
  const ClusterModel cluster = gpu_cluster();
  for (const auto& strategy : strategy_table()) {
    SCOPED_TRACE(std::string(strategy.name));
    EXPECT_NE(strategy.cost.counts == nullptr, strategy.cost.library_model_seconds == nullptr)
        << "an entry needs counts or a model of its own, not both";
    EXPECT_FALSE(strategy.cost.form.empty());
    EXPECT_EQ(uncosted_reason(strategy, {}), "");
    const SimulationResult r = simulate(cluster, case_of(strategy, 8));
    EXPECT_THAT(r.costed_as, HasSubstr(std::string(strategy.name)));
    // The baseline moves nothing; every other entry costs something on 2 nodes.
    if (strategy.role == StrategyRole::baseline)
      EXPECT_EQ(r.step.allreduce_s, 0.0);
    else
      EXPECT_GT(r.step.allreduce_s, 0.0);
  }
}

// A sharded strategy's call is a reduce-scatter and an all-gather: the
// all-gather is priced as the counts' second half, with no additions, so it
// is under half the call; ring's zero2 costs what ring-mpi's allreduce does.
TEST(SimStrategyCost, ShardedCallsPriceTheirAllGatherAsTheCountsSecondHalf) {
  const AllreduceCounts counts{
      .spanning = {.calls = 1, .messages = 6, .bytes = 3e6, .reduced = 3e6, .contended = 2e6},
      .intra = {.calls = 1, .messages = 2, .bytes = 1e6, .reduced = 1e6}};
  const AllreduceCounts half = gather_counts(counts);
  EXPECT_EQ(half.spanning.calls, 0.5);
  EXPECT_EQ(half.spanning.messages, 3);
  EXPECT_EQ(half.spanning.bytes, 1.5e6);
  EXPECT_EQ(half.spanning.reduced, 0);
  EXPECT_EQ(half.spanning.contended, 1e6);
  EXPECT_EQ(half.intra.messages, 1);
  EXPECT_EQ(half.intra.bytes, 0.5e6);
  EXPECT_EQ(half.intra.reduced, 0);

  const ClusterModel cluster = gpu_cluster();
  const WorkerPlacement placement{.workers = 8, .workers_per_node = 4};
  const BucketCoster ring(cluster, find_strategy("ring-mpi"), {}, placement);
  const BucketCoster zero2(cluster, find_strategy("zero2-ring-mpi"), {}, placement);
  for (double bytes : {4 * MiB, 64 * MiB}) {
    const auto sharded = zero2.cost(bytes);
    EXPECT_DOUBLE_EQ(sharded.seconds, ring.cost(bytes).seconds) << bytes;
    EXPECT_EQ(ring.cost(bytes).gather_seconds, 0.0);
    EXPECT_GT(sharded.gather_seconds, 0.4 * sharded.seconds) << bytes;
    EXPECT_LT(sharded.gather_seconds, 0.5 * sharded.seconds) << bytes;  // no additions
  }
  for (const auto& strategy : strategy_table())
    if (strategy.sharding != Sharding::none && strategy.cost.counts) {
      EXPECT_GT(BucketCoster(cluster, strategy, {}, placement).cost(64 * MiB).gather_seconds, 0)
          << strategy.name;
    }
}

// Times made from known constants through each counted entry's own counts,
// over worker counts on one node and across nodes (where the part within a
// node is taken as small beside the links', as the model takes it:
// fitted_terms), and calibrate gives fits that predict them (a black box
// one per worker count), whatever the entry.
TEST(SimStrategyCost, EveryCountedEntryCalibratesFromItsOwnTimes) {
  const CostParams truth{50e-6, 20e-6, 8.0 / 10e9, 0.25e-9, 0.1 * 8.0 / 10e9};
  for (const auto& strategy : strategy_table()) {
    if (!strategy.cost.counts) continue;
    SCOPED_TRACE(std::string(strategy.name));
    std::vector<CalibrationPoint> points;
    for (int per_node : {4, 1})
      for (int workers : {2, 3, 4, 8})
        for (double bytes : {4e3, 256e3, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB}) {
          CalibrationPoint p;
          p.strategy = &strategy;
          p.placement = {.workers = workers, .workers_per_node = per_node};
          p.bytes = bytes;
          p.time_s = 1e-6 + truth.seconds(fitted_terms(strategy_counts(strategy, {}, bytes, p.placement),
                                                       job_link(strategy, {}, p.placement)));
          p.origin = "made-up.jsonl:1";
          points.push_back(p);
        }
    const bool moves = strategy_counts(strategy, {}, MiB, {.workers = 4}).total().calls > 0;
    if (!moves) {
      EXPECT_THROW(calibrate(points), CalibrationError) << "nothing to fit, said so";
      continue;
    }
    const Calibration c = calibrate(points);
    ASSERT_FALSE(c.fits.empty());
    for (const auto& f : c.fits) {
      EXPECT_EQ(f.strategy, strategy.name);
      EXPECT_LT(f.median_abs_error, 0.05) << f.link << " " << f.worst_point;
    }
  }
}

TEST(SimStrategyCost, CompressionHalvesTheBytesAndPaysTheCasts) {
  ClusterModel cluster = gpu_cluster();
  const StrategyInfo& ring = find_strategy("ring-mpi");
  const WorkerPlacement placement{.workers = 8, .workers_per_node = 4};
  StrategyOptions fp16;
  fp16.compression = Compression::fp16;
  const AllreduceCounts full = strategy_counts(ring, {}, 64 * MiB, placement);
  const AllreduceCounts half = strategy_counts(ring, fp16, 64 * MiB, placement);
  EXPECT_EQ(half.spanning.messages, full.spanning.messages);
  EXPECT_DOUBLE_EQ(half.spanning.bytes, full.spanning.bytes / 2);
  EXPECT_DOUBLE_EQ(half.spanning.reduced, full.spanning.reduced / 2);
  cluster.inter.bandwidth_bits_per_s.value = 1e9;  // a link slow beside the casts: they pay
  const BucketCoster plain(cluster, ring, {}, placement), compressed(cluster, ring, fp16, placement);
  const CostParams link = cluster.link_params("inter");
  CostTerms priced = half.spanning;
  priced.reduced *= 3;  // a 16-bit byte added costs 3 fp32 ones here
  EXPECT_DOUBLE_EQ(compressed.seconds(64 * MiB), link.seconds(priced) + 64 * MiB / 4e9);
  EXPECT_LT(compressed.seconds(64 * MiB), plain.seconds(64 * MiB));
  EXPECT_THAT(compressed.costed_as(),
              HasSubstr("fp16 elements: half the bytes, additions at 3x fp32's per byte, casts at "
                        "4 GB/s"));
  // No cast rate for bf16 and no bf16 fit: refused, saying what is missing.
  StrategyOptions bf16;
  bf16.compression = Compression::bf16;
  try {
    BucketCoster(cluster, ring, bf16, placement);
    FAIL() << "bf16 was costed without its costs";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"compression\": {\"bf16\""));
  }
}

TEST(SimStrategyCost, OptionsTheModelDoesNotCostAreRefusedInOneLine) {
  const ClusterModel cluster = gpu_cluster();
  StrategyOptions async;
  async.ps.mode = PsMode::async;
  try {
    simulate(cluster, case_of(find_strategy("ps-zmq"), 8, async));
    FAIL() << "--ps-mode async was simulated";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("ps-zmq: --ps-mode async"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  StrategyOptions delayed;
  delayed.faults.delay_ms = 5;
  EXPECT_THAT(uncosted_reason(find_strategy("ring-mpi"), delayed), HasSubstr("--test-delay-ms"));
  StrategyOptions stopping;
  stopping.faults.ps_stop_after = 3;
  EXPECT_THAT(uncosted_reason(find_strategy("ps-zmq"), stopping),
              HasSubstr("--ps-fault-stop-after"));
}

// Runs with --compression fp16 are fitted apart from fp32 runs; a compressed
// simulation takes the compressed fit as it is (its casts are in it).
TEST(SimStrategyCost, CalibrationKeepsCompressedRunsApart) {
  const StrategyInfo& ring = find_strategy("ring-mpi");
  const CostParams fp32{50e-6, 20e-6, 8.0 / 1e9, 0, 0}, fp16{60e-6, 20e-6, 8.0 / 0.8e9, 0, 0};
  std::vector<CalibrationPoint> points;
  for (Compression format : {Compression::none, Compression::fp16})
    for (int workers : {2, 4, 8})
      for (double bytes : {1 * MiB, 4 * MiB, 16 * MiB}) {
        CalibrationPoint p;
        p.strategy = &ring;
        p.options.compression = format;
        p.placement = {.workers = workers, .workers_per_node = 1};
        p.bytes = bytes;
        const CostTerms terms = strategy_counts(ring, p.options, bytes, p.placement).total();
        p.time_s = (format == Compression::none ? fp32 : fp16).seconds(terms);
        p.origin = "made-up.jsonl:1";
        points.push_back(p);
      }
  const Calibration c = calibrate(points);
  ASSERT_EQ(c.fits.size(), 2u);
  EXPECT_EQ(c.fits[0].compression, "none");
  EXPECT_EQ(c.fits[1].compression, "fp16");
  EXPECT_NEAR(c.fits[1].params.overhead_s, 60e-6, 1e-9);
  ClusterModel cluster = calibrated_cluster(c, points, {.reduce_bytes_per_s = 5e9}, "made-up");
  // The link is the fp32 fit's, whatever order the fits came in.
  EXPECT_DOUBLE_EQ(cluster.inter.bandwidth_bits_per_s.value, 8.0 / c.fits[0].params.beta_s_per_byte);
  StrategyOptions options;
  options.compression = Compression::fp16;
  const BucketCoster coster(cluster, ring, options, {.workers = 8, .workers_per_node = 1});
  EXPECT_THAT(coster.costed_as(), HasSubstr("calibrated fp16"));
  const auto terms =
      strategy_counts(ring, options, 16 * MiB, {.workers = 8, .workers_per_node = 1}).total();
  EXPECT_NEAR(coster.seconds(16 * MiB), c.fits[1].params.seconds(terms), 1e-12);
}

// What calibrate cannot fit is left out with a note, never mixed in.
TEST(SimStrategyCost, CalibrationLeavesOutWhatTheModelDoesNotCost) {
  const StrategyInfo& ps = find_strategy("ps-zmq");
  const CostParams truth{50e-6, 20e-6, 8.0 / 1e9, 0.25e-9, 0};
  std::vector<CalibrationPoint> points;
  for (PsMode mode : {PsMode::sync, PsMode::async})
    for (int workers : {2, 3, 4, 8})
      for (double bytes : {256e3, 1 * MiB, 4 * MiB, 16 * MiB}) {
        CalibrationPoint p;
        p.strategy = &ps;
        p.options.ps.mode = mode;
        p.placement = {.workers = workers, .workers_per_node = 1};
        p.bytes = bytes;
        p.time_s = truth.seconds(strategy_counts(ps, {}, bytes, p.placement).total());
        p.origin = "made-up.jsonl:1";
        points.push_back(p);
      }
  const Calibration c = calibrate(points);
  ASSERT_EQ(c.fits.size(), 1u);
  EXPECT_EQ(c.fits.front().points, 16);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_THAT(c.notes.front(), HasSubstr("ps-zmq: 16 points left out: ps-zmq: --ps-mode async"));
}

}  // namespace
}  // namespace gradsync::sim
