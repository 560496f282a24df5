// The strategy table: names, the memory each strategy reduces natively, and
// which ranks of a job only serve (and so need no GPU).
#include "strategies/registry.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gradsync {
namespace {

TEST(Registry, NcclStrategiesReduceDeviceMemoryAndTheRestHostMemory) {
  for (const auto& info : strategy_table()) {
    const bool nccl = info.name.starts_with("nccl-");
    EXPECT_EQ(info.memory, nccl ? MemoryKind::device : MemoryKind::host) << info.name;
  }
  EXPECT_EQ(find_strategy("nccl-ring").transport, "NCCL");
  EXPECT_EQ(find_strategy("nccl-tree").transport, "NCCL");
}

TEST(Registry, OnlyDedicatedParameterServerRanksOnlyServe) {
  StrategyOptions dedicated;
  dedicated.ps_placement = PsPlacement::dedicated;
  dedicated.ps_servers = 2;
  EXPECT_TRUE(rank_only_serves("ps-zmq", dedicated, 0));
  EXPECT_TRUE(rank_only_serves("ps-zmq", dedicated, 1));
  EXPECT_FALSE(rank_only_serves("ps-zmq", dedicated, 2));
  EXPECT_FALSE(rank_only_serves("ring-mpi", dedicated, 0));  // the option is ps-zmq's alone
  StrategyOptions colocated;
  colocated.ps_servers = 2;
  EXPECT_FALSE(rank_only_serves("ps-zmq", colocated, 0));
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
