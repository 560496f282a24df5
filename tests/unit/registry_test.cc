// The strategy table: names, the memory each strategy reduces natively,
// which ranks of a job only serve (and so need no GPU), the options each
// entry owns and their checks against the job's size.
#include "strategies/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gradsync {
namespace {

TEST(Registry, NcclStrategiesReduceDeviceMemoryAndTheRestHostMemory) {
  for (const auto& info : strategy_table()) {
    const bool nccl = info.transport == "NCCL";
    EXPECT_EQ(info.memory, nccl ? MemoryKind::device : MemoryKind::host) << info.name;
  }
  EXPECT_EQ(find_strategy("nccl-ring").transport, "NCCL");
  EXPECT_EQ(find_strategy("nccl-tree").transport, "NCCL");
}

TEST(Registry, OnlyDedicatedParameterServerRanksOnlyServe) {
  StrategyOptions dedicated;
  dedicated.ps.placement = PsPlacement::dedicated;
  dedicated.ps.servers = 2;
  EXPECT_TRUE(rank_only_serves(find_strategy("ps-zmq"), dedicated, 0));
  EXPECT_TRUE(rank_only_serves(find_strategy("ps-zmq"), dedicated, 1));
  EXPECT_FALSE(rank_only_serves(find_strategy("ps-zmq"), dedicated, 2));
  EXPECT_FALSE(rank_only_serves(find_strategy("ring-mpi"), dedicated, 0));  // the option is ps-zmq's alone
  StrategyOptions colocated;
  colocated.ps.servers = 2;
  EXPECT_FALSE(rank_only_serves(find_strategy("ps-zmq"), colocated, 0));
}

// NCCL's strategies need a GPU of their own per rank; every host-staged one
// lets ranks share; a rank that only serves takes none.
TEST(Registry, OnlyNcclStrategiesNeedAGpuPerRank) {
  const StrategyOptions options;
  for (const auto& info : strategy_table()) {
    const GpuNeed need = gpu_need(info, options, 0);
    EXPECT_TRUE(need.needs_gpu) << info.name;
    // nccl-ring, nccl-tree, zero2-nccl, zero3-nccl: NCCL takes one GPU per rank.
    const bool nccl = info.transport == "NCCL";
    EXPECT_EQ(need.exclusive_for, nccl ? info.name : "") << info.name;
  }
  StrategyOptions dedicated;
  dedicated.ps.placement = PsPlacement::dedicated;
  dedicated.ps.servers = 1;
  EXPECT_FALSE(gpu_need(find_strategy("ps-zmq"), dedicated, 0).needs_gpu);
  EXPECT_TRUE(gpu_need(find_strategy("ps-zmq"), dedicated, 1).needs_gpu);
  EXPECT_EQ(gpu_need(find_strategy("ps-zmq"), dedicated, 1).exclusive_for, "");
}

TEST(Registry, DedicatedPlacementIsCheckedAgainstTheJobSizeOnce) {
  StrategyOptions dedicated;
  dedicated.ps.placement = PsPlacement::dedicated;
  dedicated.ps.servers = 2;
  try {
    check_strategy_options(find_strategy("ps-zmq"), dedicated, 2);
    FAIL() << "accepted 2 dedicated servers in a job of 2 ranks";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--ps-placement dedicated"), std::string::npos) << message;
    EXPECT_NE(message.find("--ps-servers (2)"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_NO_THROW(check_strategy_options(find_strategy("ps-zmq"), dedicated, 3));
  // The option is the parameter server's alone: other entries take any job.
  EXPECT_NO_THROW(check_strategy_options(find_strategy("ring-mpi"), dedicated, 2));
  StrategyOptions colocated;
  colocated.ps.servers = 3;
  EXPECT_THROW(check_strategy_options(find_strategy("ps-zmq"), colocated, 2), std::invalid_argument);
  EXPECT_THROW(check_strategy_options(find_strategy("bogus"), colocated, 2), std::invalid_argument);
}

TEST(Registry, EveryOptionFlagAndRecordKeyIsOwnedOnce) {
  std::set<std::string_view> flags, keys;
  int test_only = 0;
  for (const auto& [strategy, flag] : strategy_option_flags()) {
    EXPECT_TRUE(flags.insert(flag->flag).second) << flag->flag;
    EXPECT_TRUE(keys.insert(flag->key).second) << flag->key;
    EXPECT_NE(flag->field == nullptr, flag->named.get == nullptr) << flag->flag;
    if (!strategy.empty()) {
      EXPECT_NO_THROW(find_strategy(strategy));
    }
    test_only += flag->test_only;
  }
  EXPECT_EQ(flags, (std::set<std::string_view>{"--ring-segment",
                                               "--tree-segment",
                                               "--ps-servers",
                                               "--ps-placement",
                                               "--ps-transport",
                                               "--ps-bind",
                                               "--ps-partition",
                                               "--ps-curve",
                                               "--ps-shm",
                                               "--ps-sum-threads",
                                               "--ps-mode",
                                               "--ps-staleness",
                                               "--ps-schedule",
                                               "--ps-window",
                                               "--timeout",
                                               "--ps-fault-stop-after",
                                               "--test-delay-ms",
                                               "--compression",
                                               "--hierarchical-ranks-per-host",
                                               "--short-allreduce"}));
  EXPECT_EQ(test_only, 2);  // --ps-fault-stop-after and --test-delay-ms
}

TEST(Registry, AnOptionFlagReachesItsOwnField) {
  StrategyOptions options;
  for (const auto& [strategy, flag] : strategy_option_flags()) {
    if (flag->flag == "--ring-segment") *std::get<std::size_t*>(flag->field(options)) = 64;
    if (flag->flag == "--ps-placement") flag->named.set(options, "dedicated");
    if (flag->flag == "--ps-fault-stop-after") *std::get<long*>(flag->field(options)) = 3;
  }
  EXPECT_EQ(options.ring.segment_bytes, 64u);
  EXPECT_EQ(options.tree.segment_bytes, TreeMpiOptions{}.segment_bytes);
  EXPECT_EQ(options.ps.placement, PsPlacement::dedicated);
  EXPECT_EQ(options.faults.ps_stop_after, 3);
}

TEST(Registry, AnUnknownNameListsTheKnownOnes) {
  try {
    find_strategy("nccl-ringg");
    FAIL() << "accepted an unknown strategy";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'nccl-ringg'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("nccl-ring, nccl-tree"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gradsync
