// The arithmetic of the collectives benchmark: exact correctness inputs, the
// bus bandwidth factor, the message sizes of -b/-e/-f/-i, and the argument
// checks that run before any strategy is built.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/cli/collectives_plan.h"
#include "harness/engine/collectives.h"
#include "harness/results/collectives_record.h"
#include "harness/results/collectives_table.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

TEST(CollectivesMath, InputsAreSmallIntegersWhoseSumsAreExact) {
  for (int rank : {0, 1, 4, 1000})
    for (std::uint64_t index : {0ull, 1ull, 16ull, 17ull, 123456789ull, 1ull << 40}) {
      const float x = test_input(rank, index, 0);
      EXPECT_EQ(x, std::round(x));
      EXPECT_LE(std::abs(x), 8.0f);
    }
  for (int workers : {1, 2, 3, 5, 64})
    for (std::uint64_t index : {0ull, 5ull, 33ull, (1ull << 33) + 3})
      for (int pass : {0, 1}) {
        double sum = 0;
        for (int rank = 0; rank < workers; ++rank) sum += test_input(rank, index, pass);
        EXPECT_EQ(expected_sum(workers, index, pass), sum);
      }
}

TEST(CollectivesMath, InputsDifferBetweenRanksElementsAndPasses) {
  // A strategy that returned one worker's buffer, or a stale buffer, must not pass.
  EXPECT_NE(test_input(0, 0, 0), test_input(1, 0, 0));
  EXPECT_NE(test_input(0, 0, 0), test_input(0, 1, 0));
  EXPECT_NE(test_input(0, 0, 0), test_input(0, 0, 1));
  EXPECT_NE(expected_sum(2, 0, 0), 2 * test_input(0, 0, 0));
}

TEST(CollectivesMath, BusFactorIsTwiceNMinusOneOverN) {
  EXPECT_DOUBLE_EQ(bus_factor(1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(3), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(bus_factor(4), 1.5);
  EXPECT_DOUBLE_EQ(bus_factor(5), 1.6);
}

std::vector<std::uint64_t> sizes(std::uint64_t b, std::uint64_t e, int f, std::uint64_t i) {
  CollectivesOptions options;
  options.min_bytes = b;
  options.max_bytes = e;
  options.step_factor = f;
  options.step_bytes = i;
  return message_sizes(options);
}

TEST(CollectivesMath, SizesFollowNcclTestsFactorAndStep) {
  const auto by_four = sizes(4, 64ull << 20, 4, 1 << 20);
  ASSERT_EQ(by_four.size(), 13u);
  EXPECT_EQ(by_four.front(), 4u);
  EXPECT_EQ(by_four[1], 16u);
  EXPECT_EQ(by_four.back(), 64ull << 20);
  EXPECT_EQ(sizes(0, 64, 4, 0), (std::vector<std::uint64_t>{0, 4, 16, 64}));
  EXPECT_EQ(sizes(0, 8, 1, 4), (std::vector<std::uint64_t>{0, 4, 8}));
  EXPECT_EQ(sizes(32 << 20, 32 << 20, 1, 1 << 20), (std::vector<std::uint64_t>{32 << 20}));
  EXPECT_THROW(sizes(0, 1ull << 30, 1, 4), std::invalid_argument);  // too many sizes
}

void expect_rejected(const CollectivesOptions& options, const std::string& words) {
  try {
    plan_collectives(options, {}, 2);
    ADD_FAILURE() << "accepted; expected an error with: " << words;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(CollectivesMath, ArgumentsThatCannotRunAreRejectedNamingTheFlag) {
  CollectivesOptions ok;
  ok.strategies = "mpi-allreduce,none";
  EXPECT_EQ(plan_collectives(ok, {}, 2).strategies,
            (std::vector<const StrategyInfo*>{&find_strategy("mpi-allreduce"),
                                              &find_strategy("none")}));
  auto with = [&](auto change) {
    CollectivesOptions o = ok;
    change(o);
    return o;
  };
  expect_rejected(with([](auto& o) { o.datatype = "int"; }), "-d/--datatype 'int'");
  expect_rejected(with([](auto& o) { o.op = "max"; }), "-o/--op 'max'");
  expect_rejected(with([](auto& o) { o.min_bytes = 8, o.max_bytes = 4; }), "-b/--minbytes 8");
  expect_rejected(with([](auto& o) { o.min_bytes = 0, o.step_bytes = 0; }), "-i/--stepbytes");
  // Sizes are whole floats; a range whose first step passes its end is refused.
  expect_rejected(with([](auto& o) { o.min_bytes = 3, o.max_bytes = 3; }),
                  "-b/--minbytes 3 B is not a whole number of floats");
  expect_rejected(with([](auto& o) { o.min_bytes = 4, o.max_bytes = 6; }),
                  "-e/--maxbytes 6 B is not a whole number of floats");
  expect_rejected(with([](auto& o) { o.min_bytes = 4, o.max_bytes = 8, o.step_bytes = 1; }),
                  "-i/--stepbytes 1 B is not a whole number of floats");
  expect_rejected(with([](auto& o) { o.min_bytes = 4096, o.max_bytes = 8192, o.step_bytes = 1 << 20; }),
                  "-i/--stepbytes 1M steps from -b/--minbytes 4K past -e/--maxbytes 8K: only one size");
  expect_rejected(with([](auto& o) { o.min_bytes = 4096, o.max_bytes = 6144, o.step_factor = 2; }),
                  "-f/--stepfactor 2 steps from -b/--minbytes 4K past -e/--maxbytes 6K");
  EXPECT_EQ(plan_collectives(with([](auto& o) { o.min_bytes = 4096, o.max_bytes = 8192, o.step_factor = 2; }), {}, 2).sizes,
            (std::vector<std::uint64_t>{4096, 8192}));
  expect_rejected(with([](auto& o) { o.iters = 0; }), "-n/--iters");
  expect_rejected(with([](auto& o) { o.warmup_iters = -1; }), "-w/--warmup_iters");
  expect_rejected(with([](auto& o) { o.check_passes = -1; }), "-c/--check");
  expect_rejected(with([](auto& o) { o.strategies = "mpi-allreduce,bogus"; }),
                  "unknown strategy 'bogus'");
  expect_rejected(with([](auto& o) { o.memory = "gpu"; }), "--memory 'gpu'");
}

TEST(CollectivesMath, MemoryAutoPutsOnlyDeviceStrategiesOnTheDevice) {
  CollectivesOptions options;
  options.strategies = "ring-mpi,none";
  const auto plan = plan_collectives(options, {}, 2);
  EXPECT_EQ(plan.memory, (std::vector<MemoryKind>{MemoryKind::host, MemoryKind::host}));
  EXPECT_FALSE(plan.any_device());
  options.memory = "host";
  EXPECT_FALSE(plan_collectives(options, {}, 2).any_device());
}

TEST(CollectivesMath, StagingTimeIsAColumnOnlyForDeviceBuffers) {
  StrategyOutcome outcome;
  outcome.strategy = "ring-mpi";
  SizeResult host_row;
  host_row.size_bytes = 1024;
  host_row.count = 256;
  SizeResult device_row = host_row;
  device_row.staging_us = 12.345;
  outcome.rows = {host_row, device_row};
  const std::string without = collectives_table_rows(outcome, false);
  const std::string with = collectives_table_rows(outcome, true);
  EXPECT_EQ(without.find("12.35"), std::string::npos);
  EXPECT_NE(with.find("12.35"), std::string::npos);
  EXPECT_NE(with.find("host\n"), std::string::npos);  // a host row in a device table
  EXPECT_NE(collectives_table_header(true).find("stage"), std::string::npos);
  EXPECT_EQ(collectives_table_header(false).find("stage"), std::string::npos);
  // The record keeps it, and rows written before device buffers still read.
  EXPECT_DOUBLE_EQ(*size_result_from_json(to_json(device_row)).staging_us, 12.345);
  auto old_row = to_json(host_row);
  old_row.erase("staging_us");
  EXPECT_FALSE(size_result_from_json(old_row).staging_us.has_value());
}

// A strategy that switches algorithm by size says which it took: the row's
// `path` in the record, and one summary line of the sizes in runs; a
// strategy that never switches prints no such line.
TEST(CollectivesMath, TheAlgorithmTakenAtEachSizeIsRecordedAndSummed) {
  StrategyOutcome outcome;
  outcome.strategy = "ring-mpi";
  for (std::uint64_t bytes : {4u, 1024u, 16384u, 65536u, 262144u}) {
    SizeResult row;
    row.size_bytes = bytes;
    row.path = bytes <= 16384 ? "recursive doubling" : "";
    outcome.rows.push_back(row);
  }
  EXPECT_NE(collectives_summary(outcome).find(
                "#   Algorithm by size   : recursive doubling at 4-16384 B; its own at "
                "65536-262144 B\n"),
            std::string::npos)
      << collectives_summary(outcome);
  EXPECT_EQ(size_result_from_json(to_json(outcome.rows[0])).path, "recursive doubling");
  EXPECT_TRUE(to_json(outcome.rows[4]).at("path").is_null());
  auto old_row = to_json(outcome.rows[0]);
  old_row.erase("path");  // rows written before the latency path still read
  EXPECT_EQ(size_result_from_json(old_row).path, "");
  for (auto& row : outcome.rows) row.path.clear();
  EXPECT_EQ(collectives_summary(outcome).find("Algorithm by size"), std::string::npos);
}

TEST(CollectivesMath, DedicatedServersNeedRanksLeftForWorkers) {
  if (!find_strategy("ps-zmq").availability().usable) GTEST_SKIP() << "ps-zmq is not usable here";
  CollectivesOptions options;
  options.strategies = "ps-zmq";
  StrategyOptions dedicated;
  dedicated.ps.placement = PsPlacement::dedicated;
  dedicated.ps.servers = 2;
  EXPECT_THROW(plan_collectives(options, dedicated, 2), std::invalid_argument);
  EXPECT_NO_THROW(plan_collectives(options, dedicated, 3));
}

TEST(CollectivesMath, TimesArePrintedWithNcclTestsPrecision) {
  EXPECT_EQ(format_time_us(5.678), "5.68");
  EXPECT_EQ(format_time_us(123.45), "123.5");
  EXPECT_EQ(format_time_us(12345.6), "12346");
}

}  // namespace
}  // namespace gradsync
